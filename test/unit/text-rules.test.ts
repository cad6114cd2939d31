import { expect } from 'chai';
import { parseAmiUrl } from '../../src/ami/ami-client';
import { AMI_MAX_LINE_BYTES, AmiFormatError, formatAction } from '../../src/ami/ami-protocol';
import { SCHEMAS } from '../../src/validation/schemas';
import { isPbxName, isSingleLine } from '../../src/text-rules';

const BAD_ANYWHERE = ['\u0000', '\u0008', '\u001b', '\u007f', '\u0085', '\u061c', '\u200e', '\u202e', '\u2067', '\ud800', '\udfff'];
const LINE_BREAKS = ['\n', '\r', '\t', '\u000b', '\u000c', '\u2028', '\u2029'];

describe('the single-line text rule (issue 27): one rule for the schemas, the AMI formatter and stored names', () => {
  it('when text holds a control, a line or paragraph separator, a bidi control or a lone surrogate, then it is not one line', () => {
    for (const c of [...BAD_ANYWHERE, ...LINE_BREAKS]) expect(isSingleLine(`a${c}b`), JSON.stringify(c)).to.equal(false);
    for (const ok of ['Lunch', 'Zürich Süd', 'Ivan Petrov', 'PJSIP/201', 'Local/201@from-queue/n', '😀 emoji pair', ''])
      expect(isSingleLine(ok), ok).to.equal(true);
    expect(isPbxName('Ivan|CONNECT')).to.equal(false);
    expect(isPbxName('Ivan Petrov')).to.equal(true);
  });

  it('when an AMI action holds a value that is not one line, a bad header name, a line past 1024 bytes or too many headers, then AmiFormatError names it', () => {
    expect(formatAction({ Action: 'QueuePause', Queue: 'sales', Reason: 'Lunch' })).to.equal(
      'Action: QueuePause\r\nQueue: sales\r\nReason: Lunch\r\n\r\n',
    );
    for (const c of [...BAD_ANYWHERE, ...LINE_BREAKS]) {
      expect(() => formatAction({ Action: 'QueuePause', Reason: `x${c}y` }), JSON.stringify(c))
        .to.throw(AmiFormatError)
        .with.property('header', 'Reason');
    }
    expect(() => formatAction({ 'Re:ason': 'x' })).to.throw(AmiFormatError);
    // "Reason: " is 8 bytes; é is 2 bytes of UTF-8.
    const fits = 'x'.repeat(AMI_MAX_LINE_BYTES - 8);
    expect(formatAction({ Reason: fits })).to.include(fits);
    expect(() => formatAction({ Reason: `${fits}x` })).to.throw(AmiFormatError, /1024 bytes/);
    expect(() => formatAction({ Reason: `${'x'.repeat(AMI_MAX_LINE_BYTES - 9)}é` })).to.throw(AmiFormatError);
    expect(() => formatAction(Object.fromEntries(Array.from({ length: 129 }, (_, i) => [`H${i}`, 'v'])))).to.throw(AmiFormatError);
  });

  it("when TARS_AMI_URL's user or secret decodes to more than one line, then it is refused as the server starts, not sent at login", () => {
    expect(() => parseAmiUrl('ami://tars:se%0D%0AAction%3A%20Originate@127.0.0.1')).to.throw(/AMI headers/);
    expect(() => parseAmiUrl('ami://ta%00rs:secret@127.0.0.1')).to.throw(/AMI headers/);
    expect(() => parseAmiUrl('ami://tars:se%E0%A4cret@127.0.0.1')).to.throw(/percent-encoded/);
    expect(parseAmiUrl('ami://tars:s%C3%A9cret@127.0.0.1')).to.include({ username: 'tars', secret: 'sécret' });
  });

  it('when a request schema has a text field, then it refuses what no text may hold, and a single-line field line breaks too', () => {
    // Opaque secrets and tokens are compared by hash and never shown, stored as text or sent to the PBX; ingested
    // lines are the PBX's own log lines, taken as it wrote them (the importer skips what it cannot read).
    const EXEMPT = new Set(['password', 'currentPassword', 'token', 'secret', 'accessToken', 'peerSecret', 'lines[]']);
    const byId = new Map(SCHEMAS.map((s) => [(s as { $id: string }).$id, s as Record<string, unknown>]));
    const resolve = (ref: string, base: string): [Record<string, unknown>, string] => {
      const [file, pointer = ''] = ref.split('#');
      const id = file || base;
      let node: unknown = byId.get(id);
      for (const part of pointer.split('/').filter(Boolean)) node = (node as Record<string, unknown>)[part];
      return [node as Record<string, unknown>, id];
    };
    /** The patterns a value must match at this node, through $ref and allOf; whether it is text (multi-line) or opaque. */
    const rules = (node: Record<string, unknown>, base: string): { patterns: string[]; multiLine: boolean; closed: boolean } => {
      const out = { patterns: [] as string[], multiLine: false, closed: 'enum' in node || 'const' in node || 'format' in node };
      if (typeof node.pattern === 'string') out.patterns.push(node.pattern);
      if (typeof node.$ref === 'string') {
        if (node.$ref === 'common#/$defs/text') out.multiLine = true;
        const [target, id] = resolve(node.$ref, base);
        const inner = rules(target, id);
        out.patterns.push(...inner.patterns);
        out.multiLine ||= inner.multiLine;
        out.closed ||= inner.closed;
      }
      for (const sub of (node.allOf as Record<string, unknown>[] | undefined) ?? []) {
        const inner = rules(sub, base);
        out.patterns.push(...inner.patterns);
        out.multiLine ||= inner.multiLine;
      }
      return out;
    };
    const wrong: string[] = [];
    const visit = (node: Record<string, unknown>, base: string, path: string, key: string): void => {
      if (typeof node.$ref === 'string' && !node.$ref.startsWith('common#/$defs/')) {
        const [target, id] = resolve(node.$ref, base);
        return visit({ ...node, $ref: undefined, ...target }, id, path, key);
      }
      const typesOf = (n: Record<string, unknown>, id: string): unknown[] => {
        if (n.type !== undefined) return ([] as unknown[]).concat(n.type);
        if (typeof n.$ref === 'string') return typesOf(...resolve(n.$ref, id));
        return ((n.allOf as Record<string, unknown>[] | undefined) ?? []).flatMap((sub) => typesOf(sub, id));
      };
      const types = typesOf(node, base);
      if (types.includes('string') && !EXEMPT.has(key)) {
        const r = rules(node, base);
        const refused = (c: string) => r.closed || r.patterns.some((p) => !new RegExp(p, 'u').test(`a${c}b`));
        const must = r.multiLine ? BAD_ANYWHERE : [...BAD_ANYWHERE, ...LINE_BREAKS];
        const passes = must.filter((c) => !refused(c));
        if (passes.length > 0) wrong.push(`${path}: takes ${JSON.stringify(passes)}`);
      }
      for (const [k, v] of Object.entries((node.properties as Record<string, Record<string, unknown>>) ?? {}))
        visit(v, base, `${path}.${k}`, k);
      if (node.items && typeof node.items === 'object') visit(node.items as Record<string, unknown>, base, `${path}[]`, `${key}[]`);
      for (const sub of [...((node.oneOf as []) ?? []), ...((node.anyOf as []) ?? [])]) visit(sub, base, path, key);
    };
    const requests = [...byId.keys()].filter((id) => !RESPONSES.has(id));
    for (const id of requests) visit(byId.get(id) as Record<string, unknown>, id, id, '');
    expect(wrong.join('\n')).to.equal('');
  });
});

/** Schemas that only describe answers (never validated as a request's input). */
const RESPONSES = new Set([
  'agent-action-result',
  'agent-availability',
  'agent-queues',
  'auth-or-challenge',
  'auth-response',
  'branch',
  'branch-page',
  'call-campaign',
  'call-campaign-page',
  'call-queue',
  'call-queue-list',
  'call-record',
  'calls-page',
  'common',
  'console-session',
  'console-sign-in',
  'emergency-location',
  'emergency-location-page',
  'error',
  'extension',
  'extension-page',
  'health',
  'import-summary',
  'live-queues',
  'mfa-challenge',
  'mfa-resend-response',
  'mfa-setup-required',
  'mfa-setup-response',
  'mfa-toggle-response',
  'openapi',
  'pbx-import',
  'pbx-import-page',
  'pbx-sync-plan',
  'phone-number',
  'phone-number-page',
  'phone-number-record',
  'queue',
  'queue-agent-sessions',
  'queue-agents',
  'queue-alerts',
  'queue-lost-calls',
  'queue-service-level',
  'queue-stats',
  'report-run',
  'report-run-page',
  'saved-filter',
  'saved-filter-created',
  'saved-filter-page',
  'status-response',
  'tenant',
  'tenant-page',
  'user',
  'user-page',
  'webhook',
  'webhook-delivery',
  'webhook-delivery-page',
  'webhook-list',
  'webhook-secret',
  'webhook-types',
  'wallboard-link',
  'wallboard-link-list',
  'wallboard-live',
]);

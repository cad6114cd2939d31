import { createHash } from 'node:crypto';
import { expect } from 'chai';
import fc from 'fast-check';
import { allRoutes } from '../../src/app';
import type { RouteDef } from '../../src/http/route';
import { readFixtureFile, seedFixture } from '../../src/seed/seed';
import { AmiPeer } from '../helpers/ami-peer';
import { amiTranscript } from '../helpers/ami-transcript';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app';
import { until } from '../helpers/until';
import { anyJson, deeplyNested, RawJson, extremeNumbers, extremeNumberText, mutated, schemaById, validOf } from '../helpers/arbitraries';
import { ERROR_NAMES } from '../helpers/errors';
import { tokenFor } from '../helpers/factories';
import { ACME } from '../helpers/fixtures';
import { startReceiver, type HttpReceiver } from '../helpers/http-receiver';
import { startSmtp, type TestSmtp } from '../helpers/smtp';
import { rawSqlite } from '../helpers/engine';

/*
 * Property-based requests to every route, driven by its schemas: valid bodies and queries, broken ones
 * and arbitrary JSON, with every role, with real, foreign, missing and malformed ids. Whatever comes in:
 * no 5xx, every error in the shape of decisions.md §2, and a refused write changes nothing.
 */
const RUNS_PER_ROUTE = Number(process.env.TARS_FUZZ_RUNS ?? 25);
/** Tables that a refused request may legitimately write to: the login throttle, MFA challenges, a console session's last use. */
const AUTH_STATE = new Set(['login_failures', 'mfa_challenges', 'console_sessions']);
/** User 1 of test/fixtures/acme.json, the platform admin: its password, for a console session. */
const ACME_PASSWORD = 'platform-admin-pass';

describe('fuzzing every route (property-based, from schemas/)', function () {
  this.timeout(300_000);
  let app: TestApp;
  const tokens: Array<string | undefined> = [undefined];
  /** Every caller of the property: none, each user's access token, a wallboard link's token, a console session's cookie. */
  const callers: Array<{ token?: string; headers?: Record<string, string> }> = [];
  const tenants = [1, 2, 3, 987654];
  const ids = [
    '1',
    '2',
    '3',
    '4',
    '987654',
    '0',
    '-1',
    'abc',
    '1.5',
    '1e3',
    '%20',
    '99999999999999999999',
    '0x10',
    '+1',
    '01',
    '1.0',
    '9007199254740993',
    '1%20',
  ];

  const checksum = (): string => {
    const sqlite = rawSqlite(app.deps.database);
    const tables = sqlite
      .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all() as { name: string; sql: string }[];
    const h = createHash('sha256');
    // A WITHOUT ROWID table has no rowid to order by (the query threw, and every property with it, unnoticed): its key orders a scan.
    for (const { name, sql } of tables) {
      if (AUTH_STATE.has(name)) continue;
      const order = /WITHOUT\s+ROWID/i.test(sql) ? '' : ' ORDER BY rowid';
      h.update(name).update(JSON.stringify(sqlite.prepare(`SELECT * FROM "${name}"${order}`).all()));
    }
    return h.digest('hex');
  };

  let smtp: TestSmtp;
  let sms: HttpReceiver;
  let peer: AmiPeer;

  before(async () => {
    // Real mail and SMS receivers: routes that send a code (MFA set-up, password reset) can succeed.
    smtp = await startSmtp();
    sms = await startReceiver();
    // And a PBX (an AMI peer on loopback): the agent routes can carry their actions out.
    peer = new AmiPeer(amiTranscript());
    await peer.listen();
    app = await startTestApp({ env: { TARS_SMTP_URL: smtp.url, TARS_SMS_GATEWAY_URL: `${sms.url}/send`, TARS_AMI_URL: peer.url } });
    app.deps.live.start();
    await until(() => app.deps.live.pbxs[0]?.snapshotAt);
    await seedFixture(app.deps.database, app.deps.validator, await readFixtureFile(ACME), new Date());
    for (const userId of [1, 7, 2, 3, 8, 4, 6]) tokens.push(await tokenFor(app, { id: userId }));
    callers.push(...tokens.map((token) => ({ token })));
    const link = await app.request('POST', '/v2/wallboard-links', { token: tokens[1], body: { tenantId: 1, name: 'Fuzz', queueIds: [1] } });
    callers.push({ headers: { authorization: `Bearer ${link.body.token}` } });
    const admin = await app.deps.database.db.selectFrom('users').select('email').where('id', '=', 1).executeTakeFirstOrThrow();
    const signIn = await app.request('POST', '/v2/console/session', {
      body: { email: admin.email, password: ACME_PASSWORD },
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    if (signIn.status !== 201) throw new Error(`console sign-in: ${signIn.status} ${signIn.text}`);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] as string;
    callers.push({ headers: { cookie, 'sec-fetch-site': 'same-origin' } }, { headers: { cookie, 'sec-fetch-site': 'cross-site' } });
  });
  after(async () => {
    await app.close();
    await peer.close();
    await smtp.close();
    await sms.close();
  });

  const bodyArb = (route: RouteDef): fc.Arbitrary<unknown> => {
    if (!route.body) return fc.constant(undefined);
    const valid = validOf(schemaById(route.body)).map((b) =>
      typeof b === 'object' && b !== null && 'tenantId' in b
        ? { ...b, tenantId: tenants[Number((b as { tenantId: number }).tenantId) % tenants.length] }
        : b,
    );
    return fc.oneof(
      { weight: 3, arbitrary: valid },
      { weight: 2, arbitrary: mutated(valid) },
      { weight: 1, arbitrary: anyJson },
      { weight: 1, arbitrary: extremeNumbers(valid) },
    );
  };
  /** A report with a spreadsheet form (reporting.md R24) also gets `format`: its forms, a wrong one, or none. */
  const queryArb = (route: RouteDef): fc.Arbitrary<Record<string, string> | undefined> => {
    const own = ownQueryArb(route);
    if (!route.sheet) return own;
    return fc
      .tuple(own, fc.option(fc.constantFrom('csv', 'xlsx', 'json', 'pdf', '', 'CSV', 'xlsx ')))
      .map(([q, format]) => (format === null ? q : { ...(q ?? {}), format }));
  };
  const ownQueryArb = (route: RouteDef): fc.Arbitrary<Record<string, string> | undefined> => {
    if (!route.query) return fc.constant(undefined);
    const valid = validOf(schemaById(route.query)).map((q) =>
      Object.fromEntries(
        Object.entries(q as Record<string, unknown>).map(([k, v]) => [
          k,
          k === 'tenantId' ? String(tenants[Number(v) % tenants.length]) : String(v),
        ]),
      ),
    );
    const extreme = valid.chain((q) =>
      fc
        .tuple(fc.constantFrom(...Object.keys(q as object), 'page'), extremeNumberText)
        .map(([k, n]) => ({ ...(q as Record<string, string>), [k]: n })),
    );
    return fc.oneof(
      valid,
      extreme,
      fc.dictionary(
        fc.constantFrom('tenantId', 'page', 'recordsPerPage', 'paginated', 'number', 'x'),
        fc.oneof(fc.string({ maxLength: 6 }), extremeNumberText),
      ),
    );
  };

  const problemsOf = (route: RouteDef, res: TestResponse, before: string): string[] => {
    const out: string[] = [];
    if (res.status >= 500) out.push(`status ${res.status}: ${res.text.slice(0, 200)}`);
    if (res.status >= 400) {
      const b = res.body as Record<string, unknown> | undefined;
      if (!b || b.code !== res.status || b.name !== ERROR_NAMES[res.status] || typeof b.message !== 'string')
        out.push(`error body not in the §2 shape: ${res.text.slice(0, 200)}`);
      if (res.status === 400 && !(Array.isArray(b?.validationErrors) && (b.validationErrors as unknown[]).length > 0))
        out.push('400 without validationErrors');
      if (route.method !== 'get' && checksum() !== before) out.push(`a refused ${route.method.toUpperCase()} changed the database`);
    }
    return out;
  };

  it('when any request reaches any route as any role, then no 5xx, errors in the §2 shape, refused writes change nothing', async () => {
    const routes = allRoutes(app.deps).filter((r) => r.path !== '/v2/authentication' && r.path !== '/v2/authentication/mfa');
    const failures: string[] = [];
    for (const route of routes) {
      const recorded = failures.length;
      await fc
        .assert(
          fc.asyncProperty(
            fc.nat(callers.length - 1),
            fc.constantFrom(...ids),
            bodyArb(route),
            queryArb(route),
            async (who, id, body, query) => {
              const before = checksum();
              const path = route.path.replace(/:\w+/g, encodeURIComponent(id)).replace('%25', '%');
              const payload = body instanceof RawJson ? { raw: body.text } : { body };
              const res = await app.request(route.method.toUpperCase(), path, { ...callers[who], ...payload, query });
              const problems = problemsOf(route, res, before);
              if (problems.length > 0)
                failures.push(
                  `${route.method.toUpperCase()} ${path} as token ${who} ${JSON.stringify(body)?.slice(0, 120)}: ${problems.join('; ')}`,
                );
              return problems.length === 0;
            },
          ),
          { numRuns: RUNS_PER_ROUTE, seed: Number(process.env.TARS_FUZZ_SEED ?? 42) },
        )
        .catch((err: unknown) => {
          // A property that threw (rather than returned false) has recorded nothing: record it, so the test cannot pass vacuously.
          if (failures.length === recorded) failures.push(`${route.method.toUpperCase()} ${route.path}: ${String(err).split('\n')[0]}`);
        });
    }
    expect(failures.slice(0, 10)).to.deep.equal([]);
  });

  it('when a body nests thousands of levels deep or a number is far past every limit, as the platform admin in tenant 1, then no 5xx (issue 16)', async () => {
    const routes = allRoutes(app.deps).filter(
      (r) => (r.body || r.query) && r.path !== '/v2/authentication' && r.path !== '/v2/authentication/mfa',
    );
    const failures: string[] = [];
    const inTenant1 = (v: unknown) => (typeof v === 'object' && v !== null && 'tenantId' in v ? { ...v, tenantId: 1 } : v);
    for (const route of routes) {
      const valid = route.body ? validOf(schemaById(route.body)).map(inTenant1) : fc.constant(undefined);
      const body = route.body ? fc.oneof(deeplyNested(valid, schemaById(route.body)), extremeNumbers(valid)) : fc.constant(undefined);
      const query = route.query
        ? validOf(schemaById(route.query)).chain((q) =>
            extremeNumberText.map((n) => ({
              ...Object.fromEntries(Object.entries(q as object).map(([k, v]) => [k, String(v)])),
              tenantId: '1',
              page: n,
            })),
          )
        : fc.constant(undefined);
      const recorded = failures.length;
      await fc
        .assert(
          fc.asyncProperty(body, query, async (b, q) => {
            const path = route.path.replace(/:\w+/g, '1');
            const payload = b instanceof RawJson ? { raw: b.text } : { body: b };
            const res = await app.request(route.method.toUpperCase(), path, { token: tokens[1], ...payload, query: q });
            if (res.status >= 500)
              failures.push(
                `${route.method.toUpperCase()} ${path} ${b instanceof RawJson ? `(${b.text.length} characters of nesting)` : JSON.stringify(b)?.slice(0, 100)} ${JSON.stringify(q)}: ${res.status}`,
              );
            return res.status < 500;
          }),
          { numRuns: 10, seed: Number(process.env.TARS_FUZZ_SEED ?? 42) },
        )
        .catch((err: unknown) => {
          if (failures.length === recorded) failures.push(`${route.method.toUpperCase()} ${route.path}: ${String(err).split('\n')[0]}`);
        });
    }
    expect(failures.slice(0, 10)).to.deep.equal([]);
  });
});

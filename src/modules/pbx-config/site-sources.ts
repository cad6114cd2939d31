/**
 * What each Asterisk module reads from its own parsed file: app_queue (queues.conf), res_pjsip (pjsip.conf),
 * chan_sip (sip.conf) and pbx_config (extensions.conf hints). Settings Asterisk would replace by a default with a
 * warning (an unknown strategy, a penalty that is not a number) are problems here, with their file and line.
 */
import { type ConfFile, type ConfProblem, type ConfSection, type ConfVariable } from './asterisk-conf';
import { strip } from './asterisk-conf-lines';
import { pbxNameKey, samePbxName } from '../../pbx-name';

/** app_queue's strategies; `roundrobin` is its old name for `rrmemory` and is reported as that. */
export const QUEUE_STRATEGIES = ['ringall', 'leastrecent', 'fewestcalls', 'random', 'rrmemory', 'linear', 'wrandom', 'rrordered'] as const;
export type QueueStrategy = (typeof QUEUE_STRATEGIES)[number];

/** One `member =>` line of a queue, its fields as app_queue's reload_single_member reads them. */
export interface QueueMemberLine {
  /** The channel Asterisk dials and writes on ADDMEMBER/REMOVEMEMBER: `Local/1001@from-queue/n`, `SIP/1001`. */
  interface: string;
  penalty: number;
  /** Written on call and pause events (FreePBX: the user's display name); null when absent (Asterisk then uses the interface). */
  memberName: string | null;
  /** Whose device state tells if the member is busy: `hint:1001@ext-local`, `PJSIP/1001`; null when absent. */
  stateInterface: string | null;
  file: string;
  line: number;
}

/** One `[queue]` section of queues.conf (templates and `[general]` are not queues). */
export interface QueueSection {
  /** The section name as written: app_queue writes exactly this into queue_log's queuename field. */
  logName: string;
  strategy: QueueStrategy;
  /** `servicelevel` in seconds when it is greater than 0 (Asterisk's 0, the default, means none); else null. */
  serviceLevel: number | null;
  members: QueueMemberLine[];
  file: string;
  line: number;
}

/** A SIP endpoint: a `type=endpoint` section of pjsip.conf or a `type=peer|friend` section of sip.conf. */
export interface SipEndpoint {
  technology: 'PJSIP' | 'SIP';
  /** The section name, which is the endpoint's name in channels: `PJSIP/<name>-0000002a`. */
  name: string;
  /** `PJSIP/1001`, `SIP/1001`: what the CDR and a member interface call this device. */
  peerName: string;
  /** From `callerid = "Bob Smith" <1001>`; null when the setting is absent or names no one. */
  callerIdName: string | null;
  callerIdNumber: string | null;
  file: string;
  line: number;
}

/** One `exten => 1001,hint,PJSIP/1001&Custom:DND1001,CustomPresence:1001` of the dialplan. */
export interface DialplanHint {
  /** The extension as written (no `/callerid` part); patterns (`_1XXX`) are kept, marked by their `_`. */
  exten: string;
  context: string;
  /** The `&`-separated devices before the presence part, as written. */
  devices: string[];
  file: string;
  line: number;
}

type Problems = ConfProblem[];

const live = (conf: ConfFile | null): ConfSection[] => (conf ? conf.sections.filter((s) => !s.template) : []);
const named = (section: ConfSection, name: string): ConfVariable[] => section.variables.filter((v) => samePbxName(v.name, name));
/** ast_variable_retrieve: the last value wins, so a section overrides its template. */
const lastValue = (section: ConfSection, name: string): ConfVariable | undefined => named(section, name).at(-1);

export function queueSections(conf: ConfFile | null, problems: Problems): QueueSection[] {
  const seen = new Map<string, ConfSection>();
  const queues: QueueSection[] = [];
  for (const section of live(conf)) {
    if (pbxNameKey(section.name) === 'general') continue;
    const first = seen.get(pbxNameKey(section.name));
    if (first) {
      problems.push({
        ...at(section),
        reason: `queue '${section.name}' is defined a second time (first at ${first.file}:${first.line}); Asterisk compares queue names without case`,
      });
      continue;
    }
    seen.set(pbxNameKey(section.name), section);
    const strategy = readStrategy(section, problems);
    const members = named(section, 'member').flatMap((v) => readMember(v, problems) ?? []);
    queues.push({ logName: section.name, strategy, serviceLevel: readServiceLevel(section), members, ...at(section) });
  }
  return queues;
}

function readStrategy(section: ConfSection, problems: Problems): QueueStrategy {
  const v = lastValue(section, 'strategy');
  if (!v) return 'ringall';
  const name = pbxNameKey(v.value) === 'roundrobin' ? 'rrmemory' : pbxNameKey(v.value);
  const known = QUEUE_STRATEGIES.find((s) => s === name);
  if (!known)
    problems.push({
      ...at(v),
      reason: `unknown strategy '${v.value}' (Asterisk would use ringall): one of ${QUEUE_STRATEGIES.join(', ')}, roundrobin`,
    });
  return known ?? 'ringall';
}

/** app_queue reads `servicelevel` with atoi(): leading blanks, a sign and digits; anything else is 0 (none). */
function readServiceLevel(section: ConfSection): number | null {
  const v = lastValue(section, 'servicelevel');
  const n = Number(/^\s*([+-]?\d+)/.exec(v?.value ?? '')?.[1] ?? 0);
  return n > 0 ? n : null;
}

function readMember(v: ConfVariable, problems: Problems): QueueMemberLine | null {
  const [iface = '', penalty = '', memberName = '', stateInterface = ''] = separateArgs(v.value);
  if (iface === '') {
    problems.push({ ...at(v), reason: "empty member: 'member => interface[,penalty[,name[,state interface]]]'" });
    return null;
  }
  const p = strip(penalty);
  if (p !== '' && !/^-?\d+$/.test(p)) {
    problems.push({ ...at(v), reason: `member penalty '${p}' is not a whole number` });
    return null;
  }
  return {
    interface: iface,
    penalty: Math.max(0, Number(p || 0)),
    memberName: strip(memberName) || null,
    stateInterface: strip(stateInterface) || null,
    ...at(v),
  };
}

/**
 * AST_STANDARD_APP_ARGS: commas inside quotes, () or [] do not separate; quotes and `\` escapes are removed.
 */
export function separateArgs(text: string): string[] {
  const args: string[] = [];
  let cur = '';
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '\\' && i + 1 < text.length) {
      cur += text[++i];
      continue;
    }
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === ',' && depth === 0) {
      args.push(cur);
      cur = '';
      continue;
    } else if (!quoted && (ch === '(' || ch === '[')) depth++;
    else if (!quoted && (ch === ')' || ch === ']') && depth > 0) depth--;
    if (ch !== '"') cur += ch;
  }
  args.push(cur);
  return args;
}

export function pjsipEndpoints(conf: ConfFile | null): SipEndpoint[] {
  return live(conf)
    .filter((s) => lastValue(s, 'type')?.value === 'endpoint')
    .map((s) => endpoint('PJSIP', s));
}

export function sipPeers(conf: ConfFile | null): SipEndpoint[] {
  return live(conf)
    .filter((s) => !['general', 'authentication'].includes(pbxNameKey(s.name)))
    .filter((s) => ['peer', 'friend'].includes(pbxNameKey(lastValue(s, 'type')?.value ?? '')))
    .map((s) => endpoint('SIP', s));
}

function endpoint(technology: 'PJSIP' | 'SIP', s: ConfSection): SipEndpoint {
  const callerId = parseCallerId(lastValue(s, 'callerid')?.value ?? '');
  return { technology, name: s.name, peerName: `${technology}/${s.name}`, ...callerId, ...at(s) };
}

/** ast_callerid_split: `"Bob Smith" <1001>`, `Bob Smith <1001>`, `<1001>`, `1001` or a bare name. */
export function parseCallerId(value: string): { callerIdName: string | null; callerIdNumber: string | null } {
  const angle = /^(.*?)\s*<([^>]*)>\s*$/.exec(strip(value));
  const name = angle ? strip(angle[1] ?? '') : /^[\d+*#]+$/.test(strip(value)) ? '' : strip(value);
  const number = angle ? strip(angle[2] ?? '') : /^[\d+*#]+$/.test(strip(value)) ? strip(value) : '';
  const unquoted = name.replace(/^"(.*)"$/, '$1');
  return { callerIdName: unquoted || null, callerIdNumber: number || null };
}

export function dialplanHints(conf: ConfFile | null): DialplanHint[] {
  const hints: DialplanHint[] = [];
  for (const section of live(conf)) {
    if (['general', 'globals'].includes(pbxNameKey(section.name))) continue;
    for (const v of named(section, 'exten')) {
      const [ext = '', priority = '', ...rest] = v.value.split(',');
      if (strip(priority) !== 'hint') continue;
      const devices = (rest[0] ?? '')
        .split('&')
        .map(strip)
        .filter((d) => d !== '');
      hints.push({ exten: strip(ext).split('/')[0] ?? '', context: section.name, devices, ...at(v) });
    }
  }
  return hints;
}

const at = (x: { file: string; line: number }): { file: string; line: number } => ({ file: x.file, line: x.line });

/** A static member of a queue and the extension it was recognised as. */
export interface SiteQueueMember extends QueueMemberLine {
  /** The extension number it belongs to (from its interface, else its state interface); null when neither names one. */
  extNum: string | null;
}

export interface SiteExtension {
  /** All digits, as written (`1001`). */
  extNum: string;
  /** The endpoint's caller id name, else the first member name given for it; null when the configuration names no one. */
  extName: string | null;
  /** The device of its hint or its endpoint (`PJSIP/1001`, `SIP/1001`); null when only Local-channel members name it. */
  peerName: string | null;
  /** Other names Asterisk logs it under (member interfaces, member names, further hint devices), without peerName. */
  agentAliases: string[];
  /** Where each fact came from, `file:line what`, for the printout. */
  sources: string[];
}

/** Something read that maps to no extension, or a name two extensions claim; printed, not refused. */
export interface SiteNote {
  file: string;
  line: number;
  message: string;
}

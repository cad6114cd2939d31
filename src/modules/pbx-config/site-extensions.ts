/**
 * Which extension each hint, endpoint and queue member is, and the names it goes by (reporting.md R14).
 * An extension is a number: a hint's extension, an endpoint named by digits, or the number a member's
 * interface or state interface names (`Local/1001@…`, `Agent/1001`, `hint:1001@…`, a device of a hint).
 */
import {
  type DialplanHint,
  type QueueMemberLine,
  type QueueSection,
  type SipEndpoint,
  type SiteExtension,
  type SiteNote,
  type SiteQueueMember,
} from './site-sources';
import { pbxNameKey, samePbxName } from '../../pbx-name';

interface Built {
  extensions: SiteExtension[];
  /** The members of each queue, in the order of the queues given. */
  members: SiteQueueMember[][];
  notes: SiteNote[];
}

const DIGITS = /^\d+$/;
/** A channel device (`PJSIP/1001`), as opposed to a state provider (`Custom:DND1001`). */
const CHANNEL = /^([A-Za-z0-9_]+)\/(.+)$/;
/** A device as a map key: its technology without ASCII case (as Asterisk finds channel drivers), the rest as written. */
const deviceKey = (device: string): string => device.replace(CHANNEL, (_m, tech: string, rest: string) => `${pbxNameKey(tech)}/${rest}`);

class Directory {
  readonly drafts = new Map<string, SiteExtension>();
  readonly deviceToExt = new Map<string, string>();
  readonly notes: SiteNote[] = [];

  draft(extNum: string): SiteExtension {
    let d = this.drafts.get(extNum);
    if (!d) this.drafts.set(extNum, (d = { extNum, extName: null, peerName: null, agentAliases: [], sources: [] }));
    return d;
  }

  /** The first device becomes peerName; later ones are aliases, as CDR channels name them too. */
  addDevice(d: SiteExtension, device: string): void {
    this.deviceToExt.set(deviceKey(device), d.extNum);
    if (d.peerName === null) d.peerName = device;
    else if (!samePbxName(d.peerName, device)) addAlias(d, device);
  }

  /** extNum named by an interface or state interface, or null. */
  extOf(name: string): string | null {
    const local = /^Local\/([^@/]+)@/i.exec(name) ?? /^Agent\/([^/]+)$/i.exec(name) ?? /^hint:([^@]+)@/i.exec(name);
    if (local) return DIGITS.test(local[1] ?? '') ? (local[1] ?? null) : null;
    const channel = CHANNEL.exec(name);
    if (!channel) return null;
    return this.deviceToExt.get(deviceKey(name)) ?? (DIGITS.test(channel[2] ?? '') ? (channel[2] ?? null) : null);
  }
}

function addAlias(d: SiteExtension, alias: string): void {
  if (!samePbxName(alias, d.peerName ?? '') && !d.agentAliases.some((a) => samePbxName(a, alias))) d.agentAliases.push(alias);
}

export function buildExtensions(queues: QueueSection[], endpoints: SipEndpoint[], hints: DialplanHint[]): Built {
  const dir = new Directory();
  const byPeer = new Map(endpoints.map((e) => [deviceKey(e.peerName), e]));
  for (const hint of hints) readHint(dir, hint, byPeer);
  for (const e of endpoints) {
    if (dir.deviceToExt.has(deviceKey(e.peerName)) || !DIGITS.test(e.name)) continue;
    const d = dir.draft(e.name);
    dir.addDevice(d, e.peerName);
    d.extName ??= e.callerIdName;
    d.sources.push(`${e.file}:${e.line} ${e.technology} endpoint ${e.name}`);
  }
  const members = queues.map((q) => q.members.map((m) => readMember(dir, q, m)));
  dropSharedAliases(dir);
  const extensions = [...dir.drafts.values()].sort((a, b) => Number(a.extNum) - Number(b.extNum));
  return { extensions, members, notes: dir.notes };
}

function readHint(dir: Directory, hint: DialplanHint, byPeer: Map<string, SipEndpoint>): void {
  const where = { file: hint.file, line: hint.line };
  if (!DIGITS.test(hint.exten)) {
    dir.notes.push({ ...where, message: `hint '${hint.exten}' in [${hint.context}] is not an extension number: not read as an extension` });
    return;
  }
  const devices = hint.devices.filter((dev) => CHANNEL.test(dev));
  if (devices.length === 0) {
    dir.notes.push({
      ...where,
      message: `hint ${hint.exten} in [${hint.context}] names no channel device (${hint.devices.join('&') || 'none'})`,
    });
    return;
  }
  const d = dir.draft(hint.exten);
  for (const device of devices) {
    dir.addDevice(d, device);
    d.extName ??= byPeer.get(deviceKey(device))?.callerIdName ?? null;
  }
  d.sources.push(`${hint.file}:${hint.line} hint in [${hint.context}]`);
}

function readMember(dir: Directory, q: QueueSection, m: QueueMemberLine): SiteQueueMember {
  const extNum = dir.extOf(m.interface) ?? (m.stateInterface ? dir.extOf(m.stateInterface) : null);
  if (extNum === null) {
    const names = m.stateInterface ? `'${m.interface}' (state interface '${m.stateInterface}')` : `'${m.interface}'`;
    dir.notes.push({ file: m.file, line: m.line, message: `member ${names} of queue '${q.logName}' names no extension number` });
    return { ...m, extNum: null };
  }
  const d = dir.draft(extNum);
  if (d.peerName === null) {
    const device = [m.stateInterface, m.interface].find((n) => n && CHANNEL.test(n) && !/^(Local|Agent)\//i.test(n));
    if (device) dir.addDevice(d, device);
  }
  addAlias(d, m.interface);
  if (m.memberName) addAlias(d, m.memberName);
  d.extName ??= m.memberName;
  d.sources.push(`${m.file}:${m.line} member of ${q.logName}`);
  return { ...m, extNum };
}

/** A name two extensions answer to would make R14's lookup depend on order: it is kept by neither. */
function dropSharedAliases(dir: Directory): void {
  const owners = new Map<string, SiteExtension[]>();
  for (const d of dir.drafts.values()) {
    for (const name of [d.peerName, ...d.agentAliases]) {
      if (name === null) continue;
      const key = pbxNameKey(name);
      const seen = owners.get(key) ?? [];
      if (!seen.includes(d)) owners.set(key, [...seen, d]);
    }
  }
  for (const [key, ds] of owners) {
    if (ds.length < 2) continue;
    const name = [ds[0]?.peerName ?? '', ...(ds[0]?.agentAliases ?? [])].find((n) => pbxNameKey(n) === key) ?? key;
    for (const d of ds) d.agentAliases = d.agentAliases.filter((a) => pbxNameKey(a) !== key);
    const nums = ds.map((d) => d.extNum).join(', ');
    dir.notes.push({ file: '', line: 0, message: `'${name}' names extensions ${nums}: not kept as an alias of any of them` });
  }
}

/**
 * One line of an Asterisk queue_log, `epoch|callid|queuename|agent|event|data1|…`, read by the rules of
 * reporting.md R1 and R4. Pure: no database, no state.
 */

import { digitsAt } from './digits';
import { parseWallTime, UTC_ZONE, type PbxZone } from './pbx-zone';

/** Event codes as stored: call events ENTERQUEUE..CALLBACKFAILED, membership events from ADDMEMBER on. */
export const EV = {
  ENTERQUEUE: 1,
  CONNECT: 2,
  COMPLETEAGENT: 3,
  COMPLETECALLER: 4,
  BLINDTRANSFER: 5,
  ATTENDEDTRANSFER: 6,
  ABANDON: 7,
  EXITWITHTIMEOUT: 8,
  EXITWITHKEY: 9,
  EXITEMPTY: 10,
  RINGNOANSWER: 11,
  CALLBACKREQUEST: 12,
  CALLBACKSUCCESS: 13,
  CALLBACKFAILED: 14,
  /** Counts for nothing (R1); only shows that its agent is a member (R15). */
  RINGCANCELED: 15,
  ADDMEMBER: 20,
  REMOVEMEMBER: 21,
  AGENTLOGIN: 22,
  AGENTLOGOFF: 23,
  PAUSE: 24,
  UNPAUSE: 25,
  /** AGENTLOGIN / AGENTLOGOFF written with queue NONE, stored in each queue of the agent's tenant (R15). */
  AGENTLOGIN_ALL: 26,
  AGENTLOGOFF_ALL: 27,
  /** The PBX's queues (re)started: written with queue NONE, never stored as a queue's line (R15). */
  QUEUESTART: 40,
  CONFIGRELOAD: 41,
} as const;

export type EventName = keyof typeof EV;

/** A call event other than ENTERQUEUE: it counts at its call's ENTERQUEUE time (R3). */
export const isCallEvent = (code: number): boolean => code > EV.ENTERQUEUE && code < EV.ADDMEMBER;
export const isMemberEvent = (code: number): boolean => code >= EV.ADDMEMBER && code < EV.QUEUESTART;
/** QUEUESTART, CONFIGRELOAD: a static member's membership counts from the latest one (R15). */
export const isPbxStart = (code: number): boolean => code === EV.QUEUESTART || code === EV.CONFIGRELOAD;
/**
 * A line that shows its agent is a member of the queue (R15): the membership events and the lines only a
 * member gets (CONNECT, the answered ends, RINGNOANSWER, RINGCANCELED).
 */
export const showsMembership = (code: number): boolean =>
  isMemberEvent(code) || (code >= EV.CONNECT && code <= EV.ATTENDEDTRANSFER) || code === EV.RINGNOANSWER || code === EV.RINGCANCELED;
/** An answered call's end line (R5 inboundAnswered): COMPLETEAGENT, COMPLETECALLER, BLINDTRANSFER, ATTENDEDTRANSFER. */
export const isAnswered = (code: number): boolean => code >= EV.COMPLETEAGENT && code <= EV.ATTENDEDTRANSFER;
/** A line with a wait time (R5 set W): the answered lines and the exits ABANDON, EXITWITHTIMEOUT, EXITWITHKEY, EXITEMPTY. */
export const hasWaitTime = (code: number): boolean => code >= EV.COMPLETEAGENT && code <= EV.EXITEMPTY;

/**
 * Per event: how many data fields Asterisk writes (fewer: the line is skipped), which of them must be
 * non-negative integers, and where the times of R4 are (1-based data positions).
 */
interface EventRule {
  readonly min: number;
  readonly ints: readonly number[];
  /** Hold time of an answered line, wait time of an exit. */
  readonly wait?: number;
  /** Call time of an answered line. */
  readonly talk?: number;
  /** Ring time in seconds (CONNECT). */
  readonly ringSeconds?: number;
  /** Ring time in milliseconds (RINGNOANSWER). */
  readonly ringMs?: number;
  /** The caller's position when it left, and when it entered (the exits). */
  readonly position?: number;
  readonly origPosition?: number;
}

/** Every event a log may name (the *_ALL codes are the importer's, never written by a PBX). */
const RULES: Readonly<Record<Exclude<EventName, 'AGENTLOGIN_ALL' | 'AGENTLOGOFF_ALL'>, EventRule>> = {
  ENTERQUEUE: { min: 2, ints: [] },
  // Asterisk 1.4 writes CONNECT without the ring time (R17): it then reads as 0.
  CONNECT: { min: 2, ints: [1], ringSeconds: 3 },
  COMPLETEAGENT: { min: 3, ints: [1, 2, 3], wait: 1, talk: 2 },
  COMPLETECALLER: { min: 3, ints: [1, 2, 3], wait: 1, talk: 2 },
  BLINDTRANSFER: { min: 5, ints: [3, 4, 5], wait: 3, talk: 4 },
  ATTENDEDTRANSFER: { min: 5, ints: [3, 4, 5], wait: 3, talk: 4 },
  ABANDON: { min: 3, ints: [1, 2, 3], wait: 3, position: 1, origPosition: 2 },
  // Asterisk 1.4 writes EXITWITHTIMEOUT with only the position, EXITWITHKEY with only key|position (R17):
  // their wait is then the time since the call's ENTERQUEUE (waitTime -1 here; the importer knows the call).
  EXITWITHTIMEOUT: { min: 1, ints: [1, 2, 3], wait: 3, position: 1, origPosition: 2 },
  EXITEMPTY: { min: 3, ints: [1, 2, 3], wait: 3, position: 1, origPosition: 2 },
  EXITWITHKEY: { min: 2, ints: [2, 3, 4], wait: 4, position: 2, origPosition: 3 },
  RINGNOANSWER: { min: 1, ints: [1], ringMs: 1 },
  ADDMEMBER: { min: 0, ints: [] },
  REMOVEMEMBER: { min: 0, ints: [] },
  AGENTLOGIN: { min: 0, ints: [] },
  AGENTLOGOFF: { min: 0, ints: [] },
  PAUSE: { min: 0, ints: [] },
  UNPAUSE: { min: 0, ints: [] },
  CALLBACKREQUEST: { min: 0, ints: [] },
  CALLBACKSUCCESS: { min: 0, ints: [] },
  CALLBACKFAILED: { min: 0, ints: [] },
  RINGCANCELED: { min: 0, ints: [] },
  QUEUESTART: { min: 0, ints: [] },
  CONFIGRELOAD: { min: 0, ints: [] },
};

/** Why a line was skipped; the import summary counts each. */
export const QUEUE_LOG_SKIPS = {
  blank: 'blank line',
  notRecord: 'not a queue_log record',
  unusedEvent: 'event not used by the reports',
  badData: 'missing or malformed data fields',
} as const;
export type QueueLogSkip = (typeof QUEUE_LOG_SKIPS)[keyof typeof QUEUE_LOG_SKIPS];

export interface QueueLogEvent {
  readonly time: number;
  readonly callid: string;
  readonly queueName: string;
  /** The agent field; "" for NONE or empty. */
  readonly agent: string;
  readonly code: number;
  /**
   * Seconds the caller waited (R4): hold time of an answered line, wait time of an exit; 0 for every other
   * event; -1 for an Asterisk 1.4 exit that does not say (the time since its ENTERQUEUE, R17).
   */
  readonly waitTime: number;
  /** Call time of an answered line (R4); 0 for every other event. */
  readonly talkTime: number;
  /** Ring time in milliseconds: CONNECT's seconds × 1000, RINGNOANSWER's milliseconds; 0 for every other event. */
  readonly ringMs: number;
  /** The reason of the pause the line opens: PAUSE's data1 ("" when absent), "" for ADDMEMBER PAUSED; null otherwise. */
  readonly pauseReason: string | null;
  /** ENTERQUEUE: the caller's number (data2); null for every other event. */
  readonly callerIdNum: string | null;
  /** An exit's position when the caller left and when it entered; null when the line does not give it (or another event). */
  readonly position: number | null;
  readonly origPosition: number | null;
  /** The time was a wall-clock datetime read in the PBX's zone (R16), not an epoch. */
  readonly wallClock: boolean;
}

type Rule = Required<EventRule> & { readonly name: string; readonly code: number };

/**
 * The rules by the length of their event name: the name is matched in place, without cutting it out of the
 * line. Every rule gets every field (0: none), so they all have one shape and reading them stays fast.
 */
const RULES_BY_LENGTH: Rule[][] = [];
for (const [name, r] of Object.entries(RULES)) {
  const rule: Rule = {
    name,
    code: EV[name as EventName],
    min: r.min,
    ints: r.ints,
    wait: r.wait ?? 0,
    talk: r.talk ?? 0,
    ringSeconds: r.ringSeconds ?? 0,
    ringMs: r.ringMs ?? 0,
    position: r.position ?? 0,
    origPosition: r.origPosition ?? 0,
  };
  (RULES_BY_LENGTH[name.length] ??= []).push(rule);
}

/** Asterisk 1.4–11 names read as today's events (reporting.md R17). */
const member = { min: 0, ints: [], wait: 0, talk: 0, ringSeconds: 0, ringMs: 0, position: 0, origPosition: 0 };
const OLD_NAMES: readonly Rule[] = [
  { ...member, name: 'TRANSFER', code: EV.BLINDTRANSFER, min: 4, ints: [3, 4], wait: 3, talk: 4 },
  { ...member, name: 'AGENTCALLBACKLOGIN', code: EV.AGENTLOGIN },
  { ...member, name: 'AGENTCALLBACKLOGOFF', code: EV.AGENTLOGOFF },
];
for (const rule of OLD_NAMES) (RULES_BY_LENGTH[rule.name.length] ??= []).push(rule);

/** Realtime exports write the epoch with a fraction (R16): the whole seconds, the fraction dropped; -1 when not an epoch. */
function epochAt(line: string, end: number): number {
  const whole = digitsAt(line, 0, end);
  if (whole >= 0) return whole;
  const dot = line.indexOf('.');
  return dot > 0 && dot < end - 1 && digitsAt(line, dot + 1, end) >= 0 ? digitsAt(line, 0, dot) : -1;
}

/** A UTF-8 byte-order mark, or NUL bytes a crash left, before a line are not part of it (R17). */
function dropLeadingJunk(line: string): string {
  let i = 0;
  while (i < line.length && (line.charCodeAt(i) === 0 || line.charCodeAt(i) === 0xfeff)) i++;
  return i === 0 ? line : line.slice(i);
}

function ruleAt(line: string, from: number, to: number): Rule | undefined {
  const candidates = RULES_BY_LENGTH[to - from];
  if (candidates) for (const rule of candidates) if (line.startsWith(rule.name, from)) return rule;
  return undefined;
}

/**
 * Data fields read in place, counted from `bar`, the "|" before data1 (-1: the line has none). Nothing is
 * kept between calls; a field is found again for each read, which on lines this short costs less than
 * keeping its offsets.
 */
function dataStart(line: string, bar: number, i: number): number {
  for (let k = 1; k < i && bar >= 0; k++) bar = line.indexOf('|', bar + 1);
  return bar < 0 ? -1 : bar + 1;
}

function dataEnd(line: string, start: number): number {
  const bar = line.indexOf('|', start);
  return bar < 0 ? line.length : bar;
}

/** Data field i (1-based) as a non-negative integer; -1 when it is absent or not one. */
function dataInt(line: string, bar: number, i: number): number {
  const start = dataStart(line, bar, i);
  return start < 0 ? -1 : digitsAt(line, start, dataEnd(line, start));
}

/** Data field i (1-based) as a position; null when the line does not give it. */
function positionAt(line: string, bar: number, i: number): number | null {
  const n = dataInt(line, bar, i);
  return n < 0 ? null : n;
}

/** Data field i (1-based) as text; "" when it is absent. */
function dataText(line: string, bar: number, i: number): string {
  const start = dataStart(line, bar, i);
  return start < 0 ? '' : line.slice(start, dataEnd(line, start));
}

/** Whether data field i (1-based) is exactly `word`. */
function dataIs(line: string, bar: number, i: number, word: string): boolean {
  const start = dataStart(line, bar, i);
  return start >= 0 && dataEnd(line, start) - start === word.length && line.startsWith(word, start);
}

/**
 * A parsed event, or the reason the line is skipped (reporting.md R1). Written for speed (it runs for
 * every line of files of millions): fields are found with indexOf and read in place; only the strings
 * kept (call id, queue and agent names, a pause reason or caller number) are cut out of the line.
 */
export function parseQueueLogLine(raw: string, zone: PbxZone = UTC_ZONE): QueueLogEvent | QueueLogSkip {
  const c0 = raw.charCodeAt(0);
  const line = c0 === 0 || c0 === 0xfeff ? dropLeadingJunk(raw) : raw;
  if ((line.length === 0 || line.charCodeAt(0) <= 32) && line.trim() === '') return QUEUE_LOG_SKIPS.blank;
  const p1 = line.indexOf('|');
  const p2 = p1 < 0 ? -1 : line.indexOf('|', p1 + 1);
  const p3 = p2 < 0 ? -1 : line.indexOf('|', p2 + 1);
  const p4 = p3 < 0 ? -1 : line.indexOf('|', p3 + 1);
  let time = p4 < 0 ? -1 : epochAt(line, p1);
  let wallClock = false;
  if (time < 0 && p4 >= 0) {
    // Realtime storage and its exports hold `YYYY-MM-DD HH:MM:SS[.ffffff]`, the PBX's local time (R16).
    const wall = parseWallTime(line.slice(0, p1));
    if (wall !== null) {
      time = zone.instantOf(wall);
      wallClock = true;
    }
  }
  if (time < 0) return QUEUE_LOG_SKIPS.notRecord;
  const p5 = line.indexOf('|', p4 + 1);
  const rule = ruleAt(line, p4 + 1, p5 < 0 ? line.length : p5);
  if (!rule) return QUEUE_LOG_SKIPS.unusedEvent;
  if (rule.min > 0 && dataStart(line, p5, rule.min) < 0) return QUEUE_LOG_SKIPS.badData;
  // A field the line has (min says which it must have) must be a number where the rule wants one.
  for (const i of rule.ints) if (dataStart(line, p5, i) >= 0 && dataInt(line, p5, i) < 0) return QUEUE_LOG_SKIPS.badData;
  if (rule.ringSeconds && dataStart(line, p5, rule.ringSeconds) >= 0 && dataInt(line, p5, rule.ringSeconds) < 0)
    return QUEUE_LOG_SKIPS.badData;
  const code = rule.code;
  return {
    time,
    callid: line.slice(p1 + 1, p2),
    queueName: line.slice(p2 + 1, p3),
    agent: p4 - p3 === 5 && line.startsWith('NONE', p3 + 1) ? '' : line.slice(p3 + 1, p4),
    code,
    waitTime: rule.wait ? dataInt(line, p5, rule.wait) : 0,
    talkTime: rule.talk ? dataInt(line, p5, rule.talk) : 0,
    ringMs: rule.ringSeconds ? Math.max(0, dataInt(line, p5, rule.ringSeconds)) * 1000 : rule.ringMs ? dataInt(line, p5, rule.ringMs) : 0,
    pauseReason: code === EV.PAUSE ? dataText(line, p5, 1) : code === EV.ADDMEMBER && dataIs(line, p5, 1, 'PAUSED') ? '' : null,
    callerIdNum: code === EV.ENTERQUEUE ? dataText(line, p5, 2) : null,
    position: rule.position ? positionAt(line, p5, rule.position) : null,
    origPosition: rule.origPosition ? positionAt(line, p5, rule.origPosition) : null,
    wallClock,
  };
}

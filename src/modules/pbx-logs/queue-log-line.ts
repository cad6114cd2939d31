/**
 * One line of an Asterisk queue_log, `epoch|callid|queuename|agent|event|data1|…`, read by the rules of
 * reporting.md R1 and R4. Pure: no database, and no state beyond scratch offsets reused within one call.
 */

import { digitsAt } from './digits';

/** Event codes as stored. Answered = 3..6, events with a wait time = 3..10, membership events ≥ 20. */
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
  ADDMEMBER: 20,
  REMOVEMEMBER: 21,
  AGENTLOGIN: 22,
  AGENTLOGOFF: 23,
  PAUSE: 24,
  UNPAUSE: 25,
} as const;

export type EventName = keyof typeof EV;

export const isCallEvent = (code: number): boolean => code > EV.ENTERQUEUE && code < EV.ADDMEMBER;
export const isMemberEvent = (code: number): boolean => code >= EV.ADDMEMBER;

/**
 * Per event: how many data fields Asterisk writes (fewer: the line is skipped), which of them must be
 * non-negative integers, and which become the stored numbers `a` and `b` (1-based data positions):
 * answered lines a = hold time, b = call time; exits a = wait time; CONNECT a = ring seconds;
 * RINGNOANSWER a = ring milliseconds.
 */
interface EventRule {
  readonly min: number;
  readonly ints: readonly number[];
  readonly a?: number;
  readonly b?: number;
}

const RULES: Readonly<Record<EventName, EventRule>> = {
  ENTERQUEUE: { min: 2, ints: [] },
  CONNECT: { min: 3, ints: [1, 3], a: 3 },
  COMPLETEAGENT: { min: 3, ints: [1, 2, 3], a: 1, b: 2 },
  COMPLETECALLER: { min: 3, ints: [1, 2, 3], a: 1, b: 2 },
  BLINDTRANSFER: { min: 5, ints: [3, 4, 5], a: 3, b: 4 },
  ATTENDEDTRANSFER: { min: 5, ints: [3, 4, 5], a: 3, b: 4 },
  ABANDON: { min: 3, ints: [1, 2, 3], a: 3 },
  EXITWITHTIMEOUT: { min: 3, ints: [1, 2, 3], a: 3 },
  EXITEMPTY: { min: 3, ints: [1, 2, 3], a: 3 },
  EXITWITHKEY: { min: 4, ints: [2, 3, 4], a: 4 },
  RINGNOANSWER: { min: 1, ints: [1], a: 1 },
  ADDMEMBER: { min: 0, ints: [] },
  REMOVEMEMBER: { min: 0, ints: [] },
  AGENTLOGIN: { min: 0, ints: [] },
  AGENTLOGOFF: { min: 0, ints: [] },
  PAUSE: { min: 0, ints: [] },
  UNPAUSE: { min: 0, ints: [] },
  CALLBACKREQUEST: { min: 0, ints: [] },
  CALLBACKSUCCESS: { min: 0, ints: [] },
  CALLBACKFAILED: { min: 0, ints: [] },
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
  readonly a: number;
  readonly b: number;
  /** PAUSE: its reason ("" when absent); null for every other event. */
  readonly reason: string | null;
  /** ENTERQUEUE: the caller's number (data2); null for every other event. */
  readonly callerIdNum: string | null;
}

type Rule = EventRule & { readonly name: string; readonly code: number };

/** The rules by the length of their event name: the name is matched in place, without cutting it out of the line. */
const RULES_BY_LENGTH: Rule[][] = [];
for (const [name, rule] of Object.entries(RULES)) (RULES_BY_LENGTH[name.length] ??= []).push({ ...rule, name, code: EV[name as EventName] });

function ruleAt(line: string, from: number, to: number): Rule | undefined {
  const candidates = RULES_BY_LENGTH[to - from];
  if (candidates) for (const rule of candidates) if (line.startsWith(rule.name, from)) return rule;
  return undefined;
}

/** Start offsets of the data fields of the line being parsed (each ends at the next start - 1, the last at the line's end). */
const starts = new Int32Array(64);
let fieldCount = 0;

/** Where data field i (1-based, i <= fieldCount) of `line` ends. */
const fieldEnd = (line: string, i: number): number => (i < fieldCount ? (starts[i] as number) - 1 : line.length);
const fieldInt = (line: string, i: number): number => digitsAt(line, starts[i - 1] as number, fieldEnd(line, i));
const fieldText = (line: string, i: number): string => (i <= fieldCount ? line.slice(starts[i - 1], fieldEnd(line, i)) : '');

/**
 * A parsed event, or the reason the line is skipped (reporting.md R1). Written for speed (it runs for
 * every line of files of millions): fields are found with indexOf and read in place; only the strings
 * kept (call id, queue and agent names, a pause reason or caller number) are cut out of the line.
 */
export function parseQueueLogLine(line: string): QueueLogEvent | QueueLogSkip {
  if ((line.length === 0 || line.charCodeAt(0) <= 32) && line.trim() === '') return QUEUE_LOG_SKIPS.blank;
  const p1 = line.indexOf('|');
  const p2 = p1 < 0 ? -1 : line.indexOf('|', p1 + 1);
  const p3 = p2 < 0 ? -1 : line.indexOf('|', p2 + 1);
  const p4 = p3 < 0 ? -1 : line.indexOf('|', p3 + 1);
  const time = p4 < 0 ? -1 : digitsAt(line, 0, p1);
  if (time < 0) return QUEUE_LOG_SKIPS.notRecord;
  const p5 = line.indexOf('|', p4 + 1);
  const rule = ruleAt(line, p4 + 1, p5 < 0 ? line.length : p5);
  if (!rule) return QUEUE_LOG_SKIPS.unusedEvent;
  fieldCount = 0; // fields beyond the 64th are never read
  if (p5 >= 0) {
    starts[fieldCount++] = p5 + 1;
    for (let p = line.indexOf('|', p5 + 1); p >= 0 && fieldCount < starts.length; p = line.indexOf('|', p + 1)) starts[fieldCount++] = p + 1;
  }
  if (fieldCount < rule.min) return QUEUE_LOG_SKIPS.badData;
  const ints = rule.ints;
  for (let k = 0; k < ints.length; k++) {
    const i = ints[k] as number;
    if (i > fieldCount || fieldInt(line, i) < 0) return QUEUE_LOG_SKIPS.badData;
  }
  const code = rule.code;
  const agent = p4 - p3 === 5 && line.startsWith('NONE', p3 + 1) ? '' : line.slice(p3 + 1, p4);
  return {
    time,
    callid: line.slice(p1 + 1, p2),
    queueName: line.slice(p2 + 1, p3),
    agent,
    code,
    a: code === EV.ADDMEMBER ? (fieldCount >= 1 && fieldEnd(line, 1) - (starts[0] as number) === 6 && line.startsWith('PAUSED', starts[0]) ? 1 : 0) : rule.a ? fieldInt(line, rule.a) : 0,
    b: rule.b ? fieldInt(line, rule.b) : 0,
    reason: code === EV.PAUSE ? fieldText(line, 1) : null,
    callerIdNum: code === EV.ENTERQUEUE ? fieldText(line, 2) : null,
  };
}

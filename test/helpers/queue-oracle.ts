import { parseQueueLogLine, EV } from '../../src/modules/pbx-logs/queue-log-line';

/**
 * An independent reading of reporting.md R3 and R5 for tests: the call statistics of the lines of one
 * queue whose R3 time lies in [from, to), computed straight from the log text in file order.
 */
export function oracleStats(lines: readonly string[], queueName: string, from: number, to: number) {
  const entered = new Map<string, number>();
  const s = {
    totalInbound: 0,
    inboundAnswered: 0,
    talkTime: 0,
    answeredUnder30: 0,
    waitTime: 0,
    waits: [] as number[],
    ringTime: 0,
    abandons: 0,
    abandonsUnder10: 0,
    exitTimeout: 0,
    exitKeypress: 0,
    ringNoAnswer: 0,
    ringMs: 0,
    totalCallbacks: 0,
    successfulCallbacks: 0,
    failedCallbacks: 0,
  };
  for (const line of lines) {
    const e = parseQueueLogLine(line);
    if (typeof e === 'string' || e.queueName !== queueName || e.code >= EV.ADDMEMBER) continue;
    if (e.code === EV.ENTERQUEUE) entered.set(e.callid, e.time);
    const at = e.code === EV.ENTERQUEUE ? e.time : (entered.get(e.callid) ?? e.time);
    if (at < from || at >= to) continue;
    const answered = e.code >= EV.COMPLETEAGENT && e.code <= EV.ATTENDEDTRANSFER;
    if (e.code === EV.ENTERQUEUE) s.totalInbound++;
    if (e.code === EV.CONNECT) s.ringTime += e.ringMs / 1000;
    if (answered) {
      s.inboundAnswered++;
      s.talkTime += e.talkTime;
      if (e.waitTime <= 30) s.answeredUnder30++;
    }
    if (e.code >= EV.COMPLETEAGENT && e.code <= EV.EXITEMPTY) s.waits.push(e.waitTime);
    if (e.code === EV.ABANDON) (s.abandons++, e.waitTime < 10 && s.abandonsUnder10++);
    if (e.code === EV.EXITWITHTIMEOUT) s.exitTimeout++;
    if (e.code === EV.EXITWITHKEY) s.exitKeypress++;
    if (e.code === EV.RINGNOANSWER) (s.ringNoAnswer++, (s.ringMs += e.ringMs));
    if (e.code === EV.CALLBACKREQUEST) s.totalCallbacks++;
    if (e.code === EV.CALLBACKSUCCESS) s.successfulCallbacks++;
    if (e.code === EV.CALLBACKFAILED) s.failedCallbacks++;
  }
  const { waits, ringMs, ...rest } = s;
  return {
    ...rest,
    waitTime: waits.reduce((a, b) => a + b, 0),
    minWaitTime: waits.length ? Math.min(...waits) : 0,
    maxWaitTime: waits.length ? Math.max(...waits) : 0,
    noAnswerRingTime: ringMs / 1000,
  };
}

/**
 * An independent reading of reporting.md R19 for tests: a queue's service-level counts over [from, to) at the
 * threshold `t`, straight from the log text (calls counted at their ENTERQUEUE, R3).
 */
export function oracleServiceLevel(lines: readonly string[], queueName: string, from: number, to: number, t: number, short = 10) {
  const entered = new Map<string, number>();
  const s = { offered: 0, answered: 0, abandoned: 0, shortAbandons: 0, answeredWithin: 0, abandonedWithin: 0 };
  for (const line of lines) {
    const e = parseQueueLogLine(line);
    if (typeof e === 'string' || e.queueName.toLowerCase() !== queueName.toLowerCase() || e.code >= EV.ADDMEMBER) continue;
    if (e.code === EV.ENTERQUEUE) entered.set(e.callid, e.time);
    const at = e.code === EV.ENTERQUEUE ? e.time : (entered.get(e.callid) ?? e.time);
    if (at < from || at >= to) continue;
    if (e.code === EV.ENTERQUEUE) s.offered++;
    if (e.code >= EV.COMPLETEAGENT && e.code <= EV.ATTENDEDTRANSFER) {
      s.answered++;
      if (e.waitTime <= t) s.answeredWithin++;
    }
    if (e.code === EV.ABANDON || e.code === EV.EXITWITHTIMEOUT || e.code === EV.EXITEMPTY) {
      s.abandoned++;
      if (e.waitTime <= t) s.abandonedWithin++;
    }
    if (e.code === EV.ABANDON && e.waitTime < short) s.shortAbandons++;
  }
  return s;
}

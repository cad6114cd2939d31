import { subtract, union, type RowSpans, type Interval } from './agent-time';
import type { AgentCall, AgentCallSums, StoredInterval } from './agents.repository';

/**
 * Each agent's figures by report row (reporting.md R21), gathered from the repository's pieces: per (queue,
 * agent) pair its call lines, outbound calls, login and pause time; per agent the union of its logins and of its
 * available time over the requested queues, its outbound calls and its talk outside queues. Rows are indexes
 * into the frame's rows.
 */
export interface CallFigures {
  answered: number;
  agentHangups: number;
  callerHangups: number;
  talk: number;
  hold: number;
  rna: number;
  rnaMs: number;
  ringMs: number;
}

export interface Outbound {
  total: number;
  answered: number;
  talk: number;
}

export interface PairDays {
  readonly queueId: number;
  readonly agent: number;
  /** Call figures by row (only rows with a line). */
  readonly calls: Map<number, CallFigures>;
  readonly outbound: Map<number, Outbound>;
  readonly login: Float64Array;
  /** Paused seconds by reason, then row. */
  readonly pauses: Map<string, Float64Array>;
}

export interface AgentDays {
  readonly agent: number;
  readonly login: Float64Array;
  readonly available: Float64Array;
  readonly outbound: Map<number, Outbound>;
  readonly nonQueueTalk: Map<number, number>;
}

export const emptyCalls = (): CallFigures => ({
  answered: 0,
  agentHangups: 0,
  callerHangups: 0,
  talk: 0,
  hold: 0,
  rna: 0,
  rnaMs: 0,
  ringMs: 0,
});

export function addCalls(into: CallFigures, c: CallFigures): void {
  into.answered += c.answered;
  into.agentHangups += c.agentHangups;
  into.callerHangups += c.callerHangups;
  into.talk += c.talk;
  into.hold += c.hold;
  into.rna += c.rna;
  into.rnaMs += c.rnaMs;
  into.ringMs += c.ringMs;
}

export function addOutbound(into: Map<number, Outbound>, row: number, o: Outbound): void {
  const have = into.get(row);
  if (!have) into.set(row, { total: o.total, answered: o.answered, talk: o.talk });
  else {
    have.total += o.total;
    have.answered += o.answered;
    have.talk += o.talk;
  }
}

export interface Pieces {
  readonly rowCount: number;
  readonly spans: RowSpans;
  /** The end of an interval still open: the earlier of E and now. */
  readonly openEnd: number;
  /** Per queue span (frameSpans order): its queue and its row. */
  readonly queueSpan: readonly { queueId: number; row: number }[];
}

const key = (queueId: number, agent: number) => `${queueId}|${agent}`;

export function pairDays(
  p: Pieces,
  calls: readonly AgentCallSums[],
  outbound: readonly MemberOutbound[],
  sessions: readonly StoredInterval[],
  pauses: readonly StoredInterval[],
): Map<string, PairDays> {
  const pairs = new Map<string, PairDays>();
  const pair = (queueId: number, agent: number): PairDays => {
    let found = pairs.get(key(queueId, agent));
    if (!found)
      pairs.set(
        key(queueId, agent),
        (found = { queueId, agent, calls: new Map(), outbound: new Map(), login: new Float64Array(p.rowCount), pauses: new Map() }),
      );
    return found;
  };
  for (const c of calls) {
    const at = p.queueSpan[c.span] as { queueId: number; row: number };
    const days = pair(at.queueId, c.agent);
    let figures = days.calls.get(at.row);
    if (!figures) days.calls.set(at.row, (figures = emptyCalls()));
    addCalls(figures, c);
  }
  for (const o of outbound) addOutbound(pair(o.queueId, o.agent).outbound, o.row, o);
  for (const s of sessions) p.spans.add(pair(s.queueId, s.agent).login, s.start, s.end ?? p.openEnd);
  for (const s of pauses) {
    const days = pair(s.queueId, s.agent);
    let byRow = days.pauses.get(s.reason);
    if (!byRow) days.pauses.set(s.reason, (byRow = new Float64Array(p.rowCount)));
    p.spans.add(byRow, s.start, s.end ?? p.openEnd);
  }
  return pairs;
}

/** R9 per queue, agent and row: the outbound calls an agent placed while a member of the queue, by the row of their start. */
export interface MemberOutbound extends Outbound {
  readonly queueId: number;
  readonly agent: number;
  readonly row: number;
}

/**
 * Each session's agent's calls started within it (its open end: none, as reporting.md R9 reads an open session),
 * added up by queue, agent and the row of the call's start. `calls` come ordered by agent, then start
 * (agents.repository.ts agentCalls); a (queue, agent)'s sessions never overlap, so a call counts once per queue.
 */
export function memberOutbound(p: Pieces, sessions: readonly StoredInterval[], calls: readonly AgentCall[]): MemberOutbound[] {
  const byAgent = new Map<number, { first: number; end: number }>();
  calls.forEach((c, i) => {
    const range = byAgent.get(c.agent);
    if (range) range.end = i + 1;
    else byAgent.set(c.agent, { first: i, end: i + 1 });
  });
  const out = new Map<string, MemberOutbound>();
  for (const s of sessions) {
    const range = byAgent.get(s.agent);
    if (!range) continue;
    let lo = range.first;
    let hi = range.end;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((calls[mid] as AgentCall).at < s.start) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < range.end; k++) {
      const c = calls[k] as AgentCall;
      if (s.end !== null && c.at >= s.end) break;
      const row = p.spans.rowAt(c.at);
      if (row < 0) continue;
      const k2 = `${s.queueId}|${s.agent}|${row}`;
      let sums = out.get(k2);
      if (!sums) out.set(k2, (sums = { queueId: s.queueId, agent: s.agent, row, total: 0, answered: 0, talk: 0 }));
      sums.total += 1;
      if (c.answered) {
        sums.answered += 1;
        sums.talk += c.billsec;
      }
    }
  }
  return [...out.values()];
}

/** Per agent: logged in to at least one of the queues, and available (a member, not paused) in at least one. */
export function agentDays(
  p: Pieces,
  sessions: readonly StoredInterval[],
  pauses: readonly StoredInterval[],
  placed: readonly AgentCall[],
  otherTalk: readonly { agent: number; at: number; billsec: number }[],
): Map<number, AgentDays> {
  const agents = new Map<number, AgentDays>();
  const agent = (id: number): AgentDays => {
    let found = agents.get(id);
    if (!found)
      agents.set(
        id,
        (found = {
          agent: id,
          login: new Float64Array(p.rowCount),
          available: new Float64Array(p.rowCount),
          outbound: new Map(),
          nonQueueTalk: new Map(),
        }),
      );
    return found;
  };
  const resolved = (s: StoredInterval): Interval => ({ start: s.start, end: s.end ?? p.openEnd });
  const logins = new Map<number, Interval[]>();
  const available = new Map<number, Interval[]>();
  const pausesOf = new Map<string, Interval[]>();
  for (const s of pauses) pushTo(pausesOf, key(s.queueId, s.agent), resolved(s));
  const sessionsOf = new Map<string, StoredInterval[]>();
  for (const s of sessions) pushTo(sessionsOf, key(s.queueId, s.agent), s);
  for (const [k, list] of sessionsOf) {
    const id = (list[0] as StoredInterval).agent;
    const own = list.map(resolved);
    for (const i of own) pushTo(logins, id, i);
    for (const i of subtract(own, pausesOf.get(k) ?? [])) pushTo(available, id, i);
  }
  for (const [id, list] of logins) for (const i of union(list)) p.spans.add(agent(id).login, i.start, i.end);
  for (const [id, list] of available) for (const i of union(list)) p.spans.add(agent(id).available, i.start, i.end);
  for (const c of placed) {
    const row = p.spans.rowAt(c.at);
    if (row >= 0) addOutbound(agent(c.agent).outbound, row, { total: 1, answered: c.answered ? 1 : 0, talk: c.answered ? c.billsec : 0 });
  }
  for (const t of otherTalk) {
    const row = p.spans.rowAt(t.at);
    if (row < 0) continue;
    const days = agent(t.agent);
    days.nonQueueTalk.set(row, (days.nonQueueTalk.get(row) ?? 0) + t.billsec);
  }
  return agents;
}

function pushTo<K, V>(map: Map<K, V[]>, k: K, v: V): void {
  const list = map.get(k);
  if (list) list.push(v);
  else map.set(k, [v]);
}

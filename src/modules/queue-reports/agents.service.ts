import type { Caller } from '../../access/caller';
import type { TenantScope } from '../../access/scope';
import type { Clock } from '../../clock';
import type { Db } from '../../db/database';
import type { SchemaTypes } from '../../validation/schema-types';
import {
  addCalls,
  agentDays,
  emptyCalls,
  memberOutbound,
  pairDays,
  type CallFigures,
  type Outbound,
  type PairDays,
  type Pieces,
} from './agent-days';
import { RowSpans } from './agent-time';
import { agentCallSums, agentCalls, agentsOfTenant, intervalsOf, nonQueueTalk } from './agents.repository';
import { codePointOrder } from './queue-reports';
import { frameSpans, percent, reportFrames, type TenantFrame } from './report-frame';

export type AgentsBody = SchemaTypes['queue-agents-request'];
export type AgentsResponse = SchemaTypes['queue-agents'];
type AgentRow = AgentsResponse['results'][number];

export interface AgentsDeps {
  readonly db: Db;
  readonly clock: Clock;
}

/**
 * POST /v2/reporting/queues/agents (reporting.md R21): each agent's day per queue and period, and over all the
 * requested queues of its tenant (queueId null): its answered calls, missed rings, login, pauses and occupancy,
 * outbound calls. Login time over several queues is a union, not a sum: an hour logged in to two queues is an hour.
 */
export async function agentsReport(deps: AgentsDeps, caller: Caller, body: AgentsBody): Promise<AgentsResponse> {
  const now = Math.floor(deps.clock.now() / 1000);
  const frames = await reportFrames(deps.db, caller, body, body.distribution ?? 'totals');
  // One tenant (the usual case): its rows come in the answer's order already.
  if (frames.length === 1)
    return { queueIds: body.queueId, results: (await frameRows(deps.db, caller.scope, frames[0] as TenantFrame, now)).map((r) => r.out) };
  const sorted: { row: number; tenantId: number; out: AgentRow }[] = [];
  for (const frame of frames)
    for (const r of await frameRows(deps.db, caller.scope, frame, now)) sorted.push({ row: r.row, out: r.out, tenantId: frame.tenantId });
  // Each peer name's place in code point order, found once: not two UTF-8 copies at each of the sort's comparisons.
  const peers = [...new Set(sorted.map((s) => s.out.peerName))].sort(codePointOrder);
  const rank = new Map(peers.map((p, i) => [p, i]));
  sorted.sort(
    (a, b) =>
      a.row - b.row ||
      (rank.get(a.out.peerName) as number) - (rank.get(b.out.peerName) as number) ||
      a.tenantId - b.tenantId ||
      (a.out.queueId ?? Infinity) - (b.out.queueId ?? Infinity),
  );
  return { queueIds: body.queueId, results: sorted.map((s) => s.out) };
}

/** One frame's rows in R21's order: by period, then peer name (code point order), then queue, the all-queues row last. */
async function frameRows(db: Db, scope: TenantScope, frame: TenantFrame, now: number): Promise<{ row: number; out: AgentRow }[]> {
  const spans = frameSpans(frame);
  const queueSpan = frame.queues.flatMap((q) => frame.rows.flatMap((r, row) => r.spans.map(() => ({ queueId: q.id, row }))));
  const pieces: Pieces = {
    rowCount: frame.rows.length,
    spans: new RowSpans(frame.rows),
    openEnd: Math.min(frame.range.end, now),
    queueSpan,
  };
  const ids = frame.queues.map((q) => q.id);
  const { start: S, end: E } = frame.range;
  const [calls, sessions, pauses] = await Promise.all([
    agentCallSums(db, scope, spans),
    intervalsOf(db, scope, 'agent_sessions', ids, S, E),
    intervalsOf(db, scope, 'agent_pauses', ids, S, E),
  ]);
  // Every R9 outbound call of the report's agents, read once: placed by the sessions for the queue rows (a member's
  // calls) and by their start for the all-queues rows (every call of the agent).
  const ofReport = [...new Set([...calls.map((c) => c.agent), ...sessions.map((s) => s.agent), ...pauses.map((s) => s.agent)])];
  const callers = ofReport.filter((a) => a !== 0); // 0: a line without an agent, which no CDR row names
  const placed = await agentCalls(db, scope, frame.tenantId, callers, S, E);
  const pairs = pairDays(pieces, calls, memberOutbound(pieces, sessions, placed), sessions, pauses);
  const [otherTalk, named] = await Promise.all([
    nonQueueTalk(db, scope, frame.tenantId, callers, S, E),
    agentsOfTenant(db, scope, frame.tenantId, ofReport),
  ]);
  const agents = agentDays(pieces, sessions, pauses, placed, otherTalk);
  const names = new Map(named.map((n) => [n.agent, n]));
  const queueName = new Map(frame.queues.map((q) => [q.id, q.name]));
  // Per agent (by peer name) its queues (by id) with their pause reasons in the rows' order, sorted once, so that
  // the rows are written in the answer's order instead of sorted afterwards.
  const byAgent = new Map<number, { who: Who; queues: { pair: PairDays; queue: { id: number; name: string }; reasons: Reason[] }[] }>();
  for (const pair of pairs.values()) {
    let agent = byAgent.get(pair.agent);
    if (!agent) byAgent.set(pair.agent, (agent = { who: whoOf(names.get(pair.agent)), queues: [] }));
    const reasons = [...pair.pauses]
      .map(([reason, byRow]) => ({ label: reason === '' ? 'Paused' : reason, byRow }))
      .sort((a, b) => codePointOrder(a.label, b.label));
    agent.queues.push({ pair, queue: { id: pair.queueId, name: queueName.get(pair.queueId) as string }, reasons });
  }
  const ordered = [...byAgent].sort(([, a], [, b]) => codePointOrder(a.who.peerName, b.who.peerName));
  for (const [, a] of ordered) a.queues.sort((x, y) => x.queue.id - y.queue.id);
  const out: { row: number; out: AgentRow }[] = [];
  for (let row = 0; row < frame.rows.length; row++)
    for (const [agent, { who, queues }] of ordered) {
      let all: CallFigures | null = null; // its queues' calls added up, once it has a row in one of them
      for (const { pair, queue, reasons } of queues) {
        const calls = pair.calls.get(row);
        const login = pair.login[row] as number;
        if (!calls && login <= 0) continue; // no line and no membership in this period: no row (R21)
        const pauseTimes: AgentRow['pauseTimes'] = [];
        let pausedTime = 0;
        for (const r of reasons) {
          const time = r.byRow[row] as number;
          if (time <= 0) continue;
          pauseTimes.push({ offDutyReason: r.label, offDutyTime: time });
          pausedTime += time;
        }
        const figures = calls ?? emptyCalls();
        out.push({
          row,
          out: rowOf(frame, row, who, queue, figures, {
            login,
            available: login - pausedTime,
            pauseTimes,
            outbound: pair.outbound.get(row),
            nonQueueTalk: 0,
          }),
        });
        addCalls((all ??= emptyCalls()), figures);
      }
      if (all === null) continue;
      const days = agents.get(agent);
      out.push({
        row,
        out: rowOf(frame, row, who, null, all, {
          login: days?.login[row] ?? 0,
          available: days?.available[row] ?? 0,
          pauseTimes: [],
          outbound: days?.outbound.get(row),
          nonQueueTalk: days?.nonQueueTalk.get(row) ?? 0,
        }),
      });
    }
  return out;
}

interface Reason {
  /** offDutyReason: the log's reason, "Paused" for none. */
  readonly label: string;
  readonly byRow: Float64Array;
}

interface Who {
  extId: number | null;
  extNum: number | null;
  name: string;
  peerName: string;
}

const whoOf = (n: { peer: string; extId: number | null; extNum: number | null; name: string } | undefined): Who => ({
  extId: n?.extId ?? null,
  extNum: n?.extNum ?? null,
  name: n?.name ?? '',
  peerName: n?.peer ?? '',
});

/** Seconds / count to the nearest second, halves up; null without a count. */
const average = (total: number, count: number) => (count > 0 ? Math.floor((2 * total + count) / (2 * count)) : null);

function rowOf(
  frame: TenantFrame,
  row: number,
  who: Who,
  queue: { id: number; name: string } | null,
  c: CallFigures,
  t: { login: number; available: number; pauseTimes: AgentRow['pauseTimes']; outbound: Outbound | undefined; nonQueueTalk: number },
): AgentRow {
  const r = frame.rows[row] as TenantFrame['rows'][number];
  // The agent's fields written out: spread first into this literal of 26 more fields, V8 made each row ~60 µs (a
  // month of hourly rows for one queue spent 0.5 s here).
  return {
    extId: who.extId,
    extNum: who.extNum,
    name: who.name,
    peerName: who.peerName,
    queueId: queue?.id ?? null,
    queueName: queue?.name ?? null,
    date: r.date,
    start: frame.starts[row] ?? null,
    distribution: frame.distribution,
    answered: c.answered,
    agentHangups: c.agentHangups,
    callerHangups: c.callerHangups,
    transfers: c.answered - c.agentHangups - c.callerHangups,
    talkTime: c.talk,
    holdTime: c.hold,
    avgTalkTime: average(c.talk, c.answered),
    avgHoldTime: average(c.hold, c.answered),
    ringNoAnswer: c.rna,
    ringNoAnswerTime: c.rnaMs / 1000,
    ringTime: c.ringMs / 1000,
    loginTime: t.login,
    availableTime: t.available,
    pausedTime: t.login - t.available,
    pauseTimes: t.pauseTimes,
    occupancy: percent(c.talk, t.available),
    outbound: t.outbound?.answered ?? 0,
    totalOutbound: t.outbound?.total ?? 0,
    outboundTalkTime: t.outbound?.talk ?? 0,
    nonQueueTalkTime: t.nonQueueTalk,
  };
}

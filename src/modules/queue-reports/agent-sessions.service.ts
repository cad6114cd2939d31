import type { Caller } from '../../access/caller';
import type { Clock } from '../../clock';
import type { Db } from '../../db/database';
import type { SchemaTypes } from '../../validation/schema-types';
import { isoInZoneOver } from '../../time/zone';
import { agentsOfTenant, intervalsOf, type StoredInterval } from './agents.repository';
import { codePointOrder } from './queue-reports';
import { reportFrames, type TenantFrame } from './report-frame';

export type AgentSessionsBody = SchemaTypes['queue-agent-sessions-request'];
export type AgentSessions = SchemaTypes['queue-agent-sessions'];
type PairSessions = AgentSessions[number];

export interface AgentSessionsDeps {
  readonly db: Db;
  readonly clock: Clock;
}

/**
 * POST /v2/reporting/queues/agent-sessions (reporting.md R23): per agent and queue, the membership and pause
 * intervals of R10/R15 clipped to [S, E) and to now, for a timeline. An interval still open now in a range that
 * reaches past now has no end and counts its seconds to now. Their seconds add up to the agents report's
 * loginTime and pausedTime of the queue.
 */
export async function agentSessionsReport(deps: AgentSessionsDeps, caller: Caller, body: AgentSessionsBody): Promise<AgentSessions> {
  const now = Math.floor(deps.clock.now() / 1000);
  const out: { tenantId: number; pair: PairSessions }[] = [];
  for (const frame of await reportFrames(deps.db, caller, body, 'totals'))
    for (const pair of await framePairs(deps.db, caller, frame, now)) out.push({ tenantId: frame.tenantId, pair });
  out.sort((a, b) => codePointOrder(a.pair.peerName, b.pair.peerName) || a.tenantId - b.tenantId || a.pair.queueId - b.pair.queueId);
  return out.map((o) => o.pair);
}

async function framePairs(db: Db, caller: Caller, frame: TenantFrame, now: number): Promise<PairSessions[]> {
  const ids = frame.queues.map((q) => q.id);
  const { start: S, end: E } = frame.range;
  const [sessions, pauses] = await Promise.all([
    intervalsOf(db, caller.scope, 'agent_sessions', ids, S, E),
    intervalsOf(db, caller.scope, 'agent_pauses', ids, S, E),
  ]);
  const iso = isoInZoneOver(frame.tz, S, E);
  const clip = (i: StoredInterval) => {
    const start = Math.max(i.start, S);
    const open = i.end === null && E > now; // still open, and the range reaches past now
    const end = open ? now : Math.min(i.end ?? E, E);
    return end > start ? { start: iso(start), end: open ? null : iso(end), seconds: end - start } : null;
  };
  const pairs = new Map<string, { queueId: number; agent: number; sessions: PairSessions['sessions']; pauses: PairSessions['pauses'] }>();
  const pairOf = (i: StoredInterval) => {
    const key = `${i.queueId}|${i.agent}`;
    let p = pairs.get(key);
    if (!p) pairs.set(key, (p = { queueId: i.queueId, agent: i.agent, sessions: [], pauses: [] }));
    return p;
  };
  for (const s of sessions) {
    const c = clip(s);
    if (c) pairOf(s).sessions.push(c);
  }
  for (const s of pauses) {
    const c = clip(s);
    if (c) pairOf(s).pauses.push({ ...c, reason: s.reason });
  }
  const names = new Map(
    (await agentsOfTenant(db, caller.scope, frame.tenantId, [...new Set([...pairs.values()].map((p) => p.agent))])).map((n) => [
      n.agent,
      n,
    ]),
  );
  const queueName = new Map(frame.queues.map((q) => [q.id, q.name]));
  return [...pairs.values()]
    .filter((p) => p.sessions.length > 0 || p.pauses.length > 0)
    .map((p) => {
      const n = names.get(p.agent);
      return {
        extId: n?.extId ?? null,
        peerName: n?.peer ?? '',
        name: n?.name ?? '',
        queueId: p.queueId,
        queueName: queueName.get(p.queueId) as string,
        sessions: p.sessions,
        pauses: p.pauses,
      };
    });
}

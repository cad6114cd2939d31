import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { ANSWERED_EVENTS } from '../pbx-logs/stats-sql';

/**
 * The pieces of agent availability (reporting.md R10, R11) over a range [start, end): interval time is
 * clipped to the range, an interval still open ends at `openEnd` = min(end, now).
 */
export interface Clip {
  readonly start: number;
  readonly end: number;
  readonly openEnd: number;
}

const clipped = (c: Clip) => sql<number>`max(0, min(coalesce(end_at, ${c.openEnd}), ${c.end}) - max(start_at, ${c.start}))`;

/** Membership seconds per agent of the queue, for agents with any overlap. */
export async function membershipTimes(db: Db, queueId: number, c: Clip): Promise<{ agent: number; time: number }[]> {
  const { rows } = await sql<{ agent: number; time: number }>`
    SELECT agent, sum(${clipped(c)}) AS time FROM agent_sessions
    WHERE queue_id = ${queueId} AND start_at < ${c.end} AND (end_at IS NULL OR end_at > ${c.start})
    GROUP BY agent HAVING sum(${clipped(c)}) > 0`.execute(db);
  return rows;
}

/** Paused seconds per agent and reason, in the queue. */
export async function pauseTimes(db: Db, queueId: number, c: Clip): Promise<{ agent: number; reason: string; time: number }[]> {
  const { rows } = await sql<{ agent: number; reason: string; time: number }>`
    SELECT agent, reason, sum(${clipped(c)}) AS time FROM agent_pauses
    WHERE queue_id = ${queueId} AND start_at < ${c.end} AND (end_at IS NULL OR end_at > ${c.start})
    GROUP BY agent, reason`.execute(db);
  return rows;
}

/** Agents' peer names and their extension names in the tenant ("" without one). */
export async function agentNames(db: Db, tenantId: number, agents: readonly number[]): Promise<{ agent: number; peer: string; name: string }[]> {
  if (agents.length === 0) return [];
  return db
    .selectFrom('agents as a')
    .leftJoin('extensions as e', (j) => j.onRef('e.peer_name', '=', 'a.peer').on('e.tenant_id', '=', tenantId))
    .select(['a.id as agent', 'a.peer as peer', sql<string>`coalesce(e.ext_name, '')`.as('name')])
    .where('a.id', 'in', [...agents])
    .execute();
}

/** Call time of answered lines per agent in whole hours [fromHour, toHour) of these queues. */
export async function hourTalk(db: Db, queueIds: readonly number[], agents: readonly number[], fromHour: number, toHour: number) {
  if (queueIds.length === 0 || agents.length === 0 || fromHour >= toHour) return [];
  const { rows } = await sql<{ agent: number; talk: number }>`
    SELECT agent, sum(talk) AS talk FROM agent_talk_hour
    WHERE queue_id IN (${sql.join(queueIds)}) AND hour >= ${fromHour} AND hour < ${toHour} AND agent IN (${sql.join(agents)})
    GROUP BY agent`.execute(db);
  return rows;
}

/** The same from the stored rows, for part of an hour [from, to). */
export async function edgeTalk(db: Db, queueIds: readonly number[], agents: readonly number[], from: number, to: number) {
  if (queueIds.length === 0 || agents.length === 0 || from >= to) return [];
  const { rows } = await sql<{ agent: number; talk: number }>`
    SELECT agent, sum(talk_time) AS talk FROM queue_events
    WHERE queue_id IN (${sql.join(queueIds)}) AND anchor >= ${from} AND anchor < ${to} AND ${sql.raw(ANSWERED_EVENTS)} AND agent IN (${sql.join(agents)})
    GROUP BY agent`.execute(db);
  return rows;
}

/**
 * Answered CDR talk time per agent of calls that did not pass through a queue, the agent on either side
 * (a call between two agents counts for both, once for an agent on both sides), started in [start, end).
 */
export async function nonQueueTalk(db: Db, tenantId: number, agents: readonly number[], start: number, end: number) {
  if (agents.length === 0) return [];
  // INDEXED BY: with a list of agents bound as parameters, SQLite's planner (no ANALYZE statistics) prefers
  // the (tenant, start) index and reads every call of the month; the agent index reads only theirs.
  const side = (column: 'src_agent' | 'dst_agent') => sql`
    SELECT c.id, c.${sql.raw(column)} AS agent, c.billsec FROM cdr_calls c INDEXED BY ${sql.raw(`cdr_calls_${column}`)}
    WHERE c.tenant_id = ${tenantId} AND c.${sql.raw(column)} IN (${sql.join(agents)}) AND c.start_at >= ${start} AND c.start_at < ${end}
      AND c.disposition = 'ANSWERED' AND c.via_queue = 0`;
  const { rows } = await sql<{ agent: number; talk: number }>`
    SELECT agent, sum(billsec) AS talk FROM (${side('src_agent')} UNION ${side('dst_agent')}) GROUP BY agent`.execute(db);
  return rows;
}

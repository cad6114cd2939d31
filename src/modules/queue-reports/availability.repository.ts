import { sql, type RawBuilder } from 'kysely';
import type { TenantScope } from '../../access/scope';
import { tenantIn } from '../../access/tenant-filter';
import type { Db } from '../../db/database';
import { reportSql, type ReportSql } from '../../db/report-sql';
import { ANSWERED_EVENTS } from '../pbx-logs/stats.repository';

/**
 * The pieces of agent availability (reporting.md R10, R11) over a range [start, end): interval time is
 * clipped to the range, an interval still open ends at `openEnd` = min(end, now). Every query reads the
 * queue's rows only when the queue is one of the caller's scope, and its tenant's rows by the queue's tenant.
 */
export interface Clip {
  readonly start: number;
  readonly end: number;
  readonly openEnd: number;
}

/** `column` is the queue, when it is one of the scope's. */
const isQueue = (column: string, queueId: number, scope: TenantScope): RawBuilder<unknown> =>
  sql`${sql.ref(column)} IN (SELECT q.id FROM queues q WHERE q.id = ${queueId} AND ${tenantIn(scope, 'q.tenant_id')})`;

/** The tenant of the queue, when it is one of the scope's (else NULL, which matches nothing). */
const tenantOf = (queueId: number, scope: TenantScope): RawBuilder<number> =>
  sql<number>`(SELECT q.tenant_id FROM queues q WHERE q.id = ${queueId} AND ${tenantIn(scope, 'q.tenant_id')})`;

/** `column` is one of the queues of the queue's tenant. */
const isTenantQueue = (column: string, queueId: number, scope: TenantScope): RawBuilder<unknown> =>
  sql`${sql.ref(column)} IN (SELECT q.id FROM queues q WHERE q.tenant_id = ${tenantOf(queueId, scope)})`;

const clipped = (f: ReportSql, c: Clip) =>
  f.greatest('0', sql`${f.least(sql`coalesce(end_at, ${c.openEnd})`, sql`${c.end}`)} - ${f.greatest('start_at', sql`${c.start}`)}`);

/** Membership seconds per agent of the queue, for agents with any overlap. */
export async function membershipTimes(db: Db, scope: TenantScope, queueId: number, c: Clip): Promise<{ agent: number; time: number }[]> {
  const f = reportSql(db);
  const { rows } = await sql<{ agent: number; time: number }>`
    SELECT agent, sum(${clipped(f, c)}) AS time FROM agent_sessions
    WHERE ${isQueue('queue_id', queueId, scope)} AND start_at < ${c.end} AND (end_at IS NULL OR end_at > ${c.start})
    GROUP BY agent HAVING sum(${clipped(f, c)}) > 0`.execute(db);
  return rows;
}

/** Paused seconds per agent and reason, in the queue. */
export async function pauseTimes(
  db: Db,
  scope: TenantScope,
  queueId: number,
  c: Clip,
): Promise<{ agent: number; reason: string; time: number }[]> {
  const { rows } = await sql<{ agent: number; reason: string; time: number }>`
    SELECT agent, reason, sum(${clipped(reportSql(db), c)}) AS time FROM agent_pauses
    WHERE ${isQueue('queue_id', queueId, scope)} AND start_at < ${c.end} AND (end_at IS NULL OR end_at > ${c.start})
    GROUP BY agent, reason`.execute(db);
  return rows;
}

/** Agents' peer names and their extension names in the queue's tenant ("" without one). */
export async function agentNames(
  db: Db,
  scope: TenantScope,
  queueId: number,
  agents: readonly number[],
): Promise<{ agent: number; peer: string; name: string }[]> {
  if (agents.length === 0) return [];
  return db
    .selectFrom('agents as a')
    .leftJoin('extensions as e', (j) => j.onRef('e.peer_name', '=', 'a.peer').on('e.tenant_id', '=', tenantOf(queueId, scope)))
    .select(['a.id as agent', 'a.peer as peer', sql<string>`coalesce(e.ext_name, '')`.as('name')])
    .where('a.id', 'in', [...agents])
    .execute();
}

/** Call time of answered lines per agent in whole hours [fromHour, toHour) of the queues of the queue's tenant. */
export async function hourTalk(db: Db, scope: TenantScope, queueId: number, agents: readonly number[], fromHour: number, toHour: number) {
  if (agents.length === 0 || fromHour >= toHour) return [];
  const { rows } = await sql<{ agent: number; talk: number }>`
    SELECT agent, sum(talk) AS talk FROM agent_talk_hour
    WHERE ${isTenantQueue('queue_id', queueId, scope)} AND hour >= ${fromHour} AND hour < ${toHour} AND agent IN (${sql.join(agents)})
    GROUP BY agent`.execute(db);
  return rows;
}

/** The same from the stored rows, for part of an hour [from, to). */
export async function edgeTalk(db: Db, scope: TenantScope, queueId: number, agents: readonly number[], from: number, to: number) {
  if (agents.length === 0 || from >= to) return [];
  const { rows } = await sql<{ agent: number; talk: number }>`
    SELECT agent, sum(talk_time) AS talk FROM queue_events
    WHERE ${isTenantQueue('queue_id', queueId, scope)} AND anchor >= ${from} AND anchor < ${to} AND ${sql.raw(ANSWERED_EVENTS)} AND agent IN (${sql.join(agents)})
    GROUP BY agent`.execute(db);
  return rows;
}

/**
 * Answered CDR talk time per agent of calls that did not pass through a queue, the agent on either side
 * (a call between two agents counts for both, once for an agent on both sides), started in [start, end), in the
 * queue's tenant.
 */
export async function nonQueueTalk(db: Db, scope: TenantScope, queueId: number, agents: readonly number[], start: number, end: number) {
  if (agents.length === 0) return [];
  // INDEXED BY: with a list of agents bound as parameters, SQLite's planner (no ANALYZE statistics) prefers
  // the (tenant, start) index and reads every call of the month; the agent index reads only theirs.
  const f = reportSql(db);
  const side = (column: 'src_agent' | 'dst_agent') => sql`
    SELECT c.id, c.${sql.raw(column)} AS agent, c.billsec FROM cdr_calls c${f.indexedBy(`cdr_calls_${column}`)}
    WHERE c.tenant_id = ${tenantOf(queueId, scope)} AND c.${sql.raw(column)} IN (${sql.join(agents)}) AND c.start_at >= ${start} AND c.start_at < ${end}
      AND c.disposition = 'ANSWERED' AND c.via_queue = 0`;
  const { rows } = await sql<{ agent: number; talk: number }>`
    SELECT agent, sum(billsec) AS talk FROM (${side('src_agent')} UNION ${side('dst_agent')})${f.derivedAlias('t')} GROUP BY agent`.execute(
    db,
  );
  return rows;
}

import { sql, type RawBuilder } from 'kysely';
import type { TenantScope } from '../../access/scope';
import { tenantIn } from '../../access/tenant-filter';
import type { Db } from '../../db/database';
import { reportSql } from '../../db/report-sql';
import { EV } from '../pbx-logs/stats.repository';
import { ANSWERED_EVENTS } from '../pbx-logs/stats.repository';
import type { QueueSpan } from './report-frame';
import { withSpans } from './span-table.repository';

/**
 * The pieces of each agent's day (reporting.md R21, R23) over spans of a report's rows. Every query reads only
 * queues of the caller's scope, and CDR rows of a tenant of it.
 */

/** A span of a whole tenant (the all-queues rows): no queue. */
export interface TenantSpan {
  readonly span: number;
  readonly from: number;
  readonly to: number;
}

const queueInScope = (column: RawBuilder<unknown>, scope: TenantScope) =>
  sql`${column} IN (SELECT q.id FROM queues q WHERE ${tenantIn(scope, 'q.tenant_id')})`;

/** An agent's call lines of one queue span: answered ones by how they ended, ring times (R4, R5). */
export interface AgentCallSums {
  readonly span: number;
  readonly agent: number;
  readonly answered: number;
  readonly agentHangups: number;
  readonly callerHangups: number;
  readonly talk: number;
  readonly hold: number;
  readonly rna: number;
  readonly rnaMs: number;
  readonly ringMs: number;
}

export async function agentCallSums(db: Db, scope: TenantScope, spans: readonly QueueSpan[]): Promise<AgentCallSums[]> {
  if (spans.length === 0) return [];
  const f = reportSql(db);
  const { rows } = await sql<AgentCallSums>`
    ${withSpans(db, spans)}
    SELECT sp.span AS span, agent, ${f.count(ANSWERED_EVENTS)} AS answered,
      ${f.count(sql`event = ${EV.COMPLETEAGENT}`)} AS ${f.name('agentHangups')}, ${f.count(sql`event = ${EV.COMPLETECALLER}`)} AS ${f.name('callerHangups')},
      sum(CASE WHEN ${sql.raw(ANSWERED_EVENTS)} THEN talk_time ELSE 0 END) AS talk,
      sum(CASE WHEN ${sql.raw(ANSWERED_EVENTS)} THEN wait_time ELSE 0 END) AS hold,
      ${f.count(sql`event = ${EV.RINGNOANSWER}`)} AS rna, sum(CASE WHEN event = ${EV.RINGNOANSWER} THEN ring_ms ELSE 0 END) AS ${f.name('rnaMs')},
      sum(CASE WHEN event = ${EV.CONNECT} THEN ring_ms ELSE 0 END) AS ${f.name('ringMs')}
    FROM sp CROSS JOIN queue_events e
    WHERE e.queue_id = sp.queue_id AND e.anchor >= sp.lo AND e.anchor < sp.hi
      AND event IN (${sql.join([EV.CONNECT, EV.COMPLETEAGENT, EV.COMPLETECALLER, EV.BLINDTRANSFER, EV.ATTENDEDTRANSFER, EV.RINGNOANSWER])})
      AND ${queueInScope(sql.raw('sp.queue_id'), scope)}
    GROUP BY sp.span, agent`.execute(db);
  return rows;
}

/** An R9 outbound call of an agent (not through a queue): when it started, whether answered, its billed seconds. */
export interface AgentCall {
  readonly agent: number;
  readonly at: number;
  readonly answered: number;
  readonly billsec: number;
}

/**
 * Every R9 outbound call of these agents of the tenant started in [from, to), by agent and start, read once through
 * the agents' index of calls outside queues: which queue's member placed it is the sessions' matter (agent-days.ts
 * memberOutbound), not a join of each report span with every session of its queue begun before it (that join read
 * half a year of sessions for each hour of July).
 */
export async function agentCalls(
  db: Db,
  scope: TenantScope,
  tenantId: number,
  agents: readonly number[],
  from: number,
  to: number,
): Promise<AgentCall[]> {
  if (agents.length === 0 || from >= to) return [];
  const f = reportSql(db);
  const { rows } = await sql<AgentCall>`
    SELECT c.src_agent AS agent, c.start_at AS at, ${f.flag("c.disposition = 'ANSWERED'")} AS answered, c.billsec AS billsec
    FROM cdr_calls c${f.indexedBy('cdr_calls_src_agent')}
    WHERE c.tenant_id = ${tenantId} AND ${tenantIn(scope, 'c.tenant_id')} AND c.src_agent IN (${f.jsonIds(agents)})
      AND c.start_at >= ${from} AND c.start_at < ${to} AND c.outbound_r9 = 1 AND c.via_queue = 0
    ORDER BY c.src_agent, c.start_at`.execute(db);
  return rows;
}

/**
 * R11's nonQueueTalkTime: the answered CDR rows not through a queue started in [from, to) with one of these agents
 * (of the tenant) on either side, once per agent (a call between two of them once for each), through the agents'
 * indexes, as agentCalls; their row is the caller's matter (agent-days.ts).
 */
export async function nonQueueTalk(
  db: Db,
  scope: TenantScope,
  tenantId: number,
  agents: readonly number[],
  from: number,
  to: number,
): Promise<{ agent: number; at: number; billsec: number }[]> {
  if (agents.length === 0 || from >= to) return [];
  const f = reportSql(db);
  const side = (column: 'src_agent' | 'dst_agent') => sql`
    SELECT c.id AS id, c.${sql.raw(column)} AS agent, c.start_at AS at, c.billsec AS billsec
    FROM cdr_calls c${f.indexedBy(`cdr_calls_${column}`)}
    WHERE c.tenant_id = ${tenantId} AND ${tenantIn(scope, 'c.tenant_id')} AND c.${sql.raw(column)} IN (${f.jsonIds(agents)})
      AND c.start_at >= ${from} AND c.start_at < ${to} AND c.disposition = 'ANSWERED' AND c.via_queue = 0`;
  const { rows } = await sql<{ agent: number; at: number; billsec: number }>`
    SELECT agent, at, billsec FROM (${side('src_agent')} UNION ${side('dst_agent')})${f.derivedAlias('t')}`.execute(db);
  return rows;
}

export interface StoredInterval {
  readonly queueId: number;
  readonly agent: number;
  readonly start: number;
  /** null: still open. */
  readonly end: number | null;
  readonly reason: string;
}

/** Membership (reason "") or pause intervals of these queues (of the scope) that overlap [from, to), by queue, agent, start. */
export async function intervalsOf(
  db: Db,
  scope: TenantScope,
  table: 'agent_sessions' | 'agent_pauses',
  queueIds: readonly number[],
  from: number,
  to: number,
): Promise<StoredInterval[]> {
  if (queueIds.length === 0) return [];
  const reason = table === 'agent_pauses' ? sql`reason` : sql`''`;
  const { rows } = await sql<StoredInterval>`
    SELECT queue_id AS ${reportSql(db).name('queueId')}, agent, start_at AS start, end_at AS "end", ${reason} AS reason FROM ${sql.table(table)}
    WHERE queue_id IN (${sql.join(queueIds)}) AND ${queueInScope(sql.raw('queue_id'), scope)}
      AND start_at < ${to} AND (end_at IS NULL OR end_at > ${from})
    ORDER BY queue_id, agent, start_at`.execute(db);
  return rows;
}

/** The agents' peer names and the tenant's extension each names (R14: lines are stored under the extension's peerName). */
export async function agentsOfTenant(
  db: Db,
  scope: TenantScope,
  tenantId: number,
  agents: readonly number[],
): Promise<{ agent: number; peer: string; extId: number | null; extNum: number | null; name: string }[]> {
  if (agents.length === 0) return [];
  const f = reportSql(db);
  const { rows } = await sql<{ agent: number; peer: string; extId: number | null; extNum: number | null; name: string }>`
    SELECT a.id AS agent, a.peer AS peer, e.id AS ${f.name('extId')}, e.ext_num AS ${f.name('extNum')}, coalesce(e.ext_name, '') AS name
    FROM agents a LEFT JOIN extensions e ON e.peer_name = a.peer AND e.tenant_id = ${tenantId} AND ${tenantIn(scope, 'e.tenant_id')}
    WHERE a.id IN (${f.jsonIds(agents)})`.execute(db);
  return rows;
}

import { sql, type RawBuilder } from 'kysely';
import type { TenantScope } from '../../access/scope';
import { tenantIn } from '../../access/tenant-filter';
import type { Db } from '../../db/database';
import { defineQuery, inJsonList, type Params } from '../../db/query';
import { reportSql, type ReportSql } from '../../db/report-sql';
import {
  ANSWERED_EVENTS,
  COUNTED_EVENTS,
  eventAggregates,
  HOUR_AGGREGATES,
  outboundCallsOf,
  outboundSums,
  STATS_COLUMNS,
  type StatsColumn,
} from '../pbx-logs/stats.repository';

/**
 * Sums of the queue statistics over time spans. Whole hours come from the per-hour tables; the parts of
 * hours at a span's edges (ranges with a time of day, zones with half-hour offsets) from the stored rows,
 * with the same expressions. Every query is keyed by a span's index, so the caller adds the pieces up, and
 * reads only queues of the caller's scope, whatever queue ids the spans name.
 */
export type StatsSums = Record<StatsColumn, number | null>;
export interface OutboundSums {
  total: number;
  answered: number;
  talk: number;
}

/** A span of whole hours [fromHour, toHour) of a queue. */
export interface HourSpan {
  readonly span: number;
  readonly queueId: number;
  readonly fromHour: number;
  readonly toHour: number;
}

/** A span of seconds [from, to) of a queue, inside one hour. */
export interface EdgeSpan {
  readonly span: number;
  readonly queueId: number;
  readonly from: number;
  readonly to: number;
}

type Keyed<T> = T & { span: number };

// The spans travel as one JSON array of objects, joined in SQL (its rows drive the loop: one index range
// per span) and read by name: `p.field(name)` is the field of the span of the current row.
const HOUR_FIELDS = ['span', 'queueId', 'fromHour', 'toHour'] as const;
const EDGE_FIELDS = ['span', 'queueId', 'from', 'to'] as const;
type SpanRows = ReturnType<ReportSql['jsonRows']>;

/** The span's queue, when it is one of the scope's. */
const spanQueueIn = (p: SpanRows, scope: TenantScope): RawBuilder<unknown> =>
  sql`${sql.raw(p.field('queueId'))} IN (SELECT q.id FROM queues q WHERE ${tenantIn(scope, 'q.tenant_id')})`;

/** Sums of whole hours per span, from one of the per-hour tables. */
async function hourSums<T>(
  db: Db,
  scope: TenantScope,
  spans: readonly HourSpan[],
  table: 'queue_hour_stats' | 'queue_outbound_hour',
  aggregates: string,
): Promise<Keyed<T>[]> {
  if (spans.length === 0) return [];
  const p = reportSql(db).jsonRows(spans, HOUR_FIELDS);
  const { rows } = await sql<Keyed<T>>`
    SELECT ${sql.raw(p.field('span'))} AS span, ${sql.raw(aggregates)}
    FROM ${p.from} CROSS JOIN ${sql.table(table)}
    WHERE ${spanQueueIn(p, scope)} AND queue_id = ${sql.raw(p.field('queueId'))} AND hour >= ${sql.raw(p.field('fromHour'))} AND hour < ${sql.raw(p.field('toHour'))}
    GROUP BY ${sql.raw(p.groupKey)}`.execute(db);
  return rows;
}

export const hourStats = (db: Db, scope: TenantScope, spans: readonly HourSpan[]) =>
  hourSums<StatsSums>(db, scope, spans, 'queue_hour_stats', HOUR_AGGREGATES);

export const hourOutbound = (db: Db, scope: TenantScope, spans: readonly HourSpan[]) =>
  hourSums<OutboundSums>(db, scope, spans, 'queue_outbound_hour', 'sum(total) AS total, sum(answered) AS answered, sum(talk) AS talk');

export async function edgeStats(db: Db, scope: TenantScope, spans: readonly EdgeSpan[]): Promise<Keyed<StatsSums>[]> {
  if (spans.length === 0) return [];
  const f = reportSql(db);
  const p = f.jsonRows(spans, EDGE_FIELDS);
  const { rows } = await sql<Keyed<StatsSums>>`
    SELECT ${sql.raw(p.field('span'))} AS span, ${sql.raw(eventAggregates(f.text))}
    FROM ${p.from} CROSS JOIN queue_events
    WHERE ${spanQueueIn(p, scope)} AND queue_id = ${sql.raw(p.field('queueId'))} AND anchor >= ${sql.raw(p.field('from'))} AND anchor < ${sql.raw(p.field('to'))} AND ${sql.raw(COUNTED_EVENTS)}
    GROUP BY ${sql.raw(p.groupKey)}`.execute(db);
  return rows;
}

/** reporting.md R9 for edge spans: outbound calls of the queue's members at the call's start. */
export async function edgeOutbound(db: Db, scope: TenantScope, spans: readonly EdgeSpan[]): Promise<Keyed<OutboundSums>[]> {
  if (spans.length === 0) return [];
  const f = reportSql(db);
  const p = f.jsonRows(spans, EDGE_FIELDS);
  // The calls' tenant is the queue's.
  const tenant = `(SELECT q.tenant_id FROM queues q WHERE q.id = ${p.field('queueId')})`;
  const calls = outboundCallsOf({ queue: p.field('queueId'), tenant, from: p.field('from'), to: p.field('to') }, f.text);
  const { rows } = await sql<Keyed<OutboundSums>>`
    SELECT ${sql.raw(p.field('span'))} AS span, ${sql.raw(outboundSums(f.text))}
    FROM ${p.from} CROSS JOIN ${sql.raw(calls)} AND ${spanQueueIn(p, scope)}
    GROUP BY ${sql.raw(p.groupKey)}`.execute(db);
  return rows;
}

export interface DayRow {
  start: number;
  end: number;
  stats: StatsSums;
  outbound: OutboundSums;
}

const dayRowsOf = defineQuery((db, p: Params<{ queueIds: string; from: number; to: number; scope: TenantScope }>) =>
  db
    .selectFrom('queue_day_stats')
    .select(['queue_id', 'day_start', 'day_end', ...STATS_COLUMNS, 'ob_total', 'ob_answered', 'ob_talk'])
    .where(inJsonList('queue_id', p.queueIds))
    .where('queue_id', 'in', (eb) => eb.selectFrom('queues').select('id').where(tenantIn(p.scope)))
    .where('day_start', '>=', p.from)
    .where('day_start', '<', p.to)
    .orderBy('queue_id')
    .orderBy('day_start'),
);

/** The stored local-day rows of these queues (those of the scope) that begin in [from, to), by queue, in order. */
export async function dayRows(
  db: Db,
  scope: TenantScope,
  queueIds: readonly number[],
  from: number,
  to: number,
): Promise<Map<number, DayRow[]>> {
  const byQueue = new Map<number, DayRow[]>(queueIds.map((id) => [id, []]));
  if (queueIds.length === 0) return byQueue;
  const rows = await dayRowsOf.all(db, { queueIds: JSON.stringify(queueIds), from, to, scope });
  for (const r of rows)
    byQueue
      .get(r.queue_id)
      ?.push({ start: r.day_start, end: r.day_end, stats: r, outbound: { total: r.ob_total, answered: r.ob_answered, talk: r.ob_talk } });
  return byQueue;
}

/**
 * Per queue, the answered calls anchored in [from, to) that waited at most `seconds`: the service level at a
 * queue's own threshold (the live wallboard), where the stored sums only know 30 s.
 */
export async function answeredWithin(
  db: Db,
  scope: TenantScope,
  queueIds: readonly number[],
  range: { from: number; to: number },
  seconds: number,
): Promise<Map<number, number>> {
  if (queueIds.length === 0) return new Map();
  const { rows } = await sql<{ queue_id: number; n: number }>`
    SELECT queue_id, ${reportSql(db).count(sql`${sql.raw(ANSWERED_EVENTS)} AND wait_time <= ${seconds}`)} AS n
    FROM queue_events
    WHERE queue_id IN (SELECT q.id FROM queues q WHERE ${tenantIn(scope, 'q.tenant_id')} AND q.id IN (${sql.join(queueIds)}))
      AND anchor >= ${range.from} AND anchor < ${range.to}
    GROUP BY queue_id`.execute(db);
  return new Map(rows.map((r) => [r.queue_id, r.n]));
}

const hourRangeOf = defineQuery((db, p: Params<{ queueIds: string; from: number; to: number; scope: TenantScope }>) =>
  db
    .selectFrom('queue_hour_stats')
    .select(['queue_id', 'hour', ...STATS_COLUMNS])
    .where(inJsonList('queue_id', p.queueIds))
    .where('queue_id', 'in', (eb) => eb.selectFrom('queues').select('id').where(tenantIn(p.scope)))
    .where('hour', '>=', p.from)
    .where('hour', '<', p.to)
    .orderBy('queue_id'),
);

const outboundRangeOf = defineQuery((db, p: Params<{ queueIds: string; from: number; to: number; scope: TenantScope }>) =>
  db
    .selectFrom('queue_outbound_hour')
    .select(['queue_id', 'hour', 'total', 'answered', 'talk'])
    .where(inJsonList('queue_id', p.queueIds))
    .where('queue_id', 'in', (eb) => eb.selectFrom('queues').select('id').where(tenantIn(p.scope)))
    .where('hour', '>=', p.from)
    .where('hour', '<', p.to)
    .orderBy('queue_id'),
);

/**
 * Every per-hour row of these queues (of the scope) in hours [fromHour, toHour), with the queue's outbound sums:
 * one range read, for reports of many hours (an hourly month, the hours of the day over a year).
 */
export async function hourRange(
  db: Db,
  scope: TenantScope,
  queueIds: readonly number[],
  fromHour: number,
  toHour: number,
): Promise<{ stats: (StatsSums & { queue_id: number; hour: number })[]; outbound: (OutboundSums & { queue_id: number; hour: number })[] }> {
  if (queueIds.length === 0 || fromHour >= toHour) return { stats: [], outbound: [] };
  const p = { queueIds: JSON.stringify(queueIds), from: fromHour, to: toHour, scope };
  const [stats, outbound] = await Promise.all([hourRangeOf.all(db, p), outboundRangeOf.all(db, p)]);
  return { stats, outbound };
}

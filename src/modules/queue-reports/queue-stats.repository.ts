import { sql } from 'kysely';
import { inJsonList, selectOnce, type Db } from '../../db/database';
import { COUNTED_EVENTS, EVENT_AGGREGATES, HOUR_AGGREGATES, outboundCallsOf, OUTBOUND_SUMS, STATS_COLUMNS, type StatsColumn } from '../pbx-logs/stats-sql';

/**
 * Sums of the queue statistics over time spans. Whole hours come from the per-hour tables; the parts of
 * hours at a span's edges (ranges with a time of day, zones with half-hour offsets) from the stored rows,
 * with the same expressions. Every query is keyed by a span's index, so the caller adds the pieces up.
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
  readonly tenantId: number;
  readonly from: number;
  readonly to: number;
}

type Keyed<T> = T & { span: number };

// The spans travel as one JSON array of objects, joined in SQL (json_each drives the loop: one index range
// per span) and read by name: `span(field)` is the field of the span of the current row.
const spansJson = (spans: readonly (HourSpan | EdgeSpan)[]) => JSON.stringify(spans);
const span = (field: keyof HourSpan | keyof EdgeSpan) => `p.value ->> '${field}'`;

/** Sums of whole hours per span, from one of the per-hour tables. */
async function hourSums<T>(db: Db, spans: readonly HourSpan[], table: 'queue_hour_stats' | 'queue_outbound_hour', aggregates: string): Promise<Keyed<T>[]> {
  if (spans.length === 0) return [];
  const { rows } = await sql<Keyed<T>>`
    SELECT ${sql.raw(span('span'))} AS span, ${sql.raw(aggregates)}
    FROM json_each(${spansJson(spans)}) p CROSS JOIN ${sql.table(table)}
    WHERE queue_id = ${sql.raw(span('queueId'))} AND hour >= ${sql.raw(span('fromHour'))} AND hour < ${sql.raw(span('toHour'))}
    GROUP BY p.key`.execute(db);
  return rows;
}

export const hourStats = (db: Db, spans: readonly HourSpan[]) => hourSums<StatsSums>(db, spans, 'queue_hour_stats', HOUR_AGGREGATES);

export const hourOutbound = (db: Db, spans: readonly HourSpan[]) =>
  hourSums<OutboundSums>(db, spans, 'queue_outbound_hour', 'sum(total) AS total, sum(answered) AS answered, sum(talk) AS talk');

export async function edgeStats(db: Db, spans: readonly EdgeSpan[]): Promise<Keyed<StatsSums>[]> {
  if (spans.length === 0) return [];
  const { rows } = await sql<Keyed<StatsSums>>`
    SELECT ${sql.raw(span('span'))} AS span, ${sql.raw(EVENT_AGGREGATES)}
    FROM json_each(${spansJson(spans)}) p CROSS JOIN queue_events
    WHERE queue_id = ${sql.raw(span('queueId'))} AND anchor >= ${sql.raw(span('from'))} AND anchor < ${sql.raw(span('to'))} AND ${sql.raw(COUNTED_EVENTS)}
    GROUP BY p.key`.execute(db);
  return rows;
}

/** reporting.md R9 for edge spans: outbound calls of the queue's members at the call's start. */
export async function edgeOutbound(db: Db, spans: readonly EdgeSpan[]): Promise<Keyed<OutboundSums>[]> {
  if (spans.length === 0) return [];
  const calls = outboundCallsOf({ queue: span('queueId'), tenant: span('tenantId'), from: span('from'), to: span('to') });
  const { rows } = await sql<Keyed<OutboundSums>>`
    SELECT ${sql.raw(span('span'))} AS span, ${sql.raw(OUTBOUND_SUMS)}
    FROM json_each(${spansJson(spans)}) p CROSS JOIN ${sql.raw(calls)}
    GROUP BY p.key`.execute(db);
  return rows;
}

export interface DayRow {
  start: number;
  end: number;
  stats: StatsSums;
  outbound: OutboundSums;
}

type DayRowColumns = StatsSums & { queue_id: number; day_start: number; day_end: number; ob_total: number; ob_answered: number; ob_talk: number };

const dayRowsOf = selectOnce(
  (db) => sql<DayRowColumns>`
    SELECT queue_id, day_start, day_end, ${sql.raw(STATS_COLUMNS.join(', '))}, ob_total, ob_answered, ob_talk
    FROM queue_day_stats WHERE ${inJsonList('queue_id')} AND day_start >= ${0} AND day_start < ${0}
    ORDER BY queue_id, day_start`.compile(db),
);

/** The stored local-day rows of these queues that begin in [from, to), by queue, in order. */
export async function dayRows(db: Db, queueIds: readonly number[], from: number, to: number): Promise<Map<number, DayRow[]>> {
  const byQueue = new Map<number, DayRow[]>(queueIds.map((id) => [id, []]));
  if (queueIds.length === 0) return byQueue;
  const rows = await dayRowsOf(db, [JSON.stringify(queueIds), from, to]);
  for (const r of rows) byQueue.get(r.queue_id)?.push({ start: r.day_start, end: r.day_end, stats: r, outbound: { total: r.ob_total, answered: r.ob_answered, talk: r.ob_talk } });
  return byQueue;
}

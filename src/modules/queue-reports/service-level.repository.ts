import { sql, type RawBuilder } from 'kysely';
import type { TenantScope } from '../../access/scope';
import { tenantIn } from '../../access/tenant-filter';
import type { Db } from '../../db/database';
import { reportSql } from '../../db/report-sql';
import { EV } from '../pbx-logs/stats.repository';
import { ANSWERED_EVENTS, COUNTED_EVENTS } from '../pbx-logs/stats.repository';
import type { QueueSpan } from './report-frame';
import { withSpans } from './span-table.repository';

/** A span of a queue with the queue's own threshold (R19), which the query counts for first. */
export interface LevelSpan extends QueueSpan {
  readonly own: number;
}

/** What reporting.md R19 counts in one span: the calls, and per threshold those answered and abandoned within it. */
export interface LevelSums {
  readonly span: number;
  offered: number;
  answered: number;
  abandoned: number;
  shortAbandons: number;
  /** Per threshold, in the order asked (the span's own first): answeredWithin, abandonedWithin. */
  within: [number, number][];
}

/** What Asterisk counts as abandoned (R18): ABANDON, EXITWITHTIMEOUT, EXITEMPTY. */
const ABANDONED = `event IN (${EV.ABANDON}, ${EV.EXITWITHTIMEOUT}, ${EV.EXITEMPTY})`;

/**
 * The figures of R19 of each span, from the stored lines (a threshold is any number of seconds: no stored sum
 * knows it) in one pass over each span's index range: the hold time of an answered line and the wait of an exit
 * are its wait_time (R4). Queues outside the scope count nothing.
 */
export async function levelSums(
  db: Db,
  scope: TenantScope,
  spans: readonly LevelSpan[],
  thresholds: readonly number[],
  shortAbandonSeconds: number,
): Promise<LevelSums[]> {
  if (spans.length === 0) return [];
  const f = reportSql(db);
  const within = (t: RawBuilder<unknown> | number, i: string) =>
    sql`, ${f.count(sql`${sql.raw(ANSWERED_EVENTS)} AND wait_time <= ${t}`)} AS a${sql.raw(i)}, ${f.count(sql`${sql.raw(ABANDONED)} AND wait_time <= ${t}`)} AS b${sql.raw(i)}`;
  const { rows } = await sql<Record<string, number>>`
    ${withSpans(db, spans, ['own'])}
    SELECT sp.span AS span, ${f.count(sql`event = ${EV.ENTERQUEUE}`)} AS offered, ${f.count(ANSWERED_EVENTS)} AS answered,
      ${f.count(ABANDONED)} AS abandoned, ${f.count(sql`event = ${EV.ABANDON} AND wait_time < ${shortAbandonSeconds}`)} AS short
      ${within(sql.raw('sp.own'), 'own')}${sql.join(
        thresholds.map((t, i) => within(t, String(i))),
        sql``,
      )}
    FROM sp CROSS JOIN queue_events e
    WHERE e.queue_id = sp.queue_id AND e.anchor >= sp.lo AND e.anchor < sp.hi AND ${sql.raw(COUNTED_EVENTS)}
      AND sp.queue_id IN (SELECT q.id FROM queues q WHERE ${tenantIn(scope, 'q.tenant_id')})
    GROUP BY sp.span`.execute(db);
  return rows.map((r) => ({
    span: r.span as number,
    offered: r.offered ?? 0,
    answered: r.answered ?? 0,
    abandoned: r.abandoned ?? 0,
    shortAbandons: r.short ?? 0,
    within: [[r.aown ?? 0, r.bown ?? 0], ...thresholds.map((_, i): [number, number] => [r[`a${i}`] ?? 0, r[`b${i}`] ?? 0])],
  }));
}

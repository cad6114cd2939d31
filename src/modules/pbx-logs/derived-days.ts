import { perConnection, type Sqlite } from '../../db/database';
import { localDay, startOfDay } from '../../time/zone';
import { HOUR_AGGREGATES, STATS_COLUMNS } from './stats-sql';

/**
 * queue_day_stats: the per-hour sums of whole local days, so that a year of daily rows reads 365 rows
 * per queue instead of thousands of hours. Recomputed from the per-hour tables for every day whose hours
 * changed, in the timezone the queue's tenant has at that moment. Zones whose days do not start on a
 * whole hour (India, Nepal …) get no day rows: their reports read hours.
 */
const stmts = perConnection((sqlite: Sqlite) => {
  return {
    timezone: sqlite
      .prepare(
        `SELECT b.timezone FROM queues q JOIN branches b ON b.tenant_id = q.tenant_id AND b.is_default = 1
         WHERE q.id = ? ORDER BY b.id LIMIT 1`,
      )
      .pluck(),
    // Rows of another timezone overlapping the day would go stale: they go.
    deleteOverlapping: sqlite.prepare('DELETE FROM queue_day_stats WHERE queue_id = :queue AND day_start > :start - 172800 AND day_start < :end AND day_end > :start'),
    insert: sqlite.prepare(
      `INSERT INTO queue_day_stats (queue_id, day_start, day_end, ${STATS_COLUMNS.join(', ')}, ob_total, ob_answered, ob_talk)
       SELECT :queue, :start, :end, ${HOUR_AGGREGATES},
         (SELECT coalesce(sum(total), 0) FROM queue_outbound_hour WHERE queue_id = :queue AND hour >= :start / 3600 AND hour < :end / 3600),
         (SELECT coalesce(sum(answered), 0) FROM queue_outbound_hour WHERE queue_id = :queue AND hour >= :start / 3600 AND hour < :end / 3600),
         (SELECT coalesce(sum(talk), 0) FROM queue_outbound_hour WHERE queue_id = :queue AND hour >= :start / 3600 AND hour < :end / 3600)
       FROM queue_hour_stats WHERE queue_id = :queue AND hour >= :start / 3600 AND hour < :end / 3600`,
    ),
  };
});

/** Recomputes the day rows of a queue for the local days containing these hours. */
export function recomputeDays(sqlite: Sqlite, queueId: number, hours: Iterable<number>): void {
  const s = stmts(sqlite);
  const tz = (s.timezone.get(queueId) as string | undefined) ?? 'UTC';
  const days = new Set<number>();
  for (const hour of hours) days.add(localDay(tz, hour * 3600)); // offsetAt memoises the instants
  for (const day of days) {
    const start = startOfDay(tz, day);
    const end = startOfDay(tz, day + 1);
    if (start % 3600 !== 0 || end % 3600 !== 0) continue;
    const params = { queue: queueId, start, end };
    s.deleteOverlapping.run(params);
    s.insert.run(params);
  }
}

import { localDay, startOfDay } from '../../time/zone';
import type { ImportStore } from './import-store';

/**
 * queue_day_stats: the per-hour sums of whole local days, so that a year of daily rows reads 365 rows
 * per queue instead of thousands of hours. Recomputed from the per-hour tables for every day whose hours
 * changed, in the timezone the queue's tenant has at that moment. Zones whose days do not start on a
 * whole hour (India, Nepal …) get no day rows: their reports read hours.
 */
export async function recomputeDays(store: ImportStore, queueId: number, hours: Iterable<number>): Promise<void> {
  const tz = (await store.timezoneOfQueue(queueId)) ?? 'UTC';
  const days = new Set<number>();
  for (const hour of hours) days.add(localDay(tz, hour * 3600)); // offsetAt memoises the instants
  for (const day of days) {
    const start = startOfDay(tz, day);
    const end = startOfDay(tz, day + 1);
    if (start % 3600 !== 0 || end % 3600 !== 0) continue;
    await store.recomputeDay(queueId, start, end);
  }
}

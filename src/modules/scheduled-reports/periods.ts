import { periodAfter, periodStart } from '../../time/report-range';
import { formatDay, localDay, startOfDay, wallToInstant } from '../../time/zone';

export type Frequency = 'daily' | 'weekly' | 'monthly';

/**
 * A report period in a tenant's timezone: a local day, a Monday-to-Sunday week or a calendar month, from
 * local midnight to local midnight (the same periods as the queue reports' distributions, src/time).
 */
export interface Period {
  readonly frequency: Frequency;
  /** First local day, YYYY-MM-DD. */
  readonly startDate: string;
  /** Last local day (inclusive), YYYY-MM-DD: a date-only endDate of the reports includes it. */
  readonly endDate: string;
  /** [startMs, endMs): the instants it covers. */
  readonly startMs: number;
  readonly endMs: number;
  /** Day numbers (days since 1970-01-01) of its first day and of the first day after it. */
  readonly firstDay: number;
  readonly nextDay: number;
}

/** The period of `frequency` that contains the local day `day` (a day number). */
export function periodContaining(frequency: Frequency, day: number, tz: string): Period {
  const first = periodStart(day, frequency);
  const next = periodAfter(first, frequency);
  return {
    frequency,
    startDate: formatDay(first),
    endDate: formatDay(next - 1),
    startMs: startOfDay(tz, first) * 1000,
    endMs: startOfDay(tz, next) * 1000,
    firstDay: first,
    nextDay: next,
  };
}

export function previousPeriod(p: Period, tz: string): Period {
  return periodContaining(p.frequency, p.firstDay - 1, tz);
}

/** The period that ended last before `nowMs` (yesterday, last week, last month in the tenant's timezone). */
export function lastEndedPeriod(frequency: Frequency, nowMs: number, tz: string): Period {
  return previousPeriod(periodContaining(frequency, localDay(tz, Math.floor(nowMs / 1000)), tz), tz);
}

/** When a period's report is due: `hour` o'clock local time on the day after it ends (a Monday, a 1st). */
export function dueAt(p: Period, hour: number, tz: string): number {
  return wallToInstant(tz, p.nextDay * 86_400 + hour * 3600) * 1000;
}

/**
 * Every period whose report fell due in (fromMs, toMs], oldest first: the scheduler sends these, so a
 * period due while the server was down is sent when it is back.
 */
export function periodsDueBetween(frequency: Frequency, fromMs: number, toMs: number, hour: number, tz: string): Period[] {
  const out: Period[] = [];
  let p = lastEndedPeriod(frequency, toMs, tz);
  // The period that just ended is not due before the hour: then the one before it is the latest due.
  if (dueAt(p, hour, tz) > toMs) p = previousPeriod(p, tz);
  while (dueAt(p, hour, tz) > fromMs) {
    out.unshift(p);
    p = previousPeriod(p, tz);
  }
  return out;
}

export function periodLabel(p: Period): string {
  if (p.frequency === 'daily') return p.startDate;
  if (p.frequency === 'weekly') return `week of ${p.startDate} to ${p.endDate}`;
  const [y, m] = p.startDate.split('-').map(Number) as [number, number];
  return `${new Date(Date.UTC(y, m - 1, 1)).toLocaleString('en-US', { month: 'long', timeZone: 'UTC' })} ${y}`;
}

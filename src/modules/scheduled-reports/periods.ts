import { addDays, addMonths, formatDate, localParts, mondayOf, startOfDay, zonedToInstant, type CivilDate } from '../../time/zoned';

export type Frequency = 'daily' | 'weekly' | 'monthly';
export const FREQUENCIES: readonly Frequency[] = ['daily', 'weekly', 'monthly'];

/**
 * A report period in a tenant's timezone: a local day, a Monday-to-Sunday week, or a calendar month,
 * from local midnight to local midnight (23, 24 or 25 hours a day across DST).
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
}

function firstDay(frequency: Frequency, day: CivilDate): CivilDate {
  if (frequency === 'daily') return day;
  if (frequency === 'weekly') return mondayOf(day);
  return { year: day.year, month: day.month, day: 1 };
}

function nextFirstDay(frequency: Frequency, first: CivilDate): CivilDate {
  if (frequency === 'daily') return addDays(first, 1);
  if (frequency === 'weekly') return addDays(first, 7);
  return addMonths(first, 1);
}

/** The period of `frequency` that contains the local day `day`. */
export function periodContaining(frequency: Frequency, day: CivilDate, tz: string): Period {
  const first = firstDay(frequency, day);
  const next = nextFirstDay(frequency, first);
  return {
    frequency,
    startDate: formatDate(first),
    endDate: formatDate(addDays(next, -1)),
    startMs: startOfDay(first, tz),
    endMs: startOfDay(next, tz),
  };
}

/** The period after `p`. */
export function nextPeriod(p: Period, tz: string): Period {
  return periodContaining(p.frequency, civil(p.endDate, 1), tz);
}

export function previousPeriod(p: Period, tz: string): Period {
  return periodContaining(p.frequency, civil(p.startDate, -1), tz);
}

/** The period that ended last before `nowMs` (yesterday, last week, last month in the tenant's timezone). */
export function lastEndedPeriod(frequency: Frequency, nowMs: number, tz: string): Period {
  const today = localParts(nowMs, tz);
  return previousPeriod(periodContaining(frequency, today, tz), tz);
}

/** When a period's report is due: `hour` o'clock local time on the day after it ends (a Monday, a 1st). */
export function dueAt(p: Period, hour: number, tz: string): number {
  return zonedToInstant(civil(p.endDate, 1), hour, 0, 0, tz);
}

/**
 * Every period whose report fell due in (fromMs, toMs], oldest first: the scheduler sends these, so a
 * period due while the server was down is sent when it is back.
 */
export function periodsDueBetween(frequency: Frequency, fromMs: number, toMs: number, hour: number, tz: string): Period[] {
  const out: Period[] = [];
  let p = lastEndedPeriod(frequency, toMs, tz);
  // The last ended period may not be due yet today (before the hour): step back one.
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

function civil(date: string, plusDays: number): CivilDate {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return addDays({ year, month, day }, plusDays);
}

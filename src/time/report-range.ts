import { badRequest } from '../errors';
import { civilOf, dayNumber, formatDay, localDay, startOfDay, wallToInstant, weekdayOf } from './zone';

/**
 * The date range of a report and its periods (decisions.md §3, reporting.md R6 and R7). A range is
 * half-open, [start, end), in epoch seconds; periods are local calendar days, Monday weeks and months.
 */
export type ReportDate =
  | { readonly kind: 'date'; readonly day: number }
  | { readonly kind: 'wall'; readonly wall: number }
  | { readonly kind: 'instant'; readonly instant: number };

export interface ReportRange {
  readonly start: number;
  readonly end: number;
}

/** The hosted API's periods (R7). */
export type CalendarDistribution = 'daily' | 'weekly' | 'monthly' | 'totals';
/** Local clock intervals (R20). */
export type IntervalDistribution = 'hourly' | 'halfHourly' | 'quarterHourly';
/** Every distribution a report takes (R7, R20); report-rows.ts makes the rows of each. */
export type Distribution = CalendarDistribution | IntervalDistribution | 'hourOfDay' | 'dayOfWeek';
export const CALENDAR_DISTRIBUTIONS: readonly Distribution[] = ['daily', 'weekly', 'monthly', 'totals'];

export interface Period {
  /** The period's first day, YYYY-MM-DD (for totals: the start's day). */
  readonly date: string;
  readonly from: number;
  readonly to: number;
}

const MAX_RANGE_DAYS = 366;

const FORM = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** Reads a startDate/endDate value; 400 naming the field when it is not a real date and time. */
export function parseReportDate(field: string, text: string): ReportDate {
  const m = FORM.exec(text);
  const invalid = () => badRequest(`${field} must be a real date such as 2026-01-31, 2026-01-31 17:30:00 or 2026-01-31T17:30:00-06:00`);
  if (!m) throw invalid();
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const dayNum = dayNumber({ year, month, day });
  const back = civilOf(dayNum);
  if (back.year !== year || back.month !== month || back.day !== day) throw invalid();
  if (m[4] === undefined) return { kind: 'date', day: dayNum };
  const [h, mi, s] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)]; // fractional seconds dropped
  if (h > 23 || mi > 59 || s > 59) throw invalid();
  const wall = dayNum * 86_400 + h * 3600 + mi * 60 + s;
  if (m[7] === undefined) return { kind: 'wall', wall };
  if (m[7] === 'Z') return { kind: 'instant', instant: wall };
  const off = /^([+-])(\d{2}):?(\d{2})?$/.exec(m[7]) as RegExpExecArray;
  const [oh, om] = [Number(off[2]), Number(off[3] ?? 0)];
  if (oh > 23 || om > 59) throw invalid();
  return { kind: 'instant', instant: wall - (off[1] === '-' ? -1 : 1) * (oh * 3600 + om * 60) };
}

/** The instant of a start or end value in a timezone (a date-only end is the next day's start). */
export function instantOf(tz: string, d: ReportDate, isEnd: boolean): number {
  if (d.kind === 'date') return startOfDay(tz, isEnd ? d.day + 1 : d.day); // a date-only end includes that day
  return d.kind === 'wall' ? wallToInstant(tz, d.wall) : d.instant;
}

/** The range in a timezone; 400 when start is after end, or when it touches more than 366 local days. */
export function resolveRange(tz: string, start: ReportDate, end: ReportDate): ReportRange {
  const s = instantOf(tz, start, false);
  const e = instantOf(tz, end, true);
  if (s > e || (end.kind === 'date' && s >= e)) throw badRequest('startDate must not be after endDate');
  if (s < e && localDay(tz, e - 1) - localDay(tz, s) + 1 > MAX_RANGE_DAYS) {
    throw badRequest(`startDate and endDate must not be more than ${MAX_RANGE_DAYS} days apart`);
  }
  return { start: s, end: e };
}

/** One period per local day, week or month the range touches (R7); totals: one. An empty range has no periods but totals. */
export function periodsOf(tz: string, range: ReportRange, distribution: CalendarDistribution): Period[] {
  const { start, end } = range;
  const first = localDay(tz, start);
  if (distribution === 'totals') return [{ date: formatDay(first), from: start, to: end }];
  if (start === end) return [];
  const last = localDay(tz, end - 1);
  const out: Period[] = [];
  let day = periodStart(first, distribution);
  while (day <= last) {
    const next = periodAfter(day, distribution);
    out.push({ date: formatDay(day), from: Math.max(start, startOfDay(tz, day)), to: Math.min(end, startOfDay(tz, next)) });
    day = next;
  }
  return out;
}

/** The first day of the period of `distribution` that holds `day` (a Monday, a 1st). */
export function periodStart(day: number, distribution: CalendarDistribution): number {
  if (distribution === 'weekly') return day - weekdayOf(day);
  if (distribution === 'monthly') return dayNumber({ ...civilOf(day), day: 1 });
  return day;
}

/** The first day of the period after the one starting on `day`. */
export function periodAfter(day: number, distribution: CalendarDistribution): number {
  if (distribution === 'weekly') return day + 7;
  if (distribution === 'monthly') {
    const { year, month } = civilOf(day);
    return dayNumber({ year: month === 12 ? year + 1 : year, month: month === 12 ? 1 : month + 1, day: 1 });
  }
  return day + 1;
}

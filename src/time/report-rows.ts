import { badRequest } from '../errors';
import {
  periodsOf,
  periodStart,
  type CalendarDistribution,
  type Distribution,
  type IntervalDistribution,
  type ReportRange,
} from './report-range';
import { civilOf, dayNumber, formatDay, localDay, offsetsOver, startOfDay, weekdayOf } from './zone';

/**
 * The rows of a report for each distribution (reporting.md R7, R20). A row is a label (`date`), the instant its
 * period begins (`start`; null for hourOfDay and dayOfWeek, which gather pieces of many days) and the parts of
 * the range [S, E) it holds (`spans`, in time order, never overlapping): one for a period, several for an hour of
 * the day or a day of the week. A report sums each span and adds a row's spans up.
 */
export interface Span {
  readonly from: number;
  readonly to: number;
}

export interface ReportRow {
  readonly date: string;
  readonly start: number | null;
  readonly spans: readonly Span[];
}

/** A range longer than this many local days has no interval rows (R20). */
export const MAX_INTERVAL_DAYS = 31;

const INTERVAL_SECONDS: Readonly<Record<IntervalDistribution, number>> = { hourly: 3600, halfHourly: 1800, quarterHourly: 900 };
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;

export const isInterval = (d: Distribution): d is IntervalDistribution => d in INTERVAL_SECONDS;
export const isCalendar = (d: Distribution): d is CalendarDistribution =>
  d === 'daily' || d === 'weekly' || d === 'monthly' || d === 'totals';

export function reportRows(tz: string, range: ReportRange, distribution: Distribution): ReportRow[] {
  if (isCalendar(distribution)) return calendarRows(tz, range, distribution);
  if (range.start >= range.end) return []; // an empty range: no rows but the totals row (R6, R20)
  if (isInterval(distribution)) {
    const days = localDay(tz, range.end - 1) - localDay(tz, range.start) + 1;
    if (days > MAX_INTERVAL_DAYS)
      throw badRequest(
        `distribution ${distribution}: the range touches ${days} local days; hourly, halfHourly and quarterHourly rows are given for at most ${MAX_INTERVAL_DAYS}`,
      );
    return intervals(tz, range, INTERVAL_SECONDS[distribution]).map((i) => ({ date: i.label, start: i.start, spans: [i.span] }));
  }
  if (distribution === 'hourOfDay') return gathered(24, (h) => `${String(h).padStart(2, '0')}:00`, hoursOfDay(tz, range));
  return gathered(
    7,
    (d) => WEEKDAYS[d] as string,
    periodsOf(tz, range, 'daily').map((p) => ({ key: weekdayOf(dayOfLabel(p.date)), span: { from: p.from, to: p.to } })),
  );
}

function calendarRows(tz: string, range: ReportRange, distribution: CalendarDistribution): ReportRow[] {
  return periodsOf(tz, range, distribution).map((p) => ({
    date: p.date,
    start: distribution === 'totals' ? range.start : startOfDay(tz, periodStart(dayOfLabel(p.date), distribution)),
    spans: [{ from: p.from, to: p.to }],
  }));
}

function dayOfLabel(date: string): number {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return dayNumber({ year, month, day });
}

interface Interval {
  /** Local start, `YYYY-MM-DD HH:MM`. */
  readonly label: string;
  /** Its first instant, also when that is before S. */
  readonly start: number;
  /** Its part of [S, E). */
  readonly span: Span;
  /** Its local hour (0–23). */
  readonly hour: number;
}

/**
 * The local clock intervals of `size` seconds that [S, E) touches. Every offset in use is a whole number of
 * quarter hours, so local quarter hours are UTC quarter hours: the walk goes from quarter to quarter and starts
 * an interval where the local clock shows a multiple of `size` (01:00 twice on the day DST ends: two intervals;
 * 02:00 never on the day it begins: none) or enters another interval (a change that skips a boundary).
 */
function intervals(tz: string, range: ReportRange, size: number): Interval[] {
  const QUARTER = 900;
  const offset = offsetsOver(tz, range.start - size, range.end);
  const wall = (t: number) => t + offset(t);
  const starts = (t: number) => wall(t) % size === 0 || Math.floor(wall(t) / size) !== Math.floor(wall(t - QUARTER) / size);
  let t = Math.floor(range.start / QUARTER) * QUARTER;
  while (!starts(t)) t -= QUARTER;
  const out: Interval[] = [];
  let begin = t;
  for (t += QUARTER; begin < range.end; t += QUARTER) {
    if (!starts(t) && t < range.end) continue;
    const local = Math.floor(wall(begin) / size) * size;
    const { year, month, day } = civilOf(Math.floor(local / 86_400));
    const hh = Math.floor((local % 86_400) / 3600);
    const mm = Math.floor((local % 3600) / 60);
    const label = `${formatDay(dayNumber({ year, month, day }))} ${String(hh).padStart(2, '0')}:${String(mm).padStart(2, '0')}`;
    out.push({ label, start: begin, span: { from: Math.max(begin, range.start), to: Math.min(t, range.end) }, hour: hh });
    begin = t;
  }
  return out;
}

function hoursOfDay(tz: string, range: ReportRange): { key: number; span: Span }[] {
  return intervals(tz, range, 3600).map((i) => ({ key: i.hour, span: i.span }));
}

/** Rows 0 … count-1 of spans keyed by row, adjacent spans of one row joined (the two 01:00 hours of a fall-back day). */
function gathered(count: number, label: (key: number) => string, parts: readonly { key: number; span: Span }[]): ReportRow[] {
  const spans: Span[][] = Array.from({ length: count }, () => []);
  for (const { key, span } of parts) {
    const list = spans[key] as Span[];
    const last = list[list.length - 1];
    if (last && last.to === span.from) list[list.length - 1] = { from: last.from, to: span.to };
    else if (span.from < span.to) list.push(span);
  }
  return spans.map((list, key) => ({ date: label(key), start: null, spans: list }));
}

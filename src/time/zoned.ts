/**
 * Civil dates and wall-clock times in an IANA timezone, on Intl alone (no timezone database of our own:
 * the runtime's ICU data is the one the rest of the system agrees with).
 */

/** A calendar date, month 1–12. */
export interface CivilDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

export interface LocalParts extends CivilDate {
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  /** 1 = Monday … 7 = Sunday (ISO). */
  readonly weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** The wall-clock reading of an instant in `tz`. */
export function localParts(instantMs: number, tz: string): LocalParts {
  const parts: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(new Date(instantMs))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const date = { year: parts.year as number, month: parts.month as number, day: parts.day as number };
  return { ...date, hour: parts.hour as number, minute: parts.minute as number, second: parts.second as number, weekday: isoWeekday(date) };
}

/** UTC offset of `tz` at an instant, in milliseconds (local − UTC). */
export function offsetAt(instantMs: number, tz: string): number {
  const p = localParts(Math.floor(instantMs / 1000) * 1000, tz);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(instantMs / 1000) * 1000;
}

/**
 * The instant of a wall-clock time in `tz`, resolved like Python's zoneinfo with fold=0: a time that
 * occurs twice takes its first occurrence; a time that does not exist (spring-forward gap) is read with
 * the offset in force before the change, which lands after the gap.
 */
export function zonedToInstant(date: CivilDate, hour: number, minute: number, second: number, tz: string): number {
  const wall = Date.UTC(date.year, date.month - 1, date.day, hour, minute, second);
  const before = offsetAt(wall - 12 * 3600_000, tz);
  const after = offsetAt(wall + 12 * 3600_000, tz);
  const first = wall - before;
  if (offsetAt(first, tz) === before) return first; // valid with the earlier offset (also the first of two)
  const second_ = wall - after;
  if (offsetAt(second_, tz) === after) return second_;
  return first; // in the gap
}

/** Local midnight at the start of `date` in `tz`. */
export function startOfDay(date: CivilDate, tz: string): number {
  return zonedToInstant(date, 0, 0, 0, tz);
}

export function addDays(date: CivilDate, days: number): CivilDate {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

export function addMonths(date: CivilDate, months: number): CivilDate {
  const d = new Date(Date.UTC(date.year, date.month - 1 + months, 1));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: Math.min(date.day, daysInMonth(d.getUTCFullYear(), d.getUTCMonth() + 1)) };
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

export function isoWeekday(date: CivilDate): number {
  const wd = new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay();
  return wd === 0 ? 7 : wd;
}

/** The Monday of the ISO week that contains `date`. */
export function mondayOf(date: CivilDate): CivilDate {
  return addDays(date, 1 - isoWeekday(date));
}

export function formatDate(date: CivilDate): string {
  return `${String(date.year).padStart(4, '0')}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`;
}

/** "YYYY-MM-DD" → CivilDate, or undefined when it is not a real date. */
export function parseDate(text: string): CivilDate | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return undefined;
  const date = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
  if (date.month < 1 || date.month > 12 || date.day < 1 || date.day > daysInMonth(date.year, date.month)) return undefined;
  return date;
}

export function compareDates(a: CivilDate, b: CivilDate): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}

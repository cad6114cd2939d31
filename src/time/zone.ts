/**
 * Wall-clock time in an IANA timezone, with the offsets the runtime's ICU knows. Times are epoch seconds.
 * Civil dates are "day numbers": days since 1970-01-01 of the proleptic Gregorian calendar.
 */

/** The zone of the machine TARS runs on (honours TZ): the PBX's when TARS runs beside it (reporting.md R16). */
export const machineZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(tz: string): Intl.DateTimeFormat {
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
      era: 'short',
    });
    formatters.set(tz, f);
  }
  return f;
}

/**
 * Offsets already computed, by zone and instant: asking ICU takes about 10 us, and a report asks for the
 * same instants (its range, its periods) every time it is run. Exact instants, so never a stale answer;
 * emptied when full.
 */
const offsets = new Map<string, number>();
const OFFSETS_KEPT = 20_000;

/** Local time minus UTC, in seconds, at the instant `t`. */
export function offsetAt(tz: string, t: number): number {
  if (tz === 'UTC') return 0;
  const key = `${tz} ${t}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    if (offsets.size >= OFFSETS_KEPT) offsets.clear();
    offset = icuOffsetAt(tz, t);
    offsets.set(key, offset);
  }
  return offset;
}

function icuOffsetAt(tz: string, t: number): number {
  const p: Record<string, string> = {};
  for (const part of formatterOf(tz).formatToParts(new Date(t * 1000))) p[part.type] = part.value;
  const year = p.era === 'BC' || p.era === 'B' ? 1 - Number(p.year) : Number(p.year);
  const local = Date.UTC(year, Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second)) / 1000;
  return local - Math.floor(t);
}

/**
 * The instant of a wall-clock time, resolved like Python's zoneinfo with fold=0 (reporting.md R6): a time
 * that occurs twice is its first occurrence; a time that does not exist (a DST gap) is read with the offset
 * in force before the change, which lands after the gap. `wall` is the wall-clock time written as if UTC.
 */
export function wallToInstant(tz: string, wall: number): number {
  if (tz === 'UTC') return wall;
  // Offsets a day either side bracket the answer: no zone is more than 14 h from UTC.
  const before = offsetAt(tz, wall - 86_400);
  const after = offsetAt(tz, wall + 86_400);
  if (offsetAt(tz, wall - before) === before) return wall - before;
  if (offsetAt(tz, wall - after) === after) return wall - after;
  return wall - before; // in a gap
}

export interface CivilDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

export function dayNumber(d: CivilDate): number {
  return Math.floor(Date.UTC(d.year, d.month - 1, d.day) / 86_400_000);
}

export function civilOf(dayNum: number): CivilDate {
  const d = new Date(dayNum * 86_400_000);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** The local day (day number) of the instant `t`. */
export function localDay(tz: string, t: number): number {
  return Math.floor((t + offsetAt(tz, t)) / 86_400);
}

const dayStarts = new Map<string, number>();

/**
 * The instant at which local day `dayNum` begins (its midnight, or the first moment after a gap). Memoised:
 * reports ask for the same days again and again.
 */
export function startOfDay(tz: string, dayNum: number): number {
  const key = `${tz}|${dayNum}`;
  let t = dayStarts.get(key);
  if (t === undefined) {
    if (dayStarts.size >= 200_000) dayStarts.clear();
    t = wallToInstant(tz, dayNum * 86_400);
    dayStarts.set(key, t);
  }
  return t;
}

/** 0 = Monday … 6 = Sunday. */
export function weekdayOf(dayNum: number): number {
  return (((dayNum + 3) % 7) + 7) % 7; // 1970-01-01 was a Thursday
}

export function formatDay(dayNum: number): string {
  const { year, month, day } = civilOf(dayNum);
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** The instant `t` as ISO 8601 in the zone's local time with its offset: `2026-11-01T01:00:00-05:00` (UTC: `+00:00`). */
export function isoInZone(tz: string, t: number): string {
  return isoWithOffset(t, offsetAt(tz, t));
}

/**
 * isoInZone for the many instants of a report over [from, to] (a year of agent sessions: some 800,000), its
 * offsets read once a day by offsetsOver: offsetAt keeps 20,000 instants, so such a report asked ICU at nearly
 * every one. An instant outside [from, to] is written by isoInZone.
 */
export function isoInZoneOver(tz: string, from: number, to: number): (t: number) => string {
  const offset = offsetsOver(tz, from, to);
  return (t) => (t >= from && t <= to ? isoWithOffset(t, offset(t)) : isoInZone(tz, t));
}

function isoWithOffset(t: number, offset: number): string {
  const local = new Date((t + offset) * 1000).toISOString().slice(0, 19);
  const abs = Math.abs(offset);
  const hh = String(Math.floor(abs / 3600)).padStart(2, '0');
  const mm = String(Math.floor((abs % 3600) / 60)).padStart(2, '0');
  return `${local}${offset < 0 ? '-' : '+'}${hh}:${mm}`;
}

/** The local wall-clock time of `t` written as if UTC (seconds), as wallToInstant takes it back. */
export const wallOf = (tz: string, t: number): number => t + offsetAt(tz, t);

/**
 * The zone's offset over [from, to) as a function of the instant, for code that asks for thousands of instants of
 * one range (the rows of an hour-of-day report over a year): the offset is read once a day and where two days'
 * offsets differ the change is found by bisection, so that ICU is asked a few hundred times, not once per instant.
 * (A zone changes its offset at most a few times a year, never twice in a day.)
 */
export function offsetsOver(tz: string, from: number, to: number): (t: number) => number {
  if (tz === 'UTC') return () => 0;
  const changes: { at: number; offset: number }[] = [{ at: -Infinity, offset: icuOffsetAt(tz, from) }];
  let before = changes[0] as { offset: number };
  for (let t = from + 86_400; ; t = Math.min(t + 86_400, to)) {
    const offset = icuOffsetAt(tz, t);
    if (offset !== before.offset) {
      let lo = t - 86_400; // offset there is before.offset
      let hi = t;
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (icuOffsetAt(tz, mid) === before.offset) lo = mid;
        else hi = mid;
      }
      before = { offset };
      changes.push({ at: hi, offset });
    }
    if (t >= to) break;
  }
  return (t) => {
    let i = changes.length - 1;
    while (i > 0 && (changes[i] as { at: number }).at > t) i--;
    return (changes[i] as { offset: number }).offset;
  };
}

// Made on first use: listing the zones takes milliseconds the start does not need.
let ianaTimezones: ReadonlySet<string> | undefined;

/** An IANA timezone name (or UTC) this runtime knows. */
export function isTimezone(name: string): boolean {
  ianaTimezones ??= new Set(['UTC', ...Intl.supportedValuesOf('timeZone')]);
  return ianaTimezones.has(name) || isKnownZone(name);
}

function isKnownZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return /^[A-Za-z]+(?:[/_+-][A-Za-z0-9_+-]+)*$/.test(name);
  } catch {
    return false;
  }
}

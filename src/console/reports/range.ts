/**
 * A report's range as a supervisor picks it: a preset (today, yesterday, this week, the last 7 days, this month)
 * or two days of their own, always as local days of the tenant's timezone. The API takes date-only bounds, and an
 * endDate that is a date includes its whole day (api.md §4.3), so a range here is two YYYY-MM-DD strings.
 */
export type Preset = 'today' | 'yesterday' | 'thisWeek' | 'last7' | 'thisMonth' | 'custom';

export const PRESETS: readonly { readonly value: Preset; readonly label: string }[] = [
  { value: 'today', label: 'Today' },
  { value: 'yesterday', label: 'Yesterday' },
  { value: 'thisWeek', label: 'This week (from Monday)' },
  { value: 'last7', label: 'Last 7 days' },
  { value: 'thisMonth', label: 'This month' },
  { value: 'custom', label: 'Custom' },
];

export interface DayRange {
  readonly startDate: string;
  readonly endDate: string;
}

/** The local day of an instant in a zone, as YYYY-MM-DD (en-CA writes dates in that order). */
export function dayIn(zone: string, at: number): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(at));
}

/** A calendar day plus n days (days are counted on the calendar, so a DST change in the zone moves nothing). */
export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** Monday 0 … Sunday 6 of a calendar day. */
const weekday = (day: string) => (new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7;

/** The days a preset means at `now` in `zone`; `custom` keeps the days given. */
export function rangeOf(preset: Preset, zone: string, now: number, custom?: DayRange): DayRange {
  const today = dayIn(zone, now);
  switch (preset) {
    case 'today':
      return { startDate: today, endDate: today };
    case 'yesterday':
      return { startDate: addDays(today, -1), endDate: addDays(today, -1) };
    case 'thisWeek':
      return { startDate: addDays(today, -weekday(today)), endDate: today };
    case 'last7':
      return { startDate: addDays(today, -6), endDate: today };
    case 'thisMonth':
      return { startDate: `${today.slice(0, 8)}01`, endDate: today };
    case 'custom':
      return custom ?? { startDate: today, endDate: today };
  }
}

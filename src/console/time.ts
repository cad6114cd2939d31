import { signal } from '@preact/signals';

/**
 * Times and durations as the console shows them. Every clock time is in the tenant's timezone with the zone
 * named; every duration (a wait, a time in state) is counted on TARS's clock: from the instants the server
 * sends (when TARS learned them) to the server's now, which is the client's now corrected by the offset the
 * last whole state (its generatedAt) showed. A client whose clock is off changes nothing.
 */
export const now = signal(Date.now());
setInterval(() => (now.value = Date.now()), 1000);

/** Server time less client time, from the last `generatedAt` received (ms). */
let offsetMs = 0;
export function learnServerTime(generatedAt: string): void {
  const t = Date.parse(generatedAt);
  if (Number.isFinite(t)) offsetMs = t - Date.now();
}
export const serverNow = (client = now.value) => client + offsetMs;

/** Seconds from an instant of the server's to now, on the server's clock (never below 0). */
export function secondsSince(iso: string | null | undefined, client = now.value): number | undefined {
  if (!iso) return undefined;
  const t = Date.parse(iso);
  return Number.isFinite(t) ? Math.max(0, Math.floor((serverNow(client) - t) / 1000)) : undefined;
}

/** 75 → "1:15", 3725 → "1:02:05". */
export function duration(seconds: number | undefined): string {
  if (seconds === undefined) return '–';
  const s = Math.floor(seconds % 60);
  const m = Math.floor(seconds / 60) % 60;
  const h = Math.floor(seconds / 3600);
  const two = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

/** The same, in words for screen readers ("1 minute 15 seconds"). */
export function durationWords(seconds: number | undefined): string {
  if (seconds === undefined) return 'unknown';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor(seconds / 60) % 60;
  const s = Math.floor(seconds % 60);
  const part = (n: number, w: string) => (n ? `${n} ${w}${n === 1 ? '' : 's'}` : '');
  return [part(h, 'hour'), part(m, 'minute'), part(s, 'second')].filter(Boolean).join(' ') || '0 seconds';
}

/**
 * Intl formatters are made once per zone and options and kept: making one reads the locale's data (about 0.1 ms
 * each), and the wallboard formats a dozen figures per tile per event and its clock every second, in each of 50 open
 * pages of the benchmark (docs/performance.md, "Wallboard": making them was the page's largest cost).
 */
const formats = new Map<string, Intl.DateTimeFormat>();
function dateFormat(key: string, make: () => Intl.DateTimeFormat): Intl.DateTimeFormat {
  let f = formats.get(key);
  if (!f) formats.set(key, (f = make()));
  return f;
}

/** A clock time in a zone: "14:05:09". */
export function clockTime(iso: string | number, zone: string): string {
  return dateFormat(
    `clock ${zone}`,
    () =>
      new Intl.DateTimeFormat(undefined, {
        timeZone: zone,
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23',
      }),
  ).format(new Date(iso));
}

/** A date and time in a zone: "26 Nov 2026, 14:05". */
export function dateTime(iso: string | number, zone: string): string {
  return dateFormat(
    `date ${zone}`,
    () => new Intl.DateTimeFormat(undefined, { timeZone: zone, dateStyle: 'medium', timeStyle: 'short', hourCycle: 'h23' }),
  ).format(new Date(iso));
}

/** The zone as shown beside times: "Europe/Berlin (CET)". */
export function zoneName(zone: string, at: number = Date.now()): string {
  const short = dateFormat(`zone ${zone}`, () => new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'short' }))
    .formatToParts(new Date(at))
    .find((p) => p.type === 'timeZoneName')?.value;
  return short && short !== zone ? `${zone} (${short})` : zone;
}

const integerFormat = new Intl.NumberFormat();
const percentFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
export const integer = (n: number) => integerFormat.format(n);
/** 58.4 → "58.4 %", the sign never on a line of its own (a no-break space). */
export const percent = (n: number | null) => (n === null ? '–' : `${percentFormat.format(n)}\u00a0%`);

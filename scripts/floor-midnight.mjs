// The one piece of date arithmetic the HTTP floors (scripts/bench-floor.mjs, scripts/bench-floor-pg.mjs) share: the
// same work per request on both drivers.
// Local midnight of America/Chicago as a Unix time, for YYYY-MM-DD (the offset read with Intl, cached by day).
const midnights = new Map();
const chicago = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/Chicago',
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
});
export function chicagoMidnight(day) {
  let t = midnights.get(day);
  if (t === undefined) {
    const utc = Date.parse(`${day}T00:00:00Z`) / 1000;
    const p = Object.fromEntries(chicago.formatToParts(new Date((utc + 6 * 3600) * 1000)).map((x) => [x.type, x.value]));
    const wall = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute)) / 1000;
    t = utc + 6 * 3600 - (wall - utc); // the instant whose Chicago wall time is 00:00 of `day`
    midnights.set(day, t);
  }
  return t;
}

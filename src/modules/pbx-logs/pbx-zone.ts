import { wallToInstant } from '../../time/zone';
import { digitsAt } from './digits';

/**
 * The PBX's wall clock (reporting.md R16): cdr_csv writes local time unless `usegmtime = yes`, and so do
 * realtime queue_log exports with datetime times. Wall times are read in this zone, resolved as R6 resolves
 * a time that occurs twice or never. The offset is kept per wall-clock hour: asking ICU costs about 10 us,
 * and every hour of a log has thousands of lines; an hour in which the offset changes is resolved per time.
 */
export class PbxZone {
  private readonly hours = new Map<number, number | null>();

  constructor(readonly name: string) {}

  /** The instant of a wall-clock time given as if it were UTC epoch seconds. */
  instantOf(wall: number): number {
    if (this.name === 'UTC') return wall;
    const hour = Math.floor(wall / 3600);
    let offset = this.hours.get(hour);
    if (offset === undefined) {
      const first = hour * 3600;
      const a = first - wallToInstant(this.name, first);
      const b = first + 3599 - wallToInstant(this.name, first + 3599);
      offset = a === b ? a : null;
      if (this.hours.size > 50_000) this.hours.clear();
      this.hours.set(hour, offset);
    }
    return offset === null ? wallToInstant(this.name, wall) : wall - offset;
  }
}

export const UTC_ZONE = new PbxZone('UTC');

/** Days from 1970-01-01 to a civil date (H. Hinnant's days_from_civil): no Date object per call. */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  return era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468;
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * "2026-10-31 06:21:43" → that wall-clock time as if it were UTC, in epoch seconds; null when not that form or
 * not a real date and time. Exports may add a fraction (".123456"): it is dropped.
 */
export function parseWallTime(text: string): number | null {
  if (text.length > 19 && text[19] === '.' && digitsAt(text, 20, text.length) >= 0) text = text.slice(0, 19);
  if (text.length !== 19 || text[4] !== '-' || text[7] !== '-' || text[10] !== ' ' || text[13] !== ':' || text[16] !== ':') return null;
  const [y, mo, d, h, mi, s] = [
    digitsAt(text, 0, 4),
    digitsAt(text, 5, 7),
    digitsAt(text, 8, 10),
    digitsAt(text, 11, 13),
    digitsAt(text, 14, 16),
    digitsAt(text, 17, 19),
  ];
  if (y < 0 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59) return null;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (d > (mo === 2 && !leap ? 28 : (DAYS_IN_MONTH[mo - 1] as number))) return null;
  return daysFromCivil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s;
}

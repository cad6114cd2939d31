/**
 * One record of an Asterisk Master.csv (cdr_csv column order), read by the rules of reporting.md R8:
 * one record per physical line, CSV with "" as the escaped quote, times in UTC. Pure.
 *
 * Columns: accountcode, src, dst, dcontext, clid, channel, dstchannel, lastapp, lastdata, start, answer,
 * end, duration, billsec, disposition, amaflags, uniqueid, userfield (the last three are optional).
 */

import { digitsAt } from './digits';

export const CDR_SKIPS = {
  blank: 'blank line',
  notCsv: 'not valid CSV',
  short: 'fewer than 15 columns',
  badStart: 'start is not YYYY-MM-DD HH:MM:SS',
  badNumber: 'duration or billsec is not an integer',
} as const;
export type CdrSkip = (typeof CDR_SKIPS)[keyof typeof CDR_SKIPS];

export interface CdrRecord {
  readonly src: string;
  readonly dst: string;
  readonly clid: string;
  readonly channel: string;
  readonly dstChannel: string;
  readonly lastApp: string;
  readonly lastData: string;
  /** Epoch seconds (UTC). */
  readonly start: number;
  readonly answer: number | null;
  readonly end: number;
  readonly duration: number;
  readonly billsec: number;
  readonly disposition: string;
  readonly uniqueId: string;
}

/** The fields of one CSV line, or null when it is not valid CSV (an unclosed quote, text after a closing quote). */
export function splitCsvLine(line: string): string[] | null {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    if (line.charCodeAt(i) === 34 /* " */) {
      let value = '';
      let j = i + 1;
      for (;;) {
        const q = line.indexOf('"', j);
        if (q < 0) return null;
        value += line.slice(j, q);
        if (line.charCodeAt(q + 1) === 34) {
          value += '"';
          j = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      out.push(value);
      if (i === line.length) return out;
      if (line.charCodeAt(i) !== 44 /* , */) return null;
      i++;
    } else {
      const comma = line.indexOf(',', i);
      const value = line.slice(i, comma < 0 ? line.length : comma);
      if (value.includes('"')) return null;
      out.push(value);
      if (comma < 0) return out;
      i = comma + 1;
    }
  }
}

const INTEGER = /^-?\d+$/;

/** Days from 1970-01-01 to a civil date (H. Hinnant's days_from_civil): no Date object per call. */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  return era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468;
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** "2026-10-31 06:21:43" (UTC) → epoch seconds; null when not that form or not a real date and time. */
function parseCdrTime(text: string): number | null {
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

export function parseCdrLine(line: string): CdrRecord | CdrSkip {
  if (line.trim() === '') return CDR_SKIPS.blank;
  const f = splitCsvLine(line);
  if (!f) return CDR_SKIPS.notCsv;
  if (f.length < 15) return CDR_SKIPS.short;
  const start = parseCdrTime(f[9] as string);
  if (start === null) return CDR_SKIPS.badStart;
  if (!INTEGER.test(f[12] as string) || !INTEGER.test(f[13] as string)) return CDR_SKIPS.badNumber;
  const duration = Number(f[12]);
  return {
    src: f[1] as string,
    dst: f[2] as string,
    clid: f[4] as string,
    channel: f[5] as string,
    dstChannel: f[6] as string,
    lastApp: f[7] as string,
    lastData: f[8] as string,
    start,
    answer: parseCdrTime(f[10] as string),
    end: parseCdrTime(f[11] as string) ?? start + Math.max(0, duration),
    duration,
    billsec: Number(f[13]),
    disposition: f[14] as string,
    uniqueId: f[16] ?? '',
  };
}

/** The agent of a channel: the text before its last "-" (PJSIP/101-0000001a → PJSIP/101); "" when there is none. */
export function channelAgent(channel: string): string {
  const dash = channel.lastIndexOf('-');
  return dash > 0 ? channel.slice(0, dash) : '';
}

/** The caller's name of a clid such as `"Bob Jones" <102>`; "" when the clid carries no name. */
export function callerNameOf(clid: string): string {
  const m = /^\s*(?:"(.*)"|([^<]*?))\s*<[^>]*>\s*$/.exec(clid);
  return m ? (m[1] ?? m[2] ?? '').trim() : '';
}

/**
 * One record of an Asterisk Master.csv (cdr_csv column order), read by the rules of reporting.md R8:
 * one record per physical line, CSV with "" as the escaped quote, times in UTC. Pure.
 *
 * Columns: accountcode, src, dst, dcontext, clid, channel, dstchannel, lastapp, lastdata, start, answer,
 * end, duration, billsec, disposition, amaflags, uniqueid, userfield (the last three are optional).
 */

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

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const INTEGER = /^-?\d+$/;

/** "2026-10-31 06:21:43" (UTC) → epoch seconds; null when not that form or not a real date and time. */
export function parseCdrTime(text: string): number | null {
  const m = DATE_TIME.exec(text);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(ms);
  if (back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return null;
  return ms / 1000;
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

import { pbxNameKey } from '../../pbx-name';

/**
 * One record of an Asterisk Master.csv, read by the rules of reporting.md R8, R16 and R17: one record per
 * physical line, CSV with "" as the escaped quote, wall-clock times of the PBX's zone. Pure.
 *
 * cdr_csv's columns (cdr/cdr_csv.c): accountcode, src, dst, dcontext, clid, channel, dstchannel, lastapp,
 * lastdata, start, answer, end, duration, billsec, disposition, amaflags, uniqueid, userfield (the last three
 * optional), then any columns a newer Asterisk or a configuration adds (sequence, linkedid, peeraccount …).
 * Other layouts (MySQL and GUI exports with a header row, cdr_custom) name their columns (CdrLayout).
 */

import { parseWallTime, UTC_ZONE, type PbxZone } from './pbx-zone';

/** The columns a record is read from; the rest of a row is ignored. */
const FIELDS = [
  'src',
  'dst',
  'clid',
  'channel',
  'dstchannel',
  'lastapp',
  'lastdata',
  'start',
  'answer',
  'end',
  'duration',
  'billsec',
  'disposition',
  'uniqueid',
] as const;
export type CdrField = (typeof FIELDS)[number];
const REQUIRED: readonly CdrField[] = ['src', 'dst', 'channel', 'dstchannel', 'lastapp', 'start', 'duration', 'billsec', 'disposition'];
/** Names exports use for a column: MySQL's cdr table has `calldate` where cdr_csv has `start`. */
const SYNONYMS: Readonly<Record<string, CdrField>> = { calldate: 'start', callerid: 'clid', dstchan: 'dstchannel' };

/** Where each column is: its index (-1: absent, only for the optional ones). */
export interface CdrLayout {
  readonly index: Readonly<Record<CdrField, number>>;
  /** Rows with fewer columns are skipped. */
  readonly minColumns: number;
  /** The columns in order, for messages. */
  readonly names: readonly string[];
}

const CDR_CSV_COLUMNS = [
  'accountcode',
  'src',
  'dst',
  'dcontext',
  'clid',
  'channel',
  'dstchannel',
  'lastapp',
  'lastdata',
  'start',
  'answer',
  'end',
  'duration',
  'billsec',
  'disposition',
  'amaflags',
  'uniqueid',
  'userfield',
];

/** cdr_csv's own order: 15 columns at least, any number after userfield. */
export const CDR_CSV_LAYOUT: CdrLayout = { ...(layoutOf(CDR_CSV_COLUMNS) as CdrLayout), minColumns: 15 };

/** A layout from column names (a header row, or `--columns`); a message when a needed column is missing. */
export function layoutOf(names: readonly string[]): CdrLayout | string {
  const index = Object.fromEntries(FIELDS.map((f) => [f, -1])) as Record<CdrField, number>;
  names.forEach((raw, i) => {
    const name = pbxNameKey(raw.trim());
    const field = (SYNONYMS[name] ?? name) as CdrField;
    if (FIELDS.includes(field) && index[field] < 0) index[field] = i;
  });
  const missing = REQUIRED.filter((f) => index[f] < 0);
  if (missing.length > 0) return `the columns ${missing.join(', ')} are missing (found: ${names.join(', ')})`;
  return { index, minColumns: Math.max(...REQUIRED.map((f) => index[f])) + 1, names };
}

/** A first row that names columns (`calldate` or `start`, `src`, `dst` …) rather than holding a call. */
export function isHeaderRow(fields: readonly string[]): boolean {
  const names = new Set(fields.map((f) => pbxNameKey(f.trim())));
  return (names.has('calldate') || names.has('start')) && names.has('src') && names.has('dst');
}

export const CDR_SKIPS = {
  blank: 'blank line',
  notCsv: 'not valid CSV',
  short: 'fewer columns than the layout needs',
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
  /** Epoch seconds: the wall-clock `start` read in the PBX's zone. */
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

/** A wall-clock time of the row read in the PBX's zone (R16), or null. */
function timeOf(text: string | undefined, zone: PbxZone): number | null {
  const wall = text === undefined ? null : parseWallTime(text);
  return wall === null ? null : zone.instantOf(wall);
}

/** `f[i]`, "" when the layout has no such column or the row stops before it. */
const column = (f: readonly string[], i: number): string => (i < 0 ? '' : (f[i] ?? ''));

export function parseCdrLine(line: string, layout: CdrLayout = CDR_CSV_LAYOUT, zone: PbxZone = UTC_ZONE): CdrRecord | CdrSkip {
  if (line.trim() === '') return CDR_SKIPS.blank;
  const f = splitCsvLine(line);
  if (!f) return CDR_SKIPS.notCsv;
  if (f.length < layout.minColumns) return CDR_SKIPS.short;
  const at = layout.index;
  const start = timeOf(f[at.start], zone);
  if (start === null) return CDR_SKIPS.badStart;
  const durationText = column(f, at.duration);
  const billsecText = column(f, at.billsec);
  if (!INTEGER.test(durationText) || !INTEGER.test(billsecText)) return CDR_SKIPS.badNumber;
  const duration = Number(durationText);
  return {
    src: column(f, at.src),
    dst: column(f, at.dst),
    clid: column(f, at.clid),
    channel: column(f, at.channel),
    dstChannel: column(f, at.dstchannel),
    lastApp: column(f, at.lastapp),
    lastData: column(f, at.lastdata),
    start,
    answer: timeOf(column(f, at.answer), zone),
    end: timeOf(column(f, at.end), zone) ?? start + Math.max(0, duration),
    duration,
    billsec: Number(billsecText),
    disposition: column(f, at.disposition),
    uniqueId: column(f, at.uniqueid),
  };
}

/**
 * A CDR record from AMI's `Cdr` event (cdr_manager: the same fields as a Master.csv row, named, its times the
 * same wall clock), or null when its start is unreadable.
 */
export function cdrRecordOfAmi(m: Readonly<Record<string, string | undefined>>, zone: PbxZone): CdrRecord | null {
  const start = timeOf(m.StartTime, zone);
  if (start === null) return null;
  const duration = Number(m.Duration);
  const billsec = Number(m.BillableSeconds);
  return {
    src: m.Source ?? '',
    dst: m.Destination ?? '',
    clid: m.CallerID ?? '',
    channel: m.Channel ?? '',
    dstChannel: m.DestinationChannel ?? '',
    lastApp: m.LastApplication ?? '',
    lastData: m.LastData ?? '',
    start,
    answer: timeOf(m.AnswerTime, zone),
    end: timeOf(m.EndTime, zone) ?? start + (Number.isFinite(duration) ? Math.max(0, duration) : 0),
    duration: Number.isFinite(duration) ? duration : 0,
    billsec: Number.isFinite(billsec) ? billsec : 0,
    disposition: m.Disposition ?? '',
    uniqueId: m.UniqueID ?? '',
  };
}

/**
 * What names one CDR row in both of its sources (a Master.csv line, AMI's Cdr event) when the CSV carries no
 * uniqueid (cdr_csv's default): its channels, application, times and outcome (one channel can leave several
 * rows with the same start: a failed Dial's 0-second Hangup row beside it).
 */
export const cdrKey = (r: CdrRecord): string =>
  [r.channel, r.dstChannel, r.lastApp, r.start, r.answer ?? '', r.end, r.billsec, r.disposition].join('|');

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

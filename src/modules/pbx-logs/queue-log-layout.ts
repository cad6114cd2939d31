import { pbxNameKey } from '../../pbx-name';
import { splitCsvLine } from './cdr-line';

/**
 * queue_log exported from its realtime table (reporting.md R17): Asterisk's realtime storage keeps the
 * columns `time, callid, queuename, agent, event` and `data` (the data fields joined with `|`) or
 * `data1`…`data5`; exports write them pipe-, tab- or comma-separated, with or without a header row naming
 * them. Such a line is rewritten to Asterisk's own `time|callid|queuename|agent|event|data…` and read as one.
 * A file in Asterisk's own form (no header) is read as it is, without rewriting.
 */
export interface QueueLogLayout {
  readonly separator: '|' | '\t' | ',';
  /** Column index of each field; `data`: the data columns in order. */
  readonly time: number;
  readonly callid: number;
  readonly queuename: number;
  readonly agent: number;
  readonly event: number;
  readonly data: readonly number[];
}

/** An epoch (with a fraction or not) or a datetime: the first field of Asterisk's own form (a BOM or NULs may precede it). */
const TIME = /^[\uFEFF\0]*(?:\d+(?:\.\d+)?|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?)$/;

const FIELDS = ['time', 'callid', 'queuename', 'agent', 'event'] as const;

function split(line: string, separator: QueueLogLayout['separator']): string[] | null {
  return separator === ',' ? splitCsvLine(line) : line.split(separator);
}

/** The layout a header row names, or null when the row is not a header. */
function headerLayout(fields: readonly string[], separator: QueueLogLayout['separator']): QueueLogLayout | null {
  const names = fields.map((f) => pbxNameKey(f.trim()));
  const at = (name: string) => names.indexOf(name);
  if (FIELDS.some((f) => at(f) < 0)) return null;
  const data = at('data') >= 0 ? [at('data')] : [1, 2, 3, 4, 5].map((i) => at(`data${i}`)).filter((i) => i >= 0);
  return { separator, time: at('time'), callid: at('callid'), queuename: at('queuename'), agent: at('agent'), event: at('event'), data };
}

const inOrder = (separator: QueueLogLayout['separator'], columns: number): QueueLogLayout => ({
  separator,
  time: 0,
  callid: 1,
  queuename: 2,
  agent: 3,
  event: 4,
  data: Array.from({ length: Math.max(0, columns - 5) }, (_, i) => 5 + i),
});

/**
 * The layout of a file from its first line that is not blank: `{layout: null}` for Asterisk's own form;
 * `header` when that line names the columns (it is then no record).
 */
export function detectLayout(first: string): { layout: QueueLogLayout | null; header: boolean } {
  for (const separator of ['|', '\t', ','] as const) {
    const fields = first.includes(separator) ? split(first, separator) : null;
    const layout = fields ? headerLayout(fields, separator) : null;
    if (layout) return { layout, header: true };
  }
  const pipes = first.split('|');
  if (pipes.length >= 5 && TIME.test(pipes[0] as string)) return { layout: null, header: false };
  for (const separator of ['\t', ','] as const) {
    const fields = first.includes(separator) ? split(first, separator) : null;
    if (fields && fields.length >= 5) return { layout: inOrder(separator, fields.length), header: false };
  }
  return { layout: null, header: false };
}

/** SQL exports write an empty column as NULL or \N. */
const value = (f: string | undefined) => (f === undefined || f === 'NULL' || f === '\\N' ? '' : f);

/** A line of the layout in Asterisk's own form (unchanged when it has too few columns: it is then no record). */
export function toNative(line: string, layout: QueueLogLayout): string {
  const f = split(line, layout.separator);
  if (!f || f.length < 5) return line;
  const data = layout.data.map((i) => value(f[i]));
  while (data.length > 0 && data[data.length - 1] === '') data.pop();
  return [layout.time, layout.callid, layout.queuename, layout.agent, layout.event]
    .map((i) => value(f[i]))
    .concat(data)
    .join('|');
}

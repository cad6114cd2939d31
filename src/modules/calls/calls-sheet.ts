import { field, instantIn, sheetOf, type Field } from '../../sheets/fields';
import type { Workbook } from '../../sheets/sheet';
import type { CallRecord } from './calls';

/**
 * The calls report as a workbook (reporting.md R24): every record of the filters (all pages), its fields in JSON
 * order; in XLSX its times are date cells in its own tenant's local time (CSV keeps the JSON's UTC text).
 */
type Line = { record: CallRecord; timezone: string };
const r = <K extends keyof CallRecord & string>(key: K, kind: 'text' | 'number'): Field<Line> => field(key, kind, (l) => l.record[key]);
const at = (key: 'start' | 'answer' | 'end'): Field<Line> => field(key, 'instant', (l) => instantIn(l.timezone, l.record[key]));

const FIELDS: readonly Field<Line>[] = [
  r('id', 'number'),
  r('uniqueId', 'text'),
  at('start'),
  at('answer'),
  at('end'),
  r('direction', 'text'),
  r('source', 'text'),
  r('destination', 'text'),
  r('callerName', 'text'),
  r('extension', 'number'),
  r('queueId', 'number'),
  r('duration', 'number'),
  r('billsec', 'number'),
  r('disposition', 'text'),
];

export function callsWorkbook(
  batches: AsyncIterable<readonly Line[]> | Iterable<readonly Line[]>,
  range: { startDate?: string; endDate?: string },
): Workbook {
  return { name: ['calls', range.startDate ?? '', range.endDate ?? ''].join('_'), sheets: [sheetOf('Calls', FIELDS, batches)] };
}

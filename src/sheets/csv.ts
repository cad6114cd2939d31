import { isInstant, type Cell, type Sheet } from './sheet';

/**
 * CSV of RFC 4180 (CRLF, a header row, quotes doubled) with the formula guard of reporting.md R24: a text cell
 * that a spreadsheet would run (it begins with =, +, -, @, a tab or a carriage return) is written with a leading
 * apostrophe, except + or - followed by digits only (a phone number, a negative number), which stays as it is.
 * The one guard of every CSV TARS writes, the e-mailed attachments included.
 */
export function csvCell(v: Cell | undefined): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  let s = isInstant(v) ? v.text : v;
  if (/^[=+\-@\t\r]/.test(s) && !/^[+-]\d+$/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const csvLine = (cells: readonly (Cell | undefined)[]): string => `${cells.map(csvCell).join(',')}\r\n`;

/** The sheet's header and rows as CSV text, a batch of rows at a time (headers are text, guarded like any cell). */
export async function* csvChunks(sheet: Sheet): AsyncGenerator<string> {
  yield csvLine(sheet.columns.map((c) => c.header));
  for await (const batch of sheet.rows) {
    let text = '';
    for (const row of batch) text += csvLine(row);
    if (text !== '') yield text;
  }
}

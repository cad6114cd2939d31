/**
 * A report as a spreadsheet (reporting.md R24), one shape for every reporting endpoint and for the e-mailed
 * attachments: named sheets of typed columns and rows of cells, the rows possibly produced as they are
 * written (a year of lost calls is never held whole). csv.ts and xlsx.ts write it; the reports build it.
 */

/**
 * How a column's cells are written: `number` as numbers, `text` as text (a formula-shaped one stays text),
 * `label` as text too (a period such as `2026-11-01` or `Monday`, which a spreadsheet must not turn into a
 * date), `boolean`, and `instant`: an Instant cell, a date cell in XLSX.
 */
export type ColumnKind = 'number' | 'text' | 'label' | 'boolean' | 'instant';

export interface Column {
  readonly header: string;
  readonly kind: ColumnKind;
}

/** A moment as the JSON writes it (`text`, ISO 8601) and its local wall-clock time in the row's tenant's zone (seconds, as if UTC). */
export interface Instant {
  readonly text: string;
  readonly wall: number;
}

export type Cell = string | number | boolean | null | Instant;

export interface Sheet {
  /** At most 31 characters, none of []:*?/\ (Excel's rule). */
  readonly name: string;
  readonly columns: readonly Column[];
  /** Rows of cells in column order; a batch at a time, so that a long report is written as it is read. */
  readonly rows: AsyncIterable<readonly (readonly Cell[])[]> | Iterable<readonly (readonly Cell[])[]>;
}

export interface Workbook {
  /** The file name without extension: the report and its range (`queue-stats_2026-10-31_2026-11-02`). */
  readonly name: string;
  /** The first sheet is the one a CSV holds. */
  readonly sheets: readonly Sheet[];
}

export type SheetFormat = 'csv' | 'xlsx';

export const CONTENT_TYPES: Readonly<Record<SheetFormat, string>> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

export const isInstant = (c: Cell): c is Instant => typeof c === 'object' && c !== null;

/** A file name of safe characters only (it goes into a Content-Disposition header). */
export function fileName(parts: readonly string[], format: SheetFormat): string {
  const base = parts
    .filter((p) => p !== '')
    .map((p) => p.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, ''))
    .join('_')
    .slice(0, 120);
  return `${base || 'report'}.${format}`;
}

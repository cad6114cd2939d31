import { offsetAt } from '../time/zone';
import type { Cell, Column, ColumnKind, Instant, Sheet } from './sheet';

/** A column of a report's sheet: its header, how it is written, and how a row's cell is read from a JSON row. */
export interface Field<R> {
  readonly header: string;
  readonly kind: ColumnKind;
  readonly value: (row: R) => Cell | undefined;
}

export const field = <R>(header: string, kind: ColumnKind, value: (row: R) => Cell | undefined): Field<R> => ({ header, kind, value });

/** The JSON rows of a report as a sheet: its fields in order, one row per JSON row, batch by batch. */
export function sheetOf<R>(
  name: string,
  fields: readonly Field<R>[],
  batches: AsyncIterable<readonly R[]> | Iterable<readonly R[]>,
): Sheet {
  const columns: Column[] = fields.map((f) => ({ header: f.header, kind: f.kind }));
  async function* rows() {
    for await (const batch of batches) yield batch.map((r) => fields.map((f) => f.value(r) ?? null));
  }
  return { name, columns, rows: rows() };
}

/** An instant the JSON writes as ISO 8601 with an offset (`2026-11-01T01:00:00-05:00`): its local time is the part before the offset. */
export function instantOf(iso: string | null | undefined): Instant | null {
  if (iso === null || iso === undefined) return null;
  return { text: iso, wall: Date.parse(`${iso.slice(0, 19)}Z`) / 1000 };
}

/** An instant the JSON writes in UTC (`…Z`), shown in a zone (the calls report's rows, each in its tenant's zone). */
export function instantIn(tz: string, iso: string | null | undefined): Instant | null {
  if (iso === null || iso === undefined) return null;
  const t = Math.floor(Date.parse(iso) / 1000);
  return { text: iso, wall: t + offsetAt(tz, t) };
}

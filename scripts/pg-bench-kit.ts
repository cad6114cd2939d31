// What the PostgreSQL floors (scripts/bench-pg-floors.ts, scripts/bench-pg-import-floor.ts) share: a data
// directory's database made again on PostgreSQL by TARS's own migrations and `tars db copy`'s code, and rows moved
// with COPY (the import floor's fast path). Not runnable by itself.
import { finished } from 'node:stream/promises';
import type SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { copyRows as copyDatabaseRows } from '../src/db/copy';
import { openDatabase } from '../src/db/database';
import { openPostgres } from '../src/db/engine';
import { migrateToLatest } from '../src/db/migrate';

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The columns of a table, in order. */
export function columnsOf(sqlite: SqliteDatabase.Database, table: string): string[] {
  return (sqlite.pragma(`table_info(${quote(table)})`) as { name: string }[]).map((c) => c.name);
}

/** A value as a field of COPY's text format (NULL is \N; backslash, tab, newline and return escaped). */
export function copyField(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  return String(v).replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

/** COPY … FROM STDIN of rows (arrays in `columns` order) on a client, in its current transaction if any. */
export async function copyRows(
  client: pg.ClientBase,
  table: string,
  columns: readonly string[],
  rows: Iterable<readonly unknown[]>,
): Promise<void> {
  const stream = client.query(copyFrom(`COPY ${quote(table)} (${columns.map(quote).join(', ')}) FROM STDIN`));
  let batch = '';
  for (const row of rows) {
    batch += `${row.map(copyField).join('\t')}\n`;
    if (batch.length >= 1 << 16) {
      if (!stream.write(batch)) await new Promise((r) => stream.once('drain', r));
      batch = '';
    }
  }
  stream.end(batch);
  await finished(stream);
}

/**
 * Makes a TARS schema in an empty PostgreSQL database (TARS's own migrations) and copies a data directory's
 * database into it (`tars db copy`'s code), then refreshes the planner's statistics; returns the row counts of
 * `tables`.
 */
export async function copyToPostgres(sqliteFile: string, url: string, tables: readonly string[]): Promise<Record<string, number>> {
  const source = openDatabase(sqliteFile, { readonly: true });
  const target = openPostgres(url);
  try {
    await migrateToLatest(target);
    const copies = await copyDatabaseRows(source.db, target.db);
    await sql`ANALYZE`.execute(target.db);
    return Object.fromEntries(tables.map((t) => [t, copies.find((c) => c.table === t)?.rows ?? 0]));
  } finally {
    await target.close();
    await source.close();
  }
}

// What the PostgreSQL floors (scripts/bench-pg-floors.ts, scripts/bench-pg-import-floor.ts) share: a table
// of a TARS SQLite database recreated on PostgreSQL (the columns and plain indexes SQLite reports for it) and
// its rows moved there with COPY. A stand-in until issue 32's migrations and `tars db copy` exist; not
// runnable by itself.
import { finished } from 'node:stream/promises';
import type SqliteDatabase from 'better-sqlite3';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

interface ColumnInfo {
  name: string;
  type: string;
  notnull: number;
  pk: number;
}

/** SQLite's declared types as PostgreSQL's: integers are bigint (times in ms do not fit 32 bits), reals double. */
function pgType(sqliteType: string): string {
  const t = sqliteType.toUpperCase();
  if (t.includes('INT')) return 'bigint';
  if (t.includes('REAL') || t.includes('FLOA') || t.includes('DOUB')) return 'double precision';
  return 'text';
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The columns of a table, in order. */
export function columnsOf(sqlite: SqliteDatabase.Database, table: string): string[] {
  return (sqlite.pragma(`table_info(${quote(table)})`) as ColumnInfo[]).map((c) => c.name);
}

/**
 * CREATE TABLE and CREATE INDEX statements for PostgreSQL from a SQLite table: its columns (types as pgType says,
 * NOT NULL, the primary key) and its indexes on plain columns, partial ones with their WHERE as written (the
 * conditions TARS writes are valid in both). Indexes on expressions (users_email's COLLATE NOCASE) are left out.
 */
export function pgTableDdl(sqlite: SqliteDatabase.Database, table: string): string[] {
  const columns = sqlite.pragma(`table_info(${quote(table)})`) as ColumnInfo[];
  const pk = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
  const defs = columns.map((c) => `${quote(c.name)} ${pgType(c.type)}${c.notnull || c.pk ? ' NOT NULL' : ''}`);
  if (pk.length > 0) defs.push(`PRIMARY KEY (${pk.map((c) => quote(c.name)).join(', ')})`);
  const out = [`CREATE TABLE ${quote(table)} (${defs.join(', ')})`];
  const indexes = sqlite.pragma(`index_list(${quote(table)})`) as { name: string; unique: number; origin: string; partial: number }[];
  for (const ix of indexes) {
    if (ix.origin === 'pk') continue;
    const cols = sqlite.pragma(`index_xinfo(${quote(ix.name)})`) as { cid: number; name: string | null; key: number }[];
    const keys = cols.filter((c) => c.key === 1);
    if (keys.some((c) => c.cid < 0 || c.name === null)) continue; // an expression: not portable as written
    const name = ix.origin === 'u' ? `${table}_${keys.map((k) => k.name).join('_')}_key` : ix.name;
    let where = '';
    if (ix.partial) {
      const sql = (sqlite.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?").pluck().get(ix.name) as string) ?? '';
      where = ` WHERE ${sql.slice(sql.toUpperCase().lastIndexOf(' WHERE ') + 7)}`;
    }
    out.push(
      `CREATE ${ix.unique ? 'UNIQUE ' : ''}INDEX ${quote(name)} ON ${quote(table)} (${keys.map((k) => quote(k.name as string)).join(', ')})${where}`,
    );
  }
  return out;
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

/** Recreates these tables of a SQLite database in an empty PostgreSQL database with all their rows; returns the row counts. */
export async function copyTables(
  sqlite: SqliteDatabase.Database,
  client: pg.ClientBase,
  tables: readonly string[],
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  await client.query('BEGIN');
  for (const table of tables) {
    for (const statement of pgTableDdl(sqlite, table)) await client.query(statement);
    const columns = columnsOf(sqlite, table);
    const rows = sqlite
      .prepare(`SELECT ${columns.map(quote).join(', ')} FROM ${quote(table)}`)
      .raw()
      .all() as unknown[][];
    await copyRows(client, table, columns, rows);
    counts[table] = rows.length;
  }
  await client.query('COMMIT');
  for (const table of tables) await client.query(`ANALYZE ${quote(table)}`);
  return counts;
}

import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Db } from './database';
import { describeSchema } from './describe';
import { engineOf } from './engine';

/*
 * `tars db copy` (issue 32): every row of one TARS database into another, on either engine, verified. Here in the
 * db layer because it reads the catalogs of both engines and writes every table; src/ops/db-copy.ts opens the two
 * ends and src/cli/data-commands.ts is the command.
 */

/** A table as the copy sees it: its columns in order, its primary key, and the tables its foreign keys name. */
export interface CopiedTable {
  readonly name: string;
  readonly columns: readonly string[];
  readonly primaryKey: readonly string[];
  readonly parents: readonly string[];
}

/** What the copy did to one table, and whether the target reads back as the source was read. */
export interface TableCopy {
  readonly table: string;
  readonly rows: number;
  readonly checksum: string;
  readonly targetRows: number;
  readonly targetChecksum: string;
  readonly ok: boolean;
}

type AnyDb = Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- tables named at run time

/** Rows read and written per statement: under SQLite's 32,766 bound parameters for the widest table, and PostgreSQL's 65,535. */
const PARAMETERS_PER_BATCH = 30_000;

/**
 * The settings every instance of a database shares (the JWT secret on PostgreSQL): not rows of the data, but where
 * the secret lives on that engine (a file beside SQLite's database, a row on PostgreSQL), so `tars db copy` moves
 * them itself (src/ops/db-copy.ts) and the row copy leaves the table out.
 */
export const SETTINGS_TABLE = 'tars_settings';

/**
 * The TARS tables of a database (describeSchema's, which leaves out Kysely's own), parents before children, so
 * that every foreign key finds its row; tars_settings left out (SETTINGS_TABLE).
 */
export async function copiedTables(db: Db): Promise<CopiedTable[]> {
  const { tables } = await describeSchema(db);
  return parentsFirst(
    tables
      .filter((t) => t.name !== SETTINGS_TABLE)
      .map((t) => ({
        name: t.name,
        columns: t.columns.map((c) => c.name),
        primaryKey: t.primaryKey,
        parents: t.foreignKeys.map((f) => f.table).filter((parent) => parent !== t.name),
      })),
  );
}

/** Orders tables so that each comes after the tables it references (a cycle would be a schema TARS does not have). */
function parentsFirst(tables: CopiedTable[]): CopiedTable[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const done = new Set<string>();
  const ordered: CopiedTable[] = [];
  const visit = (table: CopiedTable, path: readonly string[]) => {
    if (done.has(table.name)) return;
    if (path.includes(table.name)) throw new Error(`the foreign keys of ${[...path, table.name].join(' → ')} form a cycle`);
    for (const parent of table.parents) {
      const p = byName.get(parent);
      if (p) visit(p, [...path, table.name]);
    }
    done.add(table.name);
    ordered.push(table);
  };
  for (const table of [...tables].sort((a, b) => (a.name < b.name ? -1 : 1))) visit(table, []);
  return ordered;
}

/** The tables of `tables` that hold rows in `db` (a copy goes only into an empty database). */
export async function nonEmptyTables(db: Db, tables: readonly CopiedTable[]): Promise<string[]> {
  const found: string[] = [];
  for (const t of tables) {
    const { rows } = await sql<{ one: number }>`SELECT 1 AS one FROM ${sql.table(t.name)} LIMIT 1`.execute(db);
    if (rows.length > 0) found.push(t.name);
  }
  return found;
}

/**
 * Reads a table in primary-key order, a batch at a time (keyset pagination: each batch starts after the last key
 * of the one before, so a big table costs no OFFSET scans), handing each batch to `use`.
 */
async function eachBatch(db: AnyDb, table: CopiedTable, use: (rows: Record<string, unknown>[]) => Promise<void>): Promise<void> {
  const key = table.primaryKey.length > 0 ? table.primaryKey : table.columns;
  const size = Math.max(1, Math.floor(PARAMETERS_PER_BATCH / table.columns.length));
  const keyList = sql.join(key.map((c) => sql.ref(c)));
  let after: unknown[] | undefined;
  for (;;) {
    const from = after ? sql`WHERE (${keyList}) > (${sql.join(after)})` : sql``;
    const { rows } = await sql<Record<string, unknown>>`
      SELECT ${sql.join(table.columns.map((c) => sql.ref(c)))} FROM ${sql.table(table.name)} ${from}
      ORDER BY ${keyList} LIMIT ${size}`.execute(db);
    if (rows.length === 0) return;
    await use(rows);
    const last = rows[rows.length - 1] as Record<string, unknown>;
    after = key.map((c) => last[c]);
    if (rows.length < size) return;
  }
}

/**
 * One value as the checksum renders it, the same whichever engine it came from: numbers in JavaScript's form (the
 * PostgreSQL pool reads bigint and numeric as numbers, as SQLite gives them), text JSON-quoted, NULL as \N.
 */
function rendered(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (Buffer.isBuffer(value)) return `x${value.toString('hex')}`;
  return JSON.stringify(value);
}

class TableDigest {
  private readonly hash = createHash('sha256');
  rows = 0;

  constructor(private readonly columns: readonly string[]) {}

  add(rows: readonly Record<string, unknown>[]): void {
    for (const row of rows) this.hash.update(`${this.columns.map((c) => rendered(row[c])).join('\t')}\n`);
    this.rows += rows.length;
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

/** Row count and SHA-256 of a table's rows in primary-key order, rendered as `rendered` says. */
export async function tableChecksum(db: AnyDb, table: CopiedTable): Promise<{ rows: number; checksum: string }> {
  const digest = new TableDigest(table.columns);
  await eachBatch(db, table, async (rows) => digest.add(rows));
  return { rows: digest.rows, checksum: digest.digest() };
}

/**
 * The highest id a table has ever given (not only the highest it holds: an id once given is never given again,
 * db/migrations/2026-11-27T1000_ids_never_reused.ts), for the tables whose `id` the database numbers itself.
 */
async function idHighWater(db: Db, table: CopiedTable): Promise<number | undefined> {
  if (!table.columns.includes('id')) return undefined;
  if (engineOf(db) === 'postgres') {
    const seq = await identitySequence(db, table.name);
    if (!seq) return undefined;
    const { rows } = await sql<{
      last: number;
      called: boolean;
    }>`SELECT last_value AS last, is_called AS called FROM ${sql.raw(seq)}`.execute(db);
    return rows[0]?.called ? rows[0].last : 0;
  }
  if (!(await autoincrement(db, table.name))) return undefined;
  const { rows } = await sql<{ seq: number }>`SELECT seq FROM sqlite_sequence WHERE name = ${table.name}`.execute(db);
  return rows[0]?.seq ?? 0;
}

/** The sequence that numbers a PostgreSQL table's `id` (an identity column), if it has one. */
async function identitySequence(db: Db, table: string): Promise<string | undefined> {
  const { rows } = await sql<{ seq: string | null }>`
    SELECT pg_get_serial_sequence(quote_ident(table_name), column_name) AS seq FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = ${table} AND column_name = 'id' AND is_identity = 'YES'`.execute(db);
  return rows[0]?.seq ?? undefined;
}

/** Whether a SQLite table's `id` is AUTOINCREMENT (its high-water mark is kept in sqlite_sequence). */
async function autoincrement(db: Db, table: string): Promise<boolean> {
  const { rows } = await sql<{ sql: string }>`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ${table}`.execute(db);
  return /\bautoincrement\b/i.test(rows[0]?.sql ?? '');
}

/** Makes the target give ids above `high` (and above every id it holds) from now on. */
async function raiseIds(db: Db, table: CopiedTable, high: number): Promise<void> {
  if (!table.columns.includes('id')) return;
  if (engineOf(db) === 'postgres') {
    const seq = await identitySequence(db, table.name);
    if (!seq) return;
    const { rows } = await sql<{ top: number }>`SELECT coalesce(max(id), 0) AS top FROM ${sql.table(table.name)}`.execute(db);
    const value = Math.max(high, rows[0]?.top ?? 0);
    // is_called false when nothing was ever given: the next id is then 1, as on a new table.
    await sql`SELECT setval(${seq}, ${Math.max(value, 1)}, ${value > 0})`.execute(db);
    return;
  }
  if (!(await autoincrement(db, table.name))) return;
  // Inserting ids has already raised sqlite_sequence to the highest id copied; a higher mark of the source is kept.
  const { rows } = await sql<{ seq: number }>`SELECT seq FROM sqlite_sequence WHERE name = ${table.name}`.execute(db);
  if (rows.length === 0) await sql`INSERT INTO sqlite_sequence (name, seq) VALUES (${table.name}, ${high})`.execute(db);
  else if ((rows[0]?.seq ?? 0) < high) await sql`UPDATE sqlite_sequence SET seq = ${high} WHERE name = ${table.name}`.execute(db);
}

/**
 * Copies every row of every table of `from` into `to`, whose schema is at the same migration and whose tables are
 * empty, in one transaction on the target (all or nothing), parents first; then reads the target back and compares
 * each table's row count and checksum with the source's. `progress` hears of each table when it is done.
 */
export async function copyRows(from: Db, to: Db, progress: (copy: TableCopy) => void = () => undefined): Promise<TableCopy[]> {
  const tables = await copiedTables(from);
  const targetTables = new Map((await copiedTables(to)).map((t) => [t.name, t]));
  const missing = tables.filter((t) => !targetTables.has(t.name)).map((t) => t.name);
  if (missing.length > 0) throw new Error(`the target has no table ${missing.join(', ')}: its schema is not the source's`);
  const read = new Map<string, { rows: number; checksum: string }>();
  await to.transaction().execute(async (trx) => {
    for (const table of tables) {
      const digest = new TableDigest(table.columns);
      await eachBatch(from, table, async (rows) => {
        digest.add(rows);
        await (trx as AnyDb).insertInto(table.name).values(rows).execute();
      });
      read.set(table.name, { rows: digest.rows, checksum: digest.digest() });
      await raiseIds(trx, table, (await idHighWater(from, table)) ?? 0);
    }
  });
  const copies: TableCopy[] = [];
  for (const table of tables) {
    const source = read.get(table.name) ?? { rows: 0, checksum: '' };
    const target = await tableChecksum(to, table);
    const copy = {
      table: table.name,
      rows: source.rows,
      checksum: source.checksum,
      targetRows: target.rows,
      targetChecksum: target.checksum,
      ok: source.rows === target.rows && source.checksum === target.checksum,
    };
    copies.push(copy);
    progress(copy);
  }
  return copies;
}

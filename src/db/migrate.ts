import { Migrator, sql, type Migration } from 'kysely';
import { engineOf } from '../../db/migrations/engine';
import { migrations } from '../../db/migrations/index';
import { PostgresDdlPlugin } from '../../db/migrations/postgres-ddl';
import { VERSION } from '../version';
import type { Db, Sqlite } from './database';
import { runOnce } from './statements';

export const MIGRATION_NAMES: readonly string[] = Object.keys(migrations).sort();

type Migrations = Readonly<Record<string, Migration>>;

/**
 * What migrating a database needs: its Kysely handle, and on SQLite its raw connection as well (BEGIN IMMEDIATE and
 * the foreign-key pragmas are not Kysely's). An OpenDatabase (SQLite) is one; so is a PostgreSQL handle (`db` only).
 */
export interface MigrationTarget {
  readonly db: Db;
  readonly sqlite?: Sqlite;
}

/**
 * The migrator of a database; `list` is every migration there is (tests pass another to inject one).
 * On PostgreSQL the migrations get a handle that writes their DDL in PostgreSQL's form (db/migrations/postgres-ddl.ts),
 * and Kysely runs them in one transaction under its advisory lock; on SQLite migrateToLatest makes the transaction.
 */
export function migrator(handle: Pick<MigrationTarget, 'db'>, list: Migrations = migrations): Migrator {
  const postgres = engineOf(handle.db) === 'postgres';
  return new Migrator({
    db: postgres ? handle.db.withPlugin(new PostgresDdlPlugin()) : handle.db,
    provider: { getMigrations: async () => list },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
    // Kysely does not wrap SQLite migrations in a transaction; migrateToLatest does, around all of them.
    disableTransactions: !postgres,
  });
}

/**
 * The names of the migrations already applied to this database, oldest first: from the raw SQLite connection when
 * given (`{ sqlite }` is enough, as `tars check` and backups have it), else through the Kysely handle.
 */
export async function appliedMigrations(handle: { readonly sqlite: Sqlite } | MigrationTarget): Promise<string[]> {
  if (handle.sqlite) {
    const exists = runOnce(handle.sqlite, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'");
    if (exists.length === 0) return [];
    const rows = runOnce<{ name: string }>(handle.sqlite, 'SELECT name FROM schema_migrations ORDER BY name');
    return rows.map((r) => r.name);
  }
  const { db } = handle as MigrationTarget;
  const table =
    engineOf(db) === 'postgres'
      ? sql<{ found: string | null }>`SELECT to_regclass('schema_migrations')::text AS found`
      : sql<{ found: string | null }>`SELECT max(name) AS found FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`;
  const [exists] = (await table.execute(db)).rows;
  if (!exists?.found) return [];
  const { rows } = await sql<{ name: string }>`SELECT name FROM schema_migrations ORDER BY name`.execute(db);
  return rows.map((r) => r.name);
}

/**
 * Runs every pending migration in one transaction, so that a migration that fails rolls back all of them and
 * leaves the database exactly as it was, and two processes starting together serialise instead of racing (the
 * second finds nothing pending). Returns the names applied now.
 *
 * SQLite: one IMMEDIATE transaction (SQLite's write lock serialises the server and a CLI import). Foreign keys are
 * off while migrations run and checked whole before the commit (SQLite's procedure for rebuilding a table,
 * https://sqlite.org/lang_altertable.html: dropping a parent table with them on would delete its children's rows),
 * since the pragma cannot change inside a transaction.
 *
 * PostgreSQL: Kysely's migrator makes the transaction (DDL is transactional there) after taking its advisory lock,
 * which serialises instances starting together; foreign keys stay on (PostgreSQL checks them per statement).
 */
export async function migrateToLatest(handle: MigrationTarget, list: Migrations = migrations): Promise<string[]> {
  if (engineOf(handle.db) === 'postgres') return applied(await migrator(handle, list).migrateToLatest());
  const { sqlite } = handle;
  if (!sqlite) throw new Error('migrating a SQLite database needs its connection (an OpenDatabase)');
  sqlite.pragma('foreign_keys = OFF');
  sqlite.exec('BEGIN IMMEDIATE');
  try {
    const names = applied(await migrator(handle, list).migrateToLatest());
    const broken = sqlite.pragma('foreign_key_check') as unknown[];
    if (broken.length > 0) throw new Error(`the migrations left ${broken.length} rows whose foreign key names no row`);
    sqlite.exec('COMMIT');
    return names;
  } catch (err) {
    if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
    throw err;
  } finally {
    sqlite.pragma('foreign_keys = ON');
  }
}

/** The names a migrator run applied, or its failure as an Error naming the migration. */
function applied(result: Awaited<ReturnType<Migrator['migrateToLatest']>>): string[] {
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    const err = result.error instanceof Error ? result.error : new Error(String(result.error));
    throw new Error(`migration ${failed} failed: ${err.message}`, { cause: err });
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Where a database's schema stands against this program's migrations. */
export interface SchemaStatus {
  /** Migrations this program has and the database has not run yet (it is older: an upgrade applies them). */
  readonly pending: string[];
  /** Migrations the database has run that this program does not know (it was made by a newer TARS). */
  readonly unknown: string[];
}

export function schemaStatus(applied: readonly string[], known: readonly string[] = MIGRATION_NAMES): SchemaStatus {
  return { pending: known.filter((n) => !applied.includes(n)), unknown: applied.filter((n) => !known.includes(n)) };
}

/** The sentence that refuses a database made by a newer TARS. */
export function newerSchemaMessage(unknown: readonly string[]): string {
  return `the database was made by a newer TARS (migration ${unknown.join(', ')} is unknown to TARS ${VERSION}): run that version, or restore a backup made by this one`;
}

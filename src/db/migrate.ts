import { Migrator, type Migration } from 'kysely';
import { migrations } from '../../db/migrations/index';
import { VERSION } from '../version';
import type { OpenDatabase } from './database';
import { runOnce } from './statements';

export const MIGRATION_NAMES: readonly string[] = Object.keys(migrations).sort();

type Migrations = Readonly<Record<string, Migration>>;

/** The migrator of a database; `list` is every migration there is (tests pass another to inject one). */
export function migrator(handle: OpenDatabase, list: Migrations = migrations): Migrator {
  return new Migrator({
    db: handle.db,
    provider: { getMigrations: async () => list },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
    // Kysely does not wrap SQLite migrations in a transaction; migrateToLatest does, around all of them.
    disableTransactions: true,
  });
}

/** The names of the migrations already applied to this database, oldest first. */
export async function appliedMigrations(handle: Pick<OpenDatabase, 'sqlite'>): Promise<string[]> {
  const exists = runOnce(handle.sqlite, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'");
  if (exists.length === 0) return [];
  const rows = runOnce<{ name: string }>(handle.sqlite, 'SELECT name FROM schema_migrations ORDER BY name');
  return rows.map((r) => r.name);
}

/**
 * Runs every pending migration inside one IMMEDIATE transaction: two processes starting together (the
 * server and a CLI import) serialise on SQLite's write lock instead of racing, and a migration that fails
 * rolls back all of them, leaving the file exactly as it was. Returns the names applied now.
 *
 * Foreign keys are off while migrations run and checked whole before the commit (SQLite's procedure for
 * rebuilding a table, https://sqlite.org/lang_altertable.html: dropping a parent table with them on would
 * delete its children's rows), since the pragma cannot change inside a transaction.
 */
export async function migrateToLatest(handle: OpenDatabase, list: Migrations = migrations): Promise<string[]> {
  handle.sqlite.pragma('foreign_keys = OFF');
  handle.sqlite.exec('BEGIN IMMEDIATE');
  try {
    const result = await migrator(handle, list).migrateToLatest();
    if (result.error) {
      const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
      const err = result.error instanceof Error ? result.error : new Error(String(result.error));
      throw new Error(`migration ${failed} failed: ${err.message}`, { cause: err });
    }
    const broken = handle.sqlite.pragma('foreign_key_check') as unknown[];
    if (broken.length > 0) throw new Error(`the migrations left ${broken.length} rows whose foreign key names no row`);
    handle.sqlite.exec('COMMIT');
    return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  } catch (err) {
    if (handle.sqlite.inTransaction) handle.sqlite.exec('ROLLBACK');
    throw err;
  } finally {
    handle.sqlite.pragma('foreign_keys = ON');
  }
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

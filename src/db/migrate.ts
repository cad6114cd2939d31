import { Migrator } from 'kysely';
import { migrations } from '../../db/migrations/index';
import type { OpenDatabase } from './database';

export const MIGRATION_NAMES: readonly string[] = Object.keys(migrations).sort();

function migrator(handle: OpenDatabase): Migrator {
  return new Migrator({
    db: handle.db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
    // Kysely does not wrap SQLite migrations in a transaction; migrateToLatest does, around all of them.
    disableTransactions: true,
  });
}

/** The names of the migrations already applied to this database, oldest first. */
export async function appliedMigrations(handle: OpenDatabase): Promise<string[]> {
  const exists = handle.sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!exists) return [];
  const rows = handle.sqlite.prepare('SELECT name FROM schema_migrations ORDER BY name').all() as { name: string }[];
  return rows.map((r) => r.name);
}

/**
 * Runs every pending migration inside one IMMEDIATE transaction: two processes starting together (the
 * server and a CLI import) serialise on SQLite's write lock instead of racing, and a migration that fails
 * rolls back all of them, leaving the file exactly as it was. Returns the names applied now.
 */
export async function migrateToLatest(handle: OpenDatabase): Promise<string[]> {
  handle.sqlite.exec('BEGIN IMMEDIATE');
  try {
    const result = await migrator(handle).migrateToLatest();
    if (result.error) {
      const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
      const err = result.error instanceof Error ? result.error : new Error(String(result.error));
      throw new Error(`migration ${failed} failed: ${err.message}`, { cause: err });
    }
    handle.sqlite.exec('COMMIT');
    return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  } catch (err) {
    if (handle.sqlite.inTransaction) handle.sqlite.exec('ROLLBACK');
    throw err;
  }
}

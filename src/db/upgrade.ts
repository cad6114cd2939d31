import type { Migration } from 'kysely';
import { migrations } from '../../db/migrations/index';
import { backupDatabase } from './backup';
import { appliedMigrations, migrateToLatest, newerSchemaMessage, schemaStatus, type MigrationTarget } from './migrate';

export interface UpgradeResult {
  /** The migrations applied now. */
  readonly applied: string[];
  /** The copy of the database as it was before them; absent for a new database or one already up to date. */
  readonly backup?: string;
}

/**
 * Brings the schema up to date, the safe way. A database that already holds a schema and has migrations
 * pending is first copied beside itself (tars.db.before-<last applied migration>.bak, SQLite's online
 * backup), so that an upgrade can always be undone by `tars restore`. The migrations then run in one
 * transaction (migrateToLatest): one that fails leaves the file as it was. A database made by a newer TARS
 * is refused before anything is written: migrations only move forward.
 *
 * On PostgreSQL (a handle without `sqlite` and `file`) there is no copy to make beside a file: the operator's
 * pg_dump is the backup (docs/design/postgresql.md §3.3), and the migrations' one transaction still makes a failed
 * upgrade change nothing.
 */
export async function upgradeDatabase(
  handle: MigrationTarget & { readonly file?: string },
  list: Readonly<Record<string, Migration>> = migrations,
): Promise<UpgradeResult> {
  const done = await appliedMigrations(handle);
  const { pending, unknown } = schemaStatus(done, Object.keys(list).sort());
  if (unknown.length > 0) throw new Error(newerSchemaMessage(unknown));
  // Up to date (every start but the first after an upgrade): Kysely's migrator would still lock and read the schema.
  if (pending.length === 0) return { applied: [] };
  const last = done[done.length - 1];
  let backup: string | undefined;
  if (last !== undefined && pending.length > 0 && handle.sqlite && handle.file !== undefined) {
    backup = `${handle.file}.before-${last}.bak`;
    await backupDatabase(handle.sqlite, backup);
  }
  const applied = await migrateToLatest(handle, list);
  return backup ? { applied, backup } : { applied };
}

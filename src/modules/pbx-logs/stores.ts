import type { OpenDatabase, Sqlite } from '../../db/database';
import type { PostgresDatabase } from '../../db/engine';
import type { ImportStore } from './import-store';
import { PostgresImportStore } from './pbx-logs-postgres.repository';
import { SqliteImportStore } from './pbx-logs.repository';

/** What an import writes to: a database of either engine, SQLite's raw connection (the tests), or a store. */
export type ImportTarget = OpenDatabase | PostgresDatabase | Sqlite | ImportStore;

/** The import store (import-store.ts) of a database: one per import, for its caches of what others wrote. */
export function importStore(target: ImportTarget): ImportStore {
  if ('transact' in target) return target;
  if ('prepare' in target) return new SqliteImportStore(target);
  return target.engine === 'sqlite' ? new SqliteImportStore(target.sqlite) : new PostgresImportStore(target.db);
}

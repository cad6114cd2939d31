import type { OpenDatabase, Sqlite } from '../../db/database';
import type { ImportStore } from './import-store';
import { SqliteImportStore } from './pbx-logs.repository';

/** What an import writes to: a database, SQLite's raw connection (the tests), or a store. */
export type ImportTarget = OpenDatabase | Sqlite | ImportStore;

/** The import store (import-store.ts) of a database: one per import, for its caches of what others wrote. */
export function importStore(target: ImportTarget): ImportStore {
  if ('transact' in target) return target;
  if ('prepare' in target) return new SqliteImportStore(target);
  return new SqliteImportStore(target.sqlite);
}

import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { dumpReporting } from './pbx-logs';

/** Reads the database of a data directory through a connection of its own, opened read-only. */
export function readDataDir<T>(dataDir: string, read: (db: SqliteDatabase.Database) => T): T {
  const db = new SqliteDatabase(join(dataDir, 'tars.db'), { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** PRAGMA integrity_check of a data directory's database: 'ok' or the problems it lists. */
export function integrityCheck(dataDir: string): string {
  return readDataDir(dataDir, (db) =>
    (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check).join('\n'),
  );
}

export const rowCount = (dataDir: string, table: string): number =>
  readDataDir(dataDir, (db) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number);

/** Every stored and derived reporting row (test/helpers/pbx-logs.ts dumpReporting). */
export const reportingRows = (dataDir: string) => readDataDir(dataDir, dumpReporting);

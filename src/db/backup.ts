import { closeSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { openSqlite, type Sqlite } from './database';

/**
 * Pages per step of SQLite's online backup: all of them. The backup then reads inside one read transaction,
 * a consistent snapshot that writers in other processes (the server, an import) never wait for in WAL mode;
 * with small steps, every write by another connection between two steps would restart the copy, and a busy
 * server could keep it from ever finishing.
 */
const ALL_PAGES = 0x7fffffff;

/**
 * Writes a consistent copy of the database behind `source` to `file` with SQLite's online backup API (never
 * a file copy, which could catch a page half-written or miss what still sits in the WAL). The copy is a
 * single self-contained file (rollback journal, no -wal), `finish` may add to it before it is closed, and
 * it appears under its name only when complete: written beside it, synced, then renamed.
 */
export async function backupDatabase(source: Sqlite, file: string, finish?: (copy: Sqlite) => void): Promise<void> {
  const partial = `${file}.partial-${process.pid}`;
  rmSync(partial, { force: true });
  try {
    await source.backup(partial, { progress: () => ALL_PAGES });
    const copy = openSqlite(partial);
    try {
      copy.pragma('journal_mode = DELETE');
      finish?.(copy);
    } finally {
      copy.close();
    }
    syncFile(partial);
    renameSync(partial, file);
    syncFile(dirname(file));
  } catch (err) {
    rmSync(partial, { force: true });
    rmSync(`${partial}-journal`, { force: true });
    throw err;
  }
}

/** fsync a file or a directory (so that a rename inside it survives a power cut). */
export function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The problems PRAGMA integrity_check finds (at most 20); empty when the file is sound. */
export function integrityProblems(sqlite: Sqlite): string[] {
  const rows = sqlite.pragma('integrity_check(20)') as { integrity_check: string }[];
  const lines = rows.map((r) => r.integrity_check);
  return lines.length === 1 && lines[0] === 'ok' ? [] : lines;
}

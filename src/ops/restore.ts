import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { backupDatabase, syncFile } from '../db/backup';
import { openSqlite } from '../db/database';
import { SECRET_FILE } from '../modules/auth/tokens';
import { databasePath, ensureDataDir } from '../runtime';
import { inspectBackup } from './backup';
import { dropFacts } from './backup.repository';
import { DataDirBusyError, runningServer } from './server-lock';

export interface RestoreSummary {
  readonly schema: string;
  /** Migrations the next start applies (the backup was made by an older TARS). */
  readonly pending: string[];
  readonly createdAt?: string;
  readonly secretRestored: boolean;
  /** Where the database that was replaced went (with its -wal, if it had one). */
  readonly replaced?: string;
}

/**
 * `tars restore`: replaces the database of a data directory (and its JWT secret) with a backup, after
 * checking the backup, and never under a running server. The restored copy is written beside the database
 * and renamed into place; the database it replaces is renamed aside, never deleted, together with its -wal
 * so that the pair still opens. A stale -shm is removed: SQLite rebuilds it.
 */
export async function restoreBackup(file: string, dataDir: string, now = new Date()): Promise<RestoreSummary> {
  const server = runningServer(dataDir);
  if (server) throw new DataDirBusyError(`a TARS server (pid ${server.pid}) is running on ${dataDir}: stop it before restoring`);
  if (!existsSync(file)) throw new Error(`${file} does not exist`);
  const source = openSqlite(file, { readonly: true });
  try {
    const backup = await inspectBackup(source, file);
    ensureDataDir(dataDir);
    const target = databasePath(dataDir);
    const restoring = `${target}.restoring`;
    await backupDatabase(source, restoring, dropFacts);
    const secret = join(dataDir, SECRET_FILE);
    if (backup.facts.jwtSecret) writeFileSync(`${secret}.restoring`, `${backup.facts.jwtSecret}\n`, { mode: 0o600 });

    const replaced = existsSync(target) ? `${target}.replaced-${now.toISOString().replace(/[:.]/g, '-')}` : undefined;
    if (replaced) {
      renameSync(target, replaced);
      if (existsSync(`${target}-wal`)) renameSync(`${target}-wal`, `${replaced}-wal`);
    }
    for (const stale of ['-wal', '-shm', '-journal']) rmSync(`${target}${stale}`, { force: true });
    renameSync(restoring, target);
    if (backup.facts.jwtSecret) renameSync(`${secret}.restoring`, secret);
    syncFile(dataDir);
    return {
      schema: backup.applied[backup.applied.length - 1] as string,
      pending: backup.pending,
      secretRestored: Boolean(backup.facts.jwtSecret),
      ...(backup.facts.createdAt ? { createdAt: backup.facts.createdAt } : {}),
      ...(replaced ? { replaced } : {}),
    };
  } finally {
    source.close();
  }
}

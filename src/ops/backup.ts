import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { backupDatabase, integrityProblems } from '../db/backup';
import { openSqlite, type Sqlite } from '../db/database';
import { appliedMigrations, newerSchemaMessage, schemaStatus } from '../db/migrate';
import { SECRET_FILE } from '../modules/auth/tokens';
import { databasePath } from '../runtime';
import { VERSION } from '../version';
import { readFacts, writeFacts } from './backup.repository';

/**
 * A backup is one SQLite file: the database as SQLite's online backup API copied it, plus a small table of facts
 * about the copy (./backup.repository.ts), among them the JWT secret of the data directory, so that a restored
 * server accepts the tokens issued before. `tars restore` reads it and drops it. The file holds password hashes
 * and that secret: it is written with mode 0600 (the process umask) and must be kept like the data directory.
 */
export interface BackupFacts {
  readonly createdAt?: string;
  readonly tarsVersion?: string;
  /** Absent when the server's secret comes from TARS_JWT_SECRET (it is not in the data directory). */
  readonly jwtSecret?: string;
}

export interface BackupSummary {
  readonly bytes: number;
  readonly schema: string;
  readonly withSecret: boolean;
}

/** `tars backup`: a consistent copy of the live database (a server may keep writing meanwhile) and its secret. */
export async function createBackup(dataDir: string, file: string): Promise<BackupSummary> {
  const source = databasePath(dataDir);
  if (!existsSync(source)) throw new Error(`there is no database in ${dataDir}`);
  if (existsSync(file)) throw new Error(`${file} exists already: remove it or choose another name`);
  const secretFile = join(dataDir, SECRET_FILE);
  const jwtSecret = existsSync(secretFile) ? readFileSync(secretFile, 'utf8').trim() : undefined;
  const sqlite = openSqlite(source, { readonly: true });
  try {
    const applied = await appliedMigrations({ sqlite });
    await backupDatabase(sqlite, file, (copy) =>
      writeFacts(copy, { createdAt: new Date().toISOString(), tarsVersion: VERSION, jwtSecret } satisfies BackupFacts),
    );
    return { bytes: statSync(file).size, schema: applied[applied.length - 1] ?? 'none', withSecret: jwtSecret !== undefined };
  } finally {
    sqlite.close();
  }
}

export interface InspectedBackup {
  readonly applied: string[];
  readonly pending: string[];
  readonly facts: BackupFacts;
}

/**
 * Checks a backup file before anything is replaced: it must be a sound SQLite file (integrity_check), a TARS
 * database (schema_migrations), and not newer than this program. Throws a sentence saying what is wrong.
 */
export async function inspectBackup(sqlite: Sqlite, file: string): Promise<InspectedBackup> {
  let problems: string[];
  try {
    problems = integrityProblems(sqlite);
  } catch (err) {
    throw new Error(`${file} is not a usable SQLite database: ${(err as Error).message}`, { cause: err });
  }
  if (problems.length > 0) throw new Error(`${file} is damaged (integrity check: ${problems.slice(0, 3).join('; ')})`);
  const applied = await appliedMigrations({ sqlite });
  if (applied.length === 0) throw new Error(`${file} is not a TARS database (it has no schema_migrations)`);
  const { pending, unknown } = schemaStatus(applied);
  if (unknown.length > 0) throw new Error(`${file}: ${newerSchemaMessage(unknown)}`);
  return { applied, pending, facts: readFacts(sqlite) as BackupFacts };
}

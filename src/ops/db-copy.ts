import { copyFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { copiedTables, copyRows, nonEmptyTables, type TableCopy } from '../db/copy';
import { openDatabase, type OpenDatabase } from '../db/database';
import { isPostgresUrl, openPostgres, redactUrl, type PostgresDatabase } from '../db/engine';
import { appliedMigrations, migrateToLatest, MIGRATION_NAMES, newerSchemaMessage, schemaStatus } from '../db/migrate';
import { SECRET_FILE } from '../modules/auth/tokens';
import { databasePath, ensureDataDir } from '../runtime';
import { runningServer } from './server-lock';

/*
 * `tars db copy --from A --to B` (issue 32): an appliance's data into PostgreSQL, or back into a data directory,
 * every row verified. The rows are copied by src/db/copy.ts; this file opens the two ends and says no when it must.
 */

/** Where a database is: a data directory (its tars.db) or a PostgreSQL URL. */
export type Place = { readonly kind: 'dir'; readonly dir: string } | { readonly kind: 'postgres'; readonly url: string };

export function placeOf(text: string, cwd = process.cwd()): Place {
  return isPostgresUrl(text) ? { kind: 'postgres', url: text } : { kind: 'dir', dir: resolve(cwd, text) };
}

const shown = (place: Place) => (place.kind === 'postgres' ? redactUrl(place.url) : place.dir);

/** A refusal of the copy: nothing was written. */
export class CopyRefused extends Error {}

export interface CopySummary {
  readonly tables: TableCopy[];
  /** What became of the JWT secret (tokens signed with it stay valid only where it goes too). */
  readonly secret: string;
}

type End = OpenDatabase | PostgresDatabase;

/**
 * Opens one end of the copy. The source must be at this program's schema; the target too, unless it has no schema
 * yet (a new data directory, an empty PostgreSQL database), which is then migrated. An existing database of another
 * version is refused, never migrated as a side effect of a copy that may then be refused for its rows.
 */
async function open(place: Place, role: 'source' | 'target'): Promise<End> {
  let end: End;
  if (place.kind === 'postgres') end = openPostgres(place.url);
  else {
    const server = runningServer(place.dir);
    if (server)
      throw new CopyRefused(
        `a TARS server (pid ${server.pid}) is running on ${place.dir}: stop it first, so that no row changes during the copy`,
      );
    const file = databasePath(place.dir);
    if (role === 'source' && !existsSync(file)) throw new CopyRefused(`${place.dir} holds no TARS database (${file} does not exist)`);
    if (role === 'target') ensureDataDir(place.dir);
    end = openDatabase(file, { readonly: role === 'source' });
  }
  try {
    const applied = await appliedMigrations(end);
    if (role === 'target' && applied.length === 0) await migrateToLatest(end);
    else {
      const { pending, unknown } = schemaStatus(applied);
      if (unknown.length > 0) throw new CopyRefused(`${shown(place)}: ${newerSchemaMessage(unknown)}`);
      if (pending.length > 0)
        throw new CopyRefused(
          `${shown(place)} is at an older schema (${pending.length} of ${MIGRATION_NAMES.length} migrations pending): run tars migrate on it first`,
        );
    }
  } catch (err) {
    await end.close();
    throw err;
  }
  return end;
}

/**
 * Copies every row from `fromText` into `toText` (each a data directory or a postgres:// URL), refusing a target
 * that holds any row, a source of another schema version and a data directory a server runs on. The target is
 * written in one transaction, then read back: per table, rows and a SHA-256 of them in key order must match the
 * source's. `progress` hears of each table when it is verified.
 */
export async function copyDatabase(fromText: string, toText: string, progress?: (copy: TableCopy) => void): Promise<CopySummary> {
  const from = placeOf(fromText);
  const to = placeOf(toText);
  if (shown(from) === shown(to) && from.kind === to.kind) throw new CopyRefused('--from and --to name the same database');
  const source = await open(from, 'source');
  try {
    const target = await open(to, 'target');
    try {
      const full = await nonEmptyTables(target.db, await copiedTables(target.db));
      if (full.length > 0)
        throw new CopyRefused(
          `${shown(to)} already holds rows (in ${full.slice(0, 5).join(', ')}${full.length > 5 ? ', …' : ''}): tars db copy writes only into an empty database`,
        );
      const tables = await copyRows(source.db, target.db, progress);
      return { tables, secret: copySecret(from, to) };
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

/** The JWT secret goes with the data between data directories; a PostgreSQL end needs TARS_JWT_SECRET. */
function copySecret(from: Place, to: Place): string {
  if (from.kind === 'dir' && to.kind === 'dir') {
    const file = join(from.dir, SECRET_FILE);
    if (!existsSync(file)) return 'the source has no JWT secret file (it came from TARS_JWT_SECRET, or no server started on it)';
    copyFileSync(file, join(to.dir, SECRET_FILE));
    return `the JWT secret is copied (${SECRET_FILE}, mode 600): tokens issued before stay valid`;
  }
  if (from.kind === 'dir') {
    const file = join(from.dir, SECRET_FILE);
    return existsSync(file)
      ? `the JWT secret stays in ${file}: give its contents to every instance as TARS_JWT_SECRET, or tokens issued before stop working`
      : 'the source has no JWT secret file';
  }
  return `the target gets no JWT secret file: give it the TARS_JWT_SECRET the PostgreSQL instances use, or tokens issued before stop working`;
}

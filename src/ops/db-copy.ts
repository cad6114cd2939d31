import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { copiedTables, copyRows, nonEmptyTables, type TableCopy } from '../db/copy';
import { openDatabase, type OpenDatabase } from '../db/database';
import { isPostgresUrl, openPostgres, redactUrl, type PostgresDatabase } from '../db/engine';
import { appliedMigrations, migrateToLatest, MIGRATION_NAMES, newerSchemaMessage, schemaStatus } from '../db/migrate';
import { allSettings, readSetting, upsertSettings } from '../modules/auth/settings.repository';
import { SECRET_FILE, SECRET_SETTING } from '../modules/auth/tokens';
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
      return { tables, secret: await copySettings(from, source, to, target) };
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

/**
 * The settings every instance shares (tars_settings) and the JWT secret, which lives where each engine keeps it:
 * SQLite's in the data directory's file (mode 600), PostgreSQL's in the row `jwt_secret`. Tokens issued before the
 * copy stay valid wherever the secret goes.
 */
async function copySettings(from: Place, source: End, to: Place, target: End): Promise<string> {
  const rows = (await allSettings(source.db)).filter((r) => r.name !== SECRET_SETTING);
  const file = from.kind === 'dir' ? join(from.dir, SECRET_FILE) : undefined;
  const stored = file ? undefined : (await readSetting(source.db, SECRET_SETTING))?.trim();
  const secret = file ? (existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined) : stored;
  if (to.kind === 'postgres') {
    await upsertSettings(target.db, secret ? [...rows, { name: SECRET_SETTING, value: secret }] : rows);
    return secret
      ? `the JWT secret is copied into the database (table tars_settings): every instance started on it signs with it, and tokens issued before stay valid`
      : `the source has no JWT secret (it came from TARS_JWT_SECRET, or no server started on it): the first instance started on the database makes one`;
  }
  await upsertSettings(target.db, rows);
  if (!secret)
    return `the source has no JWT secret (it came from TARS_JWT_SECRET, or no server started on it): the first server started on ${to.dir} makes one`;
  const partial = join(to.dir, `${SECRET_FILE}.${process.pid}.tmp`);
  writeFileSync(partial, `${secret}\n`, { mode: 0o600 });
  renameSync(partial, join(to.dir, SECRET_FILE));
  return `the JWT secret is copied (${SECRET_FILE}, mode 600): tokens issued before stay valid`;
}

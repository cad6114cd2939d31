import { loadConfig } from '../config';
import { openDatabase, type OpenDatabase } from '../db/database';
import { openPostgres, type PostgresDatabase } from '../db/engine';
import { appliedMigrations, MIGRATION_NAMES } from '../db/migrate';
import { upgradeDatabase } from '../db/upgrade';
import { Validator } from '../validation/validation';
import { databasePath, ensureDataDir, openDataDir } from '../runtime';
import { readFixtureFile, seedFixture } from '../seed/seed';
import { copyDatabase, CopyRefused } from '../ops/db-copy';
import { CliError, DATA_DIR_HELP, DATA_DIR_OPTION, DATABASE_URL_HELP, DATABASE_URL_OPTION, EXIT, type Command } from './command';

export const dataDirOf = (values: Record<string, unknown>) =>
  loadConfig(process.env, { 'data-dir': values['data-dir'] as string | undefined }).dataDir;

export const seedCommand: Command = {
  name: ['seed'],
  summary: 'load a fixture file into the database',
  help: `Usage: tars seed FILE [--data-dir DIR]

Loads a fixture file (the format of docs/fixture-format.md) in one transaction: ids are kept,
passwords stored hashed. Every broken rule is reported as key[index].field; on any problem nothing
is written and the exit code is 1. Records whose ids already exist are reported as problems, so a
fixture is loaded into an empty data directory (or with \`tars serve --seed FILE\`).

${DATA_DIR_HELP}`,
  options: DATA_DIR_OPTION,
  positionals: { min: 1, max: 1 },
  async run(values, [file]) {
    const database = await openDataDir(dataDirOf(values));
    try {
      const validator = new Validator();
      const summary = await seedFixture(database, validator, await readFixtureFile(file as string), new Date());
      const counts = Object.entries(summary)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${n} ${k}`)
        .join(', ');
      process.stdout.write(`loaded ${file}: ${counts || 'nothing'}\n`);
      return EXIT.ok;
    } finally {
      await database.close();
    }
  },
};

export const migrateCommand: Command = {
  name: ['migrate'],
  summary: 'create or upgrade the database schema',
  help: `Usage: tars migrate [--data-dir DIR] [--database-url URL]

Applies every pending migration in one transaction (the server also does this on start) and lists
what was applied. Before upgrading a database that already holds data it writes a copy of it beside
it, tars.db.before-<last applied migration>.bak, and says so. A migration that fails leaves the
database as it was; a database made by a newer TARS is refused.

On PostgreSQL (--database-url or TARS_DATABASE_URL) no copy is written: take a pg_dump first
(docs/postgresql.md). Two instances migrating at once wait for each other; one applies.

${DATA_DIR_HELP}
${DATABASE_URL_HELP}`,
  options: { ...DATA_DIR_OPTION, ...DATABASE_URL_OPTION },
  positionals: { min: 0, max: 0 },
  postgres: true,
  async run(values) {
    const config = loadConfig(process.env, {
      'data-dir': values['data-dir'] as string | undefined,
      'database-url': values['database-url'] as string | undefined,
    });
    let database: OpenDatabase | PostgresDatabase;
    if (config.databaseUrl) database = openPostgres(config.databaseUrl);
    else {
      ensureDataDir(config.dataDir);
      database = openDatabase(databasePath(config.dataDir));
    }
    try {
      const { applied, backup } = await upgradeDatabase(database);
      const all = await appliedMigrations(database);
      if (backup) process.stdout.write(`backed up the database before the upgrade: ${backup}\n`);
      if (database.engine === 'postgres') process.stdout.write(`PostgreSQL database ${database.shownUrl}\n`);
      process.stdout.write(applied.length > 0 ? `applied ${applied.join(', ')}\n` : 'the schema is up to date\n');
      process.stdout.write(`schema version: ${all[all.length - 1] ?? 'none'} (${all.length} of ${MIGRATION_NAMES.length} migrations)\n`);
      return EXIT.ok;
    } finally {
      await database.close();
    }
  },
};

export const dbCopyCommand: Command = {
  name: ['db', 'copy'],
  summary: 'copy every row of a TARS database into an empty one (a data directory or PostgreSQL), verified',
  help: `Usage: tars db copy --from SOURCE --to TARGET

SOURCE and TARGET are each a data directory (its tars.db) or a PostgreSQL URL (postgres://…). The
target must hold no rows: a new data directory is created and migrated; an existing database must be at
this program's schema and empty. The source must be at this program's schema too (tars migrate it
first). Refused while a server runs on either data directory.

Every table is copied in one transaction on the target, parents before children, ids as they are (and
the ids a table has given before are not given again). The target is then read back: per table, the
rows and a SHA-256 of them in key order must equal the source's; one line per table says so, and any
difference is exit 1. The JWT secret file goes along between data directories; for PostgreSQL the
message says where it is. docs/postgresql.md says what runs on PostgreSQL today.`,
  options: { from: { type: 'string' }, to: { type: 'string' } },
  positionals: { min: 0, max: 0 },
  postgres: true,
  async run(values) {
    const from = values.from as string | undefined;
    const to = values.to as string | undefined;
    if (!from || !to) throw new CliError('say both --from and --to', EXIT.usage);
    const width = TABLE_NAME_WIDTH;
    let summary;
    try {
      summary = await copyDatabase(from, to, (t) =>
        process.stdout.write(
          `${t.table.padEnd(width)} ${String(t.rows).padStart(9)} ${t.checksum.slice(0, 16)} ${t.ok ? 'ok' : `DIFFERS: the target has ${t.targetRows} rows, ${t.targetChecksum.slice(0, 16)}`}\n`,
        ),
      );
    } catch (err) {
      if (err instanceof CopyRefused) throw new CliError(`${err.message}; nothing was written`);
      throw err;
    }
    const bad = summary.tables.filter((t) => !t.ok);
    const rows = summary.tables.reduce((n, t) => n + t.rows, 0);
    process.stdout.write(`${summary.secret}\n`);
    if (bad.length > 0) {
      process.stderr.write(
        `tars db copy: ${bad.length} table(s) differ after the copy (${bad.map((t) => t.table).join(', ')}); the target stays as written: empty it (a new data directory, or DROP and CREATE the PostgreSQL database) before copying again\n`,
      );
      return EXIT.failed;
    }
    process.stdout.write(`copied ${rows} rows of ${summary.tables.length} tables; every table reads back as in the source\n`);
    return EXIT.ok;
  },
};

/** The width of the table column of `tars db copy`'s lines (the longest TARS table name). */
const TABLE_NAME_WIDTH = 26;

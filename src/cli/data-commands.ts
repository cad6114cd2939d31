import { loadConfig } from '../config';
import { openDatabase } from '../db/database';
import { appliedMigrations, MIGRATION_NAMES } from '../db/migrate';
import { upgradeDatabase } from '../db/upgrade';
import { Validator } from '../validation/validation';
import { databasePath, ensureDataDir, openDataDir } from '../runtime';
import { readFixtureFile, seedFixture } from '../seed/seed';
import { DATA_DIR_HELP, DATA_DIR_OPTION, EXIT, type Command } from './command';

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
  help: `Usage: tars migrate [--data-dir DIR]

Applies every pending migration in one transaction (the server also does this on start) and lists
what was applied. Before upgrading a database that already holds data it writes a copy of it beside
it, tars.db.before-<last applied migration>.bak, and says so. A migration that fails leaves the
database as it was; a database made by a newer TARS is refused.

${DATA_DIR_HELP}`,
  options: DATA_DIR_OPTION,
  positionals: { min: 0, max: 0 },
  async run(values) {
    const dataDir = dataDirOf(values);
    ensureDataDir(dataDir);
    const database = openDatabase(databasePath(dataDir));
    try {
      const { applied, backup } = await upgradeDatabase(database);
      const all = await appliedMigrations(database);
      if (backup) process.stdout.write(`backed up the database before the upgrade: ${backup}\n`);
      process.stdout.write(applied.length > 0 ? `applied ${applied.join(', ')}\n` : 'the schema is up to date\n');
      process.stdout.write(`schema version: ${all[all.length - 1] ?? 'none'} (${all.length} of ${MIGRATION_NAMES.length} migrations)\n`);
      return EXIT.ok;
    } finally {
      await database.close();
    }
  },
};

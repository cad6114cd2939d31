import { resolve } from 'node:path';
import { createBackup } from '../ops/backup';
import { checkInstallation } from '../ops/check';
import { restoreBackup } from '../ops/restore';
import { DATA_DIR_HELP, DATA_DIR_OPTION, DATABASE_URL_HELP, DATABASE_URL_OPTION, EXIT, type Command } from './command';
import { dataDirOf } from './data-commands';

export const backupCommand: Command = {
  name: ['backup'],
  summary: 'write a consistent copy of the database and its JWT secret to a file',
  help: `Usage: tars backup FILE [--data-dir DIR]

Copies the database with SQLite's online backup API while a server may keep serving and writing, into
one self-contained SQLite file that also holds the JWT secret of the data directory (so that tokens
issued before stay valid after a restore). FILE must not exist yet. It holds password hashes and the
secret: it is written with mode 0600; keep it as safe as the data directory.

${DATA_DIR_HELP}`,
  options: DATA_DIR_OPTION,
  positionals: { min: 1, max: 1 },
  postgres: {
    refusal: (url) => onPostgres(`back up with PostgreSQL's pg_dump: pg_dump --format=custom --file=tars-$(date +%F).dump '${url}'`),
  },
  async run(values, [file]) {
    const target = resolve(file as string);
    const summary = await createBackup(dataDirOf(values), target);
    const secret = summary.withSecret
      ? 'with the JWT secret'
      : 'without a JWT secret: the data directory has none (it comes from TARS_JWT_SECRET, or no server has started yet)';
    process.stdout.write(`backed up to ${target}: ${summary.bytes} bytes, schema ${summary.schema}, ${secret}\n`);
    return EXIT.ok;
  },
};

export const restoreCommand: Command = {
  name: ['restore'],
  summary: 'replace the database of a data directory with a backup (server stopped)',
  help: `Usage: tars restore FILE [--data-dir DIR]

Checks FILE (SQLite's integrity_check; a TARS schema not newer than this program's), then replaces the
database of the data directory and its JWT secret with the backup's. Refused while a server runs on
that data directory: stop it first. The database it replaces is kept beside it, renamed
tars.db.replaced-<time>. A backup made by an older TARS is upgraded by the next start.

${DATA_DIR_HELP}`,
  options: DATA_DIR_OPTION,
  positionals: { min: 1, max: 1 },
  postgres: {
    refusal: (url) =>
      onPostgres(`restore with PostgreSQL's pg_restore into an empty database: pg_restore --dbname='${url}' FILE, then run tars migrate`),
  },
  async run(values, [file]) {
    const dataDir = dataDirOf(values);
    const summary = await restoreBackup(resolve(file as string), dataDir);
    const lines = [`restored ${file} (made ${summary.createdAt ?? 'at an unknown time'}) into ${dataDir}: schema ${summary.schema}`];
    if (summary.pending.length > 0) lines.push(`${summary.pending.length} migration(s) pending: the next start applies them`);
    lines.push(
      summary.secretRestored
        ? 'the JWT secret of the backup is restored'
        : 'the backup has no JWT secret: the data directory keeps its own',
    );
    if (summary.replaced) lines.push(`the database it replaced is in ${summary.replaced}`);
    process.stdout.write(`${lines.join('\n')}\n`);
    return EXIT.ok;
  },
};

export const checkCommand: Command = {
  name: ['check'],
  summary: 'check the configuration, database, disk space and SMTP server',
  help: `Usage: tars check [--data-dir DIR] [--database-url URL]

Reports, one line each, starting with "ok" or "problem": the configuration, the database's integrity
and schema version (up to date, migrations pending, or newer than this program), the JWT secret, the
free disk space of the data directory, whether the SMTP server of TARS_SMTP_URL answers, and whether a
server is running. Changes nothing. Exit code 1 when any line says "problem".

On PostgreSQL: the server's version (13 or later), the schema version, that every text column
compares by code point (collation "C"), synchronous_commit and data_checksums, the clock difference
with the database server (at most 1 s), and how many instances max_connections leaves room for.

${DATA_DIR_HELP}
${DATABASE_URL_HELP}`,
  options: { ...DATA_DIR_OPTION, ...DATABASE_URL_OPTION },
  positionals: { min: 0, max: 0 },
  postgres: true,
  async run(values) {
    const findings = await checkInstallation(process.env, {
      'data-dir': values['data-dir'] as string | undefined,
      'database-url': values['database-url'] as string | undefined,
    });
    for (const f of findings) process.stdout.write(`${f.ok ? 'ok' : 'problem'} ${f.what}: ${f.detail}\n`);
    return findings.every((f) => f.ok) ? EXIT.ok : EXIT.failed;
  },
};

/** On PostgreSQL the database's own tools back up and restore (issue 32: not reimplemented here): which to use. */
const onPostgres = (advice: string) => `TARS_DATABASE_URL names a PostgreSQL database: ${advice} (docs/postgresql.md, "Backups")`;

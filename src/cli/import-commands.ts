import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { systemClock } from '../clock';
import { tuneForBulkImport, type OpenDatabase } from '../db/database';
import { openPostgres, type PostgresDatabase } from '../db/engine';
import { basename, resolve } from 'node:path';
import { loadConfig } from '../config';
import { CdrImporter } from '../modules/pbx-logs/cdr-importer';
import { EVENTS_NOT_ON_POSTGRES, ImportRefused } from '../modules/pbx-logs/import-run';
import { holdingImportLock, LOCK_HELD } from '../modules/pbx-logs/pbx-logs-postgres.repository';
import { layoutOf } from '../modules/pbx-logs/cdr-line';
import { isTimezone } from '../time/zone';
import { followFile, importFile, type LineImporter } from '../modules/pbx-logs/file-import';
import type { ImportOptions } from '../modules/pbx-logs/import-run';
import { pbxEventHook } from '../modules/pbx-logs/pbx-events';
import { QueueLogImporter } from '../modules/pbx-logs/queue-log-importer';
import type { ImportTarget } from '../modules/pbx-logs/stores';
import { openDataDir } from '../runtime';
import { CliError, DATA_DIR_HELP, DATABASE_URL_HELP, DATABASE_URL_OPTION, EXIT, type Command, type Values } from './command';

const OPTIONS = {
  'data-dir': { type: 'string' },
  ...DATABASE_URL_OPTION,
  follow: { type: 'boolean' },
  'emit-events': { type: 'boolean' },
  timezone: { type: 'string' },
  columns: { type: 'string' },
} as const;

function helpOf(kind: 'queue-log' | 'cdr', what: string): string {
  const columns =
    kind === 'cdr'
      ? `
  --columns a,b,c  the file's columns by name, for a cdr_custom layout (names as in cdr_csv: start or
                   calldate, src, dst, channel, dstchannel, lastapp, duration, billsec, disposition …);
                   without it: the file's header row when it has one, else cdr_csv's order`
      : '';
  return `Usage: tars import ${kind} FILE [--data-dir DIR] [--timezone ZONE]${kind === 'cdr' ? ' [--columns a,b,c]' : ''} [--follow] [--emit-events]

Imports ${what} into the database, streaming (memory stays flat whatever the file's size), in chunks
of one transaction each, so it may run while the server runs on the same data directory. Shows a
progress bar on a terminal and prints a one-line summary: lines read, imported, duplicates, skipped
(with reasons), and names that match no queue or extension (those are reported, never created).

Importing a file again, or a file that overlaps one imported before, stores nothing twice; an import
that was killed is finished by running it again. Import the queue_log before the CDR when you can:
either order gives the same reports, this one is faster.

On PostgreSQL (--database-url or TARS_DATABASE_URL) the chunks of every import of every instance run one at a
time, and an import of a file another instance is importing now is refused (its first 64 KiB name it);
--follow and --emit-events are refused there for now (webhook events are written through SQLite only).

${DATA_DIR_HELP}
${DATABASE_URL_HELP}
  --timezone ZONE  the PBX's zone, in which wall-clock times are read (Master.csv, datetime queue_log
                   times): an IANA name such as Europe/Moscow, or UTC (default: $TARS_PBX_TIMEZONE, else
                   this machine's zone); the summary names the zone it used${columns}
  --follow         keep running and import lines as they are appended; follows log rotation
                   (a new file at the path, or the file truncated). Stop with Ctrl-C or SIGTERM.
                   Lines appended while it follows arrive live: they fire webhook events (STARTCALL,
                   ENDCALL, NEWVOICEMAIL, QUEUECALLABANDONED), which the running server delivers.
  --emit-events    fire webhook events for the lines already in the file too (a bulk import of
                   history fires none without it)`;
}

/** The name of a file's import lock on PostgreSQL: its kind and a SHA-256 of its first 64 KiB (the same file wherever it is read from). */
async function importLockName(kind: string, file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(65_536), 0, 65_536, 0);
    return `import:${kind}:${createHash('sha256').update(buffer.subarray(0, bytesRead)).digest('hex')}`;
  } finally {
    await handle.close();
  }
}

function importCommand(
  kind: 'queue-log' | 'cdr',
  what: string,
  make: (target: ImportTarget, opts: ImportOptions) => LineImporter,
): Command {
  return {
    name: ['import', kind],
    summary: `import ${what}`,
    help: helpOf(kind, what),
    options: OPTIONS,
    positionals: { min: 1, max: 1 },
    postgres: true,
    async run(values: Values, [file]: string[]) {
      const config = loadConfig(process.env, {
        'data-dir': values['data-dir'] as string | undefined,
        'database-url': values['database-url'] as string | undefined,
      });
      const timezone = (values.timezone as string | undefined) ?? config.pbxTimezone;
      if (!isTimezone(timezone))
        throw new CliError(`--timezone must be an IANA timezone name such as Europe/Moscow, or UTC, got "${timezone}"`);
      const cdrColumns = typeof values.columns === 'string' ? values.columns.split(',').map((c) => c.trim()) : undefined;
      if (cdrColumns && kind !== 'cdr') throw new CliError('--columns is for tars import cdr');
      const columnsProblem = cdrColumns ? layoutOf(cdrColumns) : undefined;
      if (typeof columnsProblem === 'string') throw new CliError(`--columns: ${columnsProblem}`);
      if (config.databaseUrl && (values.follow || values['emit-events'])) throw new CliError(EVENTS_NOT_ON_POSTGRES);
      let database: OpenDatabase | PostgresDatabase;
      if (config.databaseUrl) database = openPostgres(config.databaseUrl);
      else {
        database = await openDataDir(config.dataDir);
        tuneForBulkImport(database.sqlite);
      }
      const events = pbxEventHook(() => systemClock.now(), values['emit-events'] === true);
      // Lines are collected for the hook only when it may fire: a plain bulk import stays at full speed.
      const hook = values['emit-events'] || values.follow ? { onChunk: events.onChunk } : {};
      // Recorded for the console's recent imports (GET /v2/pbx/imports), with the file's full path for "Import again".
      const record = {
        source: values.follow ? 'follow' : 'file',
        kind: kind === 'queue-log' ? 'queue_log' : 'cdr',
        path: resolve(file as string),
        now: () => systemClock.now(),
      } as const;
      const importer = make(database, { ...hook, timezone, cdrColumns, record });
      const progress = progressBar(importer);
      try {
        const read = () =>
          values.follow
            ? followFile(importer, file as string, stopSignal(), {
                onProgress: progress.update,
                onCaughtUp: () => (events.live = true),
              })
            : importFile(importer, file as string, { onProgress: progress.update });
        const summary =
          database.engine === 'postgres'
            ? await holdingImportLock(database.db, await importLockName(kind, file as string), read)
            : await read();
        if (summary === LOCK_HELD)
          throw new CliError(`${file}: an import of this file is running now (another tars import on this database); nothing was imported`);
        progress.done();
        process.stdout.write(`${kind} ${basename(file as string)}: ${summary.toText()}\n`);
        return EXIT.ok;
      } catch (err) {
        progress.done();
        if (err instanceof ImportRefused) throw new CliError(`${file}: ${err.message}`);
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') throw new CliError(`${file}: cannot be read (${code})`);
        throw err;
      } finally {
        await database.close();
      }
    },
  };
}

/** Aborts on the first SIGINT or SIGTERM, so --follow finishes its chunk and prints its summary. */
function stopSignal(): AbortSignal {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return controller.signal;
}

/** A progress bar on stderr when it is a terminal; nothing otherwise. */
function progressBar(importer: LineImporter) {
  const tty = process.stderr.isTTY === true;
  let last = 0;
  return {
    update(position: number, size: number) {
      const now = Date.now();
      if (!tty || now - last < 100) return;
      last = now;
      const ratio = size > 0 ? Math.min(1, position / size) : 1;
      const width = 30;
      const filled = Math.round(ratio * width);
      process.stderr.write(
        `\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}%  ${importer.summary.read} lines`,
      );
    },
    done() {
      if (tty && last > 0) process.stderr.write('\r\x1b[K');
    },
  };
}

export const importQueueLogCommand = importCommand(
  'queue-log',
  'an Asterisk queue_log file',
  (sqlite, opts) => new QueueLogImporter(sqlite, opts),
);
export const importCdrCommand = importCommand('cdr', 'an Asterisk CDR file (Master.csv)', (sqlite, opts) => new CdrImporter(sqlite, opts));

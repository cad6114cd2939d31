import { parseArgs } from 'node:util';
import { ConfigError } from './config';
import { redactUrl } from './db/engine';
import { AppError, sqliteCode } from './errors';
import { CliError, EXIT, type Command } from './cli/command';
import { dbCopyCommand, migrateCommand, seedCommand } from './cli/data-commands';
import { DIRECTORY_COMMANDS } from './cli/directory-commands';
import { pbxSyncCommand } from './cli/pbx-commands';
import { backupCommand, checkCommand, restoreCommand } from './cli/ops-commands';
import { importCdrCommand, importQueueLogCommand } from './cli/import-commands';
import { reportRunCommand } from './cli/report-commands';
import { serveCommand } from './cli/serve';
import { userAddCommand, userPasswordCommand } from './cli/user-commands';
import { SeedError } from './seed/seed';
import { VERSION } from './version';

/** Every command of the `tars` CLI. */
export const COMMANDS: readonly Command[] = [
  serveCommand,
  seedCommand,
  migrateCommand,
  dbCopyCommand,
  importQueueLogCommand,
  importCdrCommand,
  userAddCommand,
  userPasswordCommand,
  ...DIRECTORY_COMMANDS,
  pbxSyncCommand,
  backupCommand,
  restoreCommand,
  checkCommand,
  reportRunCommand,
];

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.join(' ').length));
  return `TARS ${VERSION}: the Telephony Administration and Reporting Server

Usage: tars <command> [options]      tars <command> --help for its options

Commands:
${COMMANDS.map((c) => `  ${c.name.join(' ').padEnd(width)}  ${c.summary}`).join('\n')}

  tars --version                      print the versions of TARS, Node.js and SQLite
`;
}

async function versions(): Promise<string> {
  const { default: Sqlite } = await import('better-sqlite3');
  const { nativeBinding } = await import('./db/native');
  const binding = nativeBinding();
  const { sqliteVersion } = await import('./db/database');
  const db = new Sqlite(':memory:', binding ? { nativeBinding: binding as unknown as string } : {});
  const sqlite = sqliteVersion(db);
  db.close();
  return `tars ${VERSION}\nnode ${process.versions.node}\nsqlite ${sqlite}\n`;
}

/**
 * Why a command refuses while TARS_DATABASE_URL is set: it would read and write the data directory's SQLite file,
 * not the database the operator named (issue 32 brings the rest; docs/postgresql.md says what runs there today).
 */
export const NOT_ON_POSTGRES =
  'TARS_DATABASE_URL is set, and this command does not work on PostgreSQL yet (docs/postgresql.md lists the commands that do); unset TARS_DATABASE_URL to work on the SQLite file of the data directory';

/** Runs the command line; resolves with the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const [first, second] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(overview());
    return first === undefined ? EXIT.usage : EXIT.ok;
  }
  if (first === '--version' || first === '-v' || first === 'version') {
    process.stdout.write(await versions());
    return EXIT.ok;
  }
  const command = COMMANDS.find((c) => (c.name.length === 2 ? c.name[0] === first && c.name[1] === second : c.name[0] === first));
  if (!command) {
    const group = COMMANDS.filter((c) => c.name[0] === first);
    process.stderr.write(
      group.length > 0
        ? `tars ${first}: say which: ${group.map((c) => c.name.join(' ')).join(', ')}\n`
        : `tars: unknown command "${first}"\n\n${overview()}`,
    );
    return EXIT.usage;
  }
  const rest = argv.slice(command.name.length);
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${command.help}\n`);
    return EXIT.ok;
  }
  let parsed: { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...rest], options: command.options, allowPositionals: true, strict: true }) as typeof parsed;
  } catch (err) {
    process.stderr.write(`tars ${command.name.join(' ')}: ${(err as Error).message}\n\n${command.help}\n`);
    return EXIT.usage;
  }
  const { min, max } = command.positionals;
  if (parsed.positionals.length < min || parsed.positionals.length > max) {
    process.stderr.write(`tars ${command.name.join(' ')}: wrong number of arguments\n\n${command.help}\n`);
    return EXIT.usage;
  }
  const databaseUrl = process.env.TARS_DATABASE_URL;
  if (databaseUrl && command.postgres !== true) {
    process.stderr.write(`tars ${command.name.join(' ')}: ${command.postgres?.refusal(redactUrl(databaseUrl)) ?? NOT_ON_POSTGRES}\n`);
    return EXIT.usage;
  }
  try {
    return await command.run(parsed.values, parsed.positionals);
  } catch (err) {
    return report(command, err);
  }
}

function report(command: Command, err: unknown): number {
  const name = `tars ${command.name.join(' ')}`;
  if (err instanceof ConfigError) {
    process.stderr.write(`${name}: ${err.message}\n`);
    return EXIT.usage;
  }
  if (err instanceof AppError) {
    // A service's refusal, as the HTTP API words it (a name taken, a configuration that cannot be read …).
    const details = err.validationErrors?.join('; ') ?? '';
    process.stderr.write(`${name}: ${err.message}${details && !err.message.includes(details) ? `: ${details}` : ''}\n`);
    return EXIT.failed;
  }
  if (err instanceof CliError || err instanceof SeedError) {
    process.stderr.write(`${name}: ${err.message}\n`);
    return err instanceof CliError ? err.exitCode : EXIT.failed;
  }
  if (sqliteCode(err) === 'SQLITE_FULL') {
    process.stderr.write(
      `${name}: the disk of the data directory is full. What was saved before stays; free some space and run the command again\n`,
    );
    return EXIT.failed;
  }
  process.stderr.write(`${name}: ${err instanceof Error ? err.message : String(err)}\n`);
  if (process.env.TARS_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  return EXIT.failed;
}

/** The entry point of the bundle and the executable. */
export function run(): void {
  // Everything TARS writes (database, WAL, backups, secrets) is for the service user alone.
  process.umask(0o077);
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
      // serve resolves only when it has stopped; other commands may leave timers (e.g. SMTP pools) behind.
      setImmediate(() => process.exit(code));
    },
    (err: unknown) => {
      process.stderr.write(`tars: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(EXIT.failed);
    },
  );
}

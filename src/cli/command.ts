import type { ParseArgsConfig } from 'node:util';
import { SETTINGS } from '../config';

export type Options = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | string[] | undefined>;

/** One CLI command: `tars <name…> [positionals] [options]`. */
export interface Command {
  /** e.g. ['serve'] or ['user', 'add'] */
  readonly name: readonly string[];
  readonly summary: string;
  /** The usage line and what follows it in --help. */
  readonly help: string;
  readonly options: Options;
  readonly positionals: { readonly min: number; readonly max: number };
  /**
   * On PostgreSQL (TARS_DATABASE_URL set): `true`, it works there too; else it refuses to run, with the sentence
   * `refusal` gives for the URL (password hidden), or by default the one that says it does not work there yet.
   */
  readonly postgres?: true | { readonly refusal: (shownUrl: string) => string };
  /** Returns the exit code. */
  run(values: Values, positionals: string[]): Promise<number>;
}

/** Exit codes: 0 done, 1 the work failed, 2 the command line or the configuration is wrong. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export const DATA_DIR_OPTION = { 'data-dir': { type: 'string' } } as const satisfies Options;
type ServerFlag = Exclude<(typeof SETTINGS)[number][0], ''>;

/** The --help line of a flag that is also a setting: its variable and default come from SETTINGS (src/config.ts). */
export function settingHelp(flag: ServerFlag, usage: string, what: string, note = ''): string {
  const [, env, def] = SETTINGS.find((s) => s[0] === flag) ?? [];
  const fallback = def ? `, else ${def}` : '';
  return `  ${`${flag} ${usage}`.padEnd(17)}${what} (default: $${env}${fallback}${note ? `; ${note}` : ''})`;
}

export const DATA_DIR_HELP = settingHelp('--data-dir', 'DIR', 'data directory');

export const DATABASE_URL_OPTION = { 'database-url': { type: 'string' } } as const satisfies Options;
export const DATABASE_URL_HELP = settingHelp('--database-url', 'URL', 'PostgreSQL instead of the SQLite file');

/** A failure to report in one line (no stack), with its exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
  }
}

import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock, type Clock } from './clock';
import type { Config } from './config';
import { openDatabase, type OpenDatabase } from './db/database';
import { upgradeDatabase, type UpgradeResult } from './db/upgrade';
import type { AppDeps } from './deps';
import { Validator } from './validation/validation';
import type { Logger } from './log';
import { createMailer } from './mail/mailer';
import { createSmsGateway } from './mail/sms';
import { registerGauges } from './metrics/gauges';
import { Metrics } from './metrics/metrics';
import { jwtSecretFor, TokenService } from './modules/auth/tokens';
import { LiveQueues } from './modules/live-queues/live-queues';
import { sessionResolver } from './modules/console/sessions.service';
import { registerWebhookTypeFormat } from './modules/webhooks/webhooks.service';

export const DATABASE_FILE = 'tars.db';

export function databasePath(dataDir: string): string {
  return join(dataDir, DATABASE_FILE);
}

/** Creates the data directory (mode 0700: it holds the database and the JWT secret). */
export function ensureDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    chmodSync(dataDir, 0o700);
  } catch {
    /* not ours to change (e.g. a mounted volume); the files inside keep their own modes */
  }
}

/** Says where the copy made before an upgrade is; by default on stderr (the server logs it instead). */
export type UpgradeReporter = (result: UpgradeResult) => void;

const reportOnStderr: UpgradeReporter = ({ applied, backup }) => {
  if (backup) process.stderr.write(`upgraded the database schema (${applied.join(', ')}); the database as it was before is in ${backup}\n`);
};

/** Opens and upgrades the database of a data directory: what every command that touches data starts with. */
export async function openDataDir(dataDir: string, report: UpgradeReporter = reportOnStderr): Promise<OpenDatabase> {
  ensureDataDir(dataDir);
  const database = openDatabase(databasePath(dataDir));
  try {
    report(await upgradeDatabase(database));
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
}

/** Everything the app and the jobs need, built from the configuration. */
export async function buildDeps(config: Config, log: Logger, clock: Clock = systemClock): Promise<AppDeps> {
  const database = await openDataDir(config.dataDir, ({ applied, backup }) => {
    if (backup) log.info({ applied, backup }, 'upgraded the database schema; the database as it was before is in the backup file');
  });
  // The validators were compiled at build time (scripts/gen-validators.ts): nothing to compile here; the formats
  // whose values a module knows are registered by it.
  registerWebhookTypeFormat();
  const validator = new Validator();
  const deps: AppDeps = {
    config,
    database,
    db: database.db,
    log,
    validator,
    clock,
    tokens: new TokenService(await jwtSecretFor(database.db, config.dataDir, config.jwtSecret), config.tokenTtlSeconds),
    mailer: createMailer(config.smtpUrl, config.mailFrom),
    sms: createSmsGateway(config.smsGatewayUrl),
    metrics: new Metrics(),
    live: new LiveQueues(config.amiTargets, log, { now: () => new Date(clock.now()) }),
    sessions: sessionResolver({ db: database.db, clock, lifetimeSeconds: config.tokenTtlSeconds }),
  };
  registerGauges(deps);
  return deps;
}

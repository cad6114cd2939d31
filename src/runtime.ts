import { chmodSync, mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { systemClock, type Clock } from './clock';
import type { Config } from './config';
import { openDatabase, type OpenDatabase } from './db/database';
import { openPostgres, type AnyDatabase, type PostgresDatabase } from './db/engine';
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
import type { LiveSharing } from './modules/live-queues/live-share';
import { PgCoordinator } from './db/coordination';
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

/**
 * Opens and upgrades the PostgreSQL database of `url`, as `tars migrate --database-url` does: the migrations run in
 * one transaction under PostgreSQL's advisory lock (src/db/migrate.ts), so instances starting together apply them once.
 */
export async function openPostgresDatabase(url: string, log: Logger): Promise<PostgresDatabase> {
  const database = openPostgres(url);
  try {
    const { applied } = await upgradeDatabase(database);
    log.info(
      { database: database.shownUrl, applied },
      applied.length > 0 ? 'upgraded the PostgreSQL database schema' : 'PostgreSQL database',
    );
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
}

/**
 * The database of the configuration: PostgreSQL when config.databaseUrl is set, else the data directory's SQLite
 * file; opened and upgraded. The data directory is made in both cases (the JWT secret file lives there).
 */
export async function openConfiguredDatabase(config: Config, log: Logger): Promise<AnyDatabase> {
  ensureDataDir(config.dataDir);
  if (config.databaseUrl) return openPostgresDatabase(config.databaseUrl, log);
  return openDataDir(config.dataDir, ({ applied, backup }) => {
    if (backup) log.info({ applied, backup }, 'upgraded the database schema; the database as it was before is in the backup file');
  });
}

/**
 * On PostgreSQL, the instances on one database share the AMI links (docs/live-queues.md, "Several instances"): one
 * holds each, through a coordinator session of its own. On SQLite there is one process, which holds them all.
 */
function liveSharing(config: Config, database: AnyDatabase): LiveSharing | undefined {
  if (database.engine !== 'postgres' || !config.databaseUrl || config.amiTargets.length === 0) return undefined;
  return { coordinator: new PgCoordinator(config.databaseUrl), db: database.db, holder: `${hostname()} pid ${process.pid}` };
}

/** Everything the app and the jobs need, built from the configuration. */
export async function buildDeps(config: Config, log: Logger, clock: Clock = systemClock): Promise<AppDeps> {
  const database = await openConfiguredDatabase(config, log);
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
    live: new LiveQueues(config.amiTargets, log, { now: () => new Date(clock.now()), sharing: liveSharing(config, database) }),
    sessions: sessionResolver({ db: database.db, clock, lifetimeSeconds: config.tokenTtlSeconds }),
  };
  registerGauges(deps);
  return deps;
}

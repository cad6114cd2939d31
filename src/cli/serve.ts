import type { Server } from 'node:http';
import type { Express } from 'express';
import { createApp } from '../app';
import { loadConfig, type Config } from '../config';
import type { AppDeps } from '../deps';
import { createLogger, serverLogOutput, type Logger } from '../log';
import { closeDatabase, runStopHooks, stopHttpServer, untilStopSignal, type StopHook } from '../ops/shutdown';
import { lockDataDir } from '../ops/server-lock';
import { jobsOf } from '../jobs/index';
import { startJobs } from '../jobs/jobs';
import { AlertWatcher } from '../modules/live-queues/alerts';
import { hasTenants } from '../seed/seed.repository';
import { LiveCallEvents } from '../modules/live-queues/live-call-events';
import { PbxZone } from '../modules/pbx-logs/pbx-zone';
import { buildDeps, ensureDataDir } from '../runtime';
import { readFixtureFile, seedFixture } from '../seed/seed';
import { ensureFirstAdmin } from '../modules/users/bootstrap';
import { bindAddress, closeBound, SERVER_TIMEOUTS, serveApp, shownAddress } from './bind';
import { DATA_DIR_HELP, DATABASE_URL_HELP, DATABASE_URL_OPTION, EXIT, settingHelp, type Command } from './command';

export const serveCommand: Command = {
  name: ['serve'],
  summary: 'run the HTTP server',
  help: `Usage: tars serve [--port N] [--host H] [--data-dir DIR] [--database-url URL] [--seed FILE] [--pbx-config-dir DIR]

Runs the API server on the SQLite database in the data directory, creating and migrating it on first
start; on PostgreSQL with --database-url or TARS_DATABASE_URL (migrated the same way; the data directory
still holds the JWT secret; what does not run there yet: docs/postgresql.md). When the database has no user yet, it creates a platform administrator (TARS_ADMIN_EMAIL and
TARS_ADMIN_PASSWORD, or a generated password printed once). Prints "listening on http://HOST:PORT"
once it accepts connections (https:// with TARS_TLS_CERT and TARS_TLS_KEY).

${settingHelp('--port', 'N', 'TCP port', '0 picks a free port')}
${settingHelp('--host', 'H', 'address to listen on')}
${DATA_DIR_HELP}
${DATABASE_URL_HELP}
${settingHelp('--seed', 'FILE', 'load this fixture file first when the database is empty')}
${settingHelp('--pbx-config-dir', 'DIR', "the PBX's configuration directory the console's Config sync plans from")}

Every TARS_* variable is listed in the README. While it runs, the data directory holds server.lock
(tars restore refuses to run then; a lock left by a crash is recognised as stale). SIGTERM or SIGINT
stops it cleanly: no new connections, requests in flight finish (at most 10 s), background work stops,
the WAL is checkpointed, the database closed, exit code 0. A second signal exits at once (code 1).`,
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    ...DATABASE_URL_OPTION,
    'data-dir': { type: 'string' },
    seed: { type: 'string' },
    'pbx-config-dir': { type: 'string' },
  },
  positionals: { min: 0, max: 0 },
  postgres: true,
  async run(values) {
    const config = loadConfig(process.env, values as Record<string, string>);
    const out = serverLogOutput();
    const log = createLogger(config.logLevel, out);
    const server = await bindAddress(config.host, config.port, SERVER_TIMEOUTS, config.tls);
    let lock: ReturnType<typeof lockDataDir>;
    try {
      ensureDataDir(config.dataDir);
      lock = lockDataDir(config.dataDir);
    } catch (err) {
      closeBound(server);
      throw err;
    }
    const starting = start(config, log, out, server).then(
      (hooks) => [...hooks, { name: 'lock', stop: () => lock.release() }],
      (err: unknown) => {
        closeBound(server);
        lock.release();
        throw err;
      },
    );
    // Listening for signals from the start: one that arrives while starting stops the server once it has started.
    const stopped = untilStopSignal(async (signal) => {
      log.info({ signal }, 'stopping');
      const clean = await runStopHooks(await starting, log);
      log.info('stopped');
      return clean ? EXIT.ok : EXIT.failed;
    }, EXIT.failed);
    await starting;
    return stopped;
  },
};

/** Opens (and upgrades) the database, prepares the data, listens; returns what to stop, in order. */
async function start(config: Config, log: Logger, out: Output, server: Server): Promise<StopHook[]> {
  const deps = await buildDeps(config, log);
  try {
    await prepareData(deps);
    listen(server, createApp(deps), config, log, out);
    return [
      // The live layer first: its streams end with it, so the HTTP server need not wait for them.
      { name: 'live queues', stop: () => deps.live.stop() },
      stopHttpServer(server),
      ...startBackgroundWork(deps),
      { name: 'mailer', stop: () => deps.mailer.close() },
      deps.database.engine === 'sqlite' ? closeDatabase(deps.database, log) : { name: 'database', stop: () => deps.database.close() },
    ];
  } catch (err) {
    deps.mailer.close();
    await deps.database.close();
    throw err;
  }
}

/**
 * The cron jobs are scheduled this long after the server listens: scheduling them and the first catch-up of
 * scheduled reports took 5-8 ms, which the requests that waited for the start (a readiness probe, clients
 * of a restarted server) no longer wait for.
 */
const JOBS_START_AFTER_MS = 100;

/**
 * Background work beside the HTTP server (the cron jobs of src/jobs/jobs.ts, the webhook delivery worker, the
 * AMI links of the live layer, whose stop hook comes before the HTTP server's): start it here and return its
 * stop hooks. They run after the HTTP server has stopped and before the database closes, so a job never finds
 * the database gone; each stops at a safe point, bounded.
 */
function startBackgroundWork(deps: AppDeps): StopHook[] {
  const jobs = startJobs(deps, jobsOf(deps), JOBS_START_AFTER_MS);
  deps.live.start();
  const alerts = new AlertWatcher(deps);
  alerts.start();
  const zone = new PbxZone(deps.config.pbxTimezone);
  const calls = new LiveCallEvents(deps.live, deps.database.db, zone, deps.log, deps.clock);
  calls.start();
  return [
    { name: 'jobs', stop: () => jobs.stop() },
    { name: 'queue alerts', stop: () => alerts.stop() },
    // The events already received are written before the database closes.
    {
      name: 'live call events',
      stop: () => {
        calls.stop();
        return calls.idle();
      },
    },
  ];
}

async function prepareData(deps: AppDeps): Promise<void> {
  const { config, log } = deps;
  const { db } = deps.database;
  if (config.seed) {
    if (!(await hasTenants(db))) {
      const summary = await seedFixture(deps.database, deps.validator, await readFixtureFile(config.seed), new Date(deps.clock.now()));
      log.info({ file: config.seed, ...summary }, 'fixture loaded');
    } else {
      log.info({ file: config.seed }, 'the database already holds data: the fixture was not loaded again');
    }
  }
  const admin = await ensureFirstAdmin(db, config.adminEmail, config.adminPassword, new Date(deps.clock.now()));
  if (admin) {
    log.info({ email: admin.email }, 'created the first platform administrator');
    if (admin.generatedPassword) {
      process.stderr.write(
        `\nFirst platform administrator: ${admin.email}\nGenerated password (shown once, change it with \`tars user password\`): ${admin.generatedPassword}\n\n`,
      );
    }
  }
}

/** Standard output: the log's lines and the "listening on" line, in the order they were written. */
type Output = ReturnType<typeof serverLogOutput>;

/** The app takes the requests of the address bound at the start (./bind.ts), and the "listening on" line is printed. */
function listen(server: Server, app: Express, config: Config, log: Logger, out: Output): void {
  serveApp(server, app);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  out.write(`listening on ${shownAddress(config.host, port, config.tls !== undefined)}\n`);
  log.info({ host: config.host, port, tls: config.tls !== undefined }, 'listening');
}

import type { Server } from 'node:http';
import { createApp } from '../app';
import { loadConfig } from '../config';
import { createLogger } from '../log';
import { buildDeps } from '../runtime';
import { readFixtureFile, seedFixture } from '../seed/seed';
import { ensureFirstAdmin } from '../modules/users/bootstrap';
import { jobsOf } from '../jobs/index';
import { startJobs } from '../jobs/jobs';
import { EXIT, type Command } from './command';

export const serveCommand: Command = {
  name: ['serve'],
  summary: 'run the HTTP server',
  help: `Usage: tars serve [--port N] [--host H] [--data-dir DIR] [--seed FILE]

Runs the API server on the SQLite database in the data directory, creating and migrating it on first
start. When the database has no user yet, it creates a platform administrator (TARS_ADMIN_EMAIL and
TARS_ADMIN_PASSWORD, or a generated password printed once). Prints "listening on http://HOST:PORT"
once it accepts connections.

  --port N         TCP port (default: $TARS_PORT, else 8080; 0 picks a free port)
  --host H         address to listen on (default: $TARS_HOST, else 0.0.0.0)
  --data-dir DIR   data directory (default: $TARS_DATA_DIR, else ./data)
  --seed FILE      load this fixture file first when the database is empty (default: $TARS_SEED)

Every TARS_* variable is listed in the README. SIGTERM or SIGINT stops the server cleanly.`,
  options: { port: { type: 'string' }, host: { type: 'string' }, 'data-dir': { type: 'string' }, seed: { type: 'string' } },
  positionals: { min: 0, max: 0 },
  async run(values) {
    const config = loadConfig(process.env, values as Record<string, string>);
    const log = createLogger(config.logLevel);
    const deps = await buildDeps(config, log);
    const { db } = deps.database;

    if (config.seed) {
      const empty = (await db.selectFrom('tenants').select('id').limit(1).execute()).length === 0;
      if (empty) {
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
        process.stderr.write(`\nFirst platform administrator: ${admin.email}\nGenerated password (shown once, change it with \`tars user password\`): ${admin.generatedPassword}\n\n`);
      }
    }

    const app = createApp(deps);
    const server: Server = await new Promise((resolve, reject) => {
      const s = app.listen(config.port, config.host, () => resolve(s));
      s.once('error', reject);
    });
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const shownHost = config.host.includes(':') ? `[${config.host}]` : config.host;
    process.stdout.write(`listening on http://${shownHost}:${port}\n`);
    log.info({ host: config.host, port }, 'listening');
    const jobs = startJobs(deps, jobsOf(deps));

    return new Promise<number>((resolve) => {
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) process.exit(EXIT.failed); // a second signal: leave now
        stopping = true;
        log.info({ signal }, 'stopping');
        const force = setTimeout(() => server.closeAllConnections(), 10_000);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          deps.mailer.close();
          void jobs.stop().then(() => deps.database.close()).then(() => {
            log.info('stopped');
            resolve(EXIT.ok);
          });
        });
        server.closeIdleConnections();
      };
      process.on('SIGTERM', () => stop('SIGTERM'));
      process.on('SIGINT', () => stop('SIGINT'));
    });
  },
};

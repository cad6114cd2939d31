import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/app';
import type { Clock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { openPostgres, type PostgresDatabase } from '../../src/db/engine';
import { migrateToLatest } from '../../src/db/migrate';
import type { AppDeps } from '../../src/deps';
import { silentLogger } from '../../src/log';
import { jwtSecretFor, TokenService } from '../../src/modules/auth/tokens';
import { sessionResolver } from '../../src/modules/console/sessions.service';
import { buildDeps } from '../../src/runtime';
import { send, type TestApp } from './app';

/*
 * Several TARS instances on one PostgreSQL database, in one test process (issue 32, step 9): each instance is the
 * real Express app over its own pool (openPostgres(url)), as another process would have, with its own token service
 * whose secret comes from the database (tars_settings), as `tars serve` on PostgreSQL does.
 *
 * Until buildDeps opens PostgreSQL itself (design step 7), the deps are buildDeps' for a throw-away data directory
 * (validator, mailer, metrics, live queues: nothing of them is shared between instances) with the database, the
 * token service and the console's sessions replaced by the PostgreSQL ones.
 */

export interface PgInstance extends TestApp {
  readonly database: PostgresDatabase;
}

/** Migrates the database of `url` (once per database: call it before starting instances on it). */
export async function migratePostgres(url: string): Promise<void> {
  const database = openPostgres(url);
  try {
    await migrateToLatest(database);
  } finally {
    await database.close();
  }
}

/** One instance: the app over its own pool on `url`, listening on a loopback port. */
export async function startPgInstance(url: string, opts: { clock?: Clock; env?: Record<string, string> } = {}): Promise<PgInstance> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tars-pg-instance-'));
  const config = loadConfig(
    { TARS_LOG_LEVEL: 'silent', TARS_PBX_TIMEZONE: 'UTC', ...opts.env },
    { 'data-dir': dataDir, host: '127.0.0.1', port: '0' },
  );
  const local = await buildDeps(config, silentLogger, opts.clock);
  const database = openPostgres(url);
  const clock = local.clock;
  const deps: AppDeps = {
    ...local,
    database: database as never, // AppDeps names SQLite's handle until buildDeps opens PostgreSQL (step 7)
    db: database.db,
    tokens: new TokenService(await jwtSecretFor(database.db, dataDir, config.jwtSecret), config.tokenTtlSeconds),
    sessions: sessionResolver({ db: database.db, clock, lifetimeSeconds: config.tokenTtlSeconds }),
  };
  const app = createApp(deps, { checkResponses: true });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    deps,
    dataDir,
    database,
    request: (method, path, o = {}) => send(base, method, path, o),
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      local.live.stop();
      local.mailer.close();
      await local.database.close();
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

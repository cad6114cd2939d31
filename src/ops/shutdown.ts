import type { Server } from 'node:http';
import { checkpointWal, type OpenDatabase } from '../db/database';
import { sqliteCode } from '../errors';
import type { Logger } from '../log';

/**
 * One thing to stop when the server shuts down. `tars serve` keeps them in one ordered list and stops them
 * one after the other: first the HTTP server (no new connections; requests in flight finish), then the
 * background work (cron jobs, the webhook delivery worker: each stops at a safe point, bounded), then what
 * they all use (mailer, database), last the data directory's lock.
 */
export interface StopHook {
  readonly name: string;
  stop(): Promise<void> | void;
}

/** How long requests in flight may take to finish after a stop signal before their connections are cut. */
export const HTTP_GRACE_MS = 10_000;

/** Runs the hooks in order; one that fails is logged and the others still run. True when all stopped cleanly. */
export async function runStopHooks(hooks: readonly StopHook[], log: Logger): Promise<boolean> {
  let clean = true;
  for (const hook of hooks) {
    const started = Date.now();
    try {
      await hook.stop();
      log.info({ part: hook.name, ms: Date.now() - started }, 'stopped');
    } catch (err) {
      clean = false;
      log.error({ part: hook.name, err }, 'failed to stop cleanly');
    }
  }
  return clean;
}

/** Stops listening at once, lets requests in flight finish, and cuts what is still open after `graceMs`. */
export function stopHttpServer(server: Server, graceMs = HTTP_GRACE_MS): StopHook {
  return {
    name: 'http',
    stop: () =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        // Keep-alive connections between requests would hold close() open until the client leaves.
        server.closeIdleConnections();
      }),
  };
}

/**
 * Moves everything in the WAL into the database file and empties it, then closes: what is left on disk is
 * one complete file (a copy of the data directory taken now needs no -wal). When the disk is full the
 * database file cannot grow: the WAL stays as it is, nothing is lost, and the next start applies it.
 */
export function closeDatabase(database: OpenDatabase, log: Logger): StopHook {
  return {
    name: 'database',
    async stop() {
      try {
        const result = checkpointWal(database.sqlite);
        if (result?.busy) log.warn(result, 'the WAL could not be emptied: another process is using the database');
      } catch (err) {
        if (sqliteCode(err) !== 'SQLITE_FULL') throw err;
        log.warn('the WAL could not be emptied: the disk is full. Nothing is lost; the next start applies it');
      } finally {
        await database.close();
      }
    },
  };
}

/**
 * The first SIGTERM or SIGINT starts `shutdown`; its result is the exit code. A second signal means "now":
 * the process exits at once with `exitNow`.
 */
export function untilStopSignal(shutdown: (signal: NodeJS.Signals) => Promise<number>, exitNow: number): Promise<number> {
  return new Promise((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) process.exit(exitNow);
      stopping = true;
      shutdown(signal).then(resolve, () => resolve(exitNow)); // a start that failed is reported by the caller
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

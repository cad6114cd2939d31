/*
 * What a database error means for the one who asked (docs/design/postgresql.md §5.7, "PostgreSQL away → 503"):
 * the database is not there, or too busy to answer now. Both are passing: the HTTP error handler answers them
 * 503 with Retry-After (never 500), the health route says 503 while the database does not answer, and the same
 * request succeeds once it is back. Anything else is not a passing state of the database.
 */

/**
 * - `unavailable`: no connection to the database could be had or the one in use died: refused, reset, the server
 *   shutting down or starting up (57P01/57P02/57P03), a connection exception (class 08), the pool's connect timeout.
 * - `busy`: the database is there but the work could not get its turn: a serialization failure or deadlock that
 *   survived transaction()'s runs (40001/40P01), a lock not granted within lock_timeout (55P03), SQLite's write
 *   lock still held by another process after the busy timeout (SQLITE_BUSY).
 */
export type DbErrorKind = 'unavailable' | 'busy';

/** PostgreSQL's disk_full (53100): the database server's disk is full; answered 507 as SQLite's SQLITE_FULL is. */
export function isDatabaseDiskFull(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '53100';
}

/** Seconds a client is told to wait (Retry-After) for each kind. */
export const RETRY_AFTER_S: Readonly<Record<DbErrorKind, number>> = { unavailable: 5, busy: 1 };

/** Socket errors of the connection to PostgreSQL (Node's codes): the server or the path to it is not there. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOENT', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** The pg driver's and pool's own errors, which carry no code: only their sentence says what happened. */
const DRIVER_MESSAGES = [
  /^Connection terminated/, // "… unexpectedly", "… due to connection timeout"
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
];

/** The kind of a database error, or undefined when it is not one of the passing kinds (a bug, a constraint). */
export function dbErrorKind(err: unknown): DbErrorKind | undefined {
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const kind = kindOf(e as { code?: unknown; message?: unknown });
    if (kind) return kind;
  }
  return undefined;
}

function kindOf(e: { code?: unknown; message?: unknown }): DbErrorKind | undefined {
  const code = typeof e.code === 'string' ? e.code : '';
  if (code.startsWith('SQLITE_BUSY')) return 'busy';
  if (code === '40001' || code === '40P01' || code === '55P03') return 'busy';
  if (code === '57P01' || code === '57P02' || code === '57P03' || /^08[0-9A-Z]{3}$/.test(code)) return 'unavailable';
  // ENOENT is a database error only when connecting (a Unix socket that is not there), not a missing file.
  if (SOCKET_CODES.has(code) && (code !== 'ENOENT' || (e as { syscall?: unknown }).syscall === 'connect')) return 'unavailable';
  const message = typeof e.message === 'string' ? e.message : '';
  if (code === '' && DRIVER_MESSAGES.some((m) => m.test(message))) return 'unavailable';
  return undefined;
}

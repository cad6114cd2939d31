import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, diskFull, notFound, sqliteCode } from '../errors';
import { dbErrorKind, isDatabaseDiskFull, RETRY_AFTER_S, type DbErrorKind } from '../db/db-errors';
import type { Logger } from '../log';
import type { Metrics } from '../metrics/metrics';

/**
 * A request id for every request (the caller's X-Request-Id when it is a sane token, else a new UUID),
 * echoed in the response, and when the response is finished one JSON log line (id, method, path (no
 * query string: it may carry filters a user typed), status, duration, user; never a body or a header)
 * and, when metrics are on, its count and latency: one listener and one clock reading for both.
 */
export function requestLog(log: Logger, metrics?: Metrics): RequestHandler {
  // The line below holds six fields of fixed names and plain values, none of which a redaction path of
  // src/log.ts can name, so its logger skips the redaction pass: that pass (wildcard paths) took 14 of the
  // 23 us a line cost. Every other log line keeps it.
  const access = log.child({}, { redact: { paths: [] } });
  return (req, res, next) => {
    const start = performance.now();
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(given) ? given : randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    res.on('finish', () => {
      const durationMs = performance.now() - start;
      access.info(
        {
          reqId: requestId,
          method: req.method,
          path: req.path,
          status: res.statusCode,
          durationMs: Math.round(durationMs * 100) / 100,
          userId: res.locals.userId,
        },
        'request',
      );
      metrics?.record(req, res.statusCode, durationMs / 1000);
    });
    next();
  };
}

export const unknownRoute: RequestHandler = (req, _res, next) => {
  next(notFound(`Route ${req.method} ${req.path}`));
};

/** Turns every error into the body of decisions.md §2; unknown errors are logged and answered with a generic 500. */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    const appError = toAppError(err);
    if (appError.status >= 500) {
      log.error({ reqId: res.locals.requestId, err }, 'request failed');
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    for (const [k, v] of Object.entries(appError.headers)) res.setHeader(k, v);
    res.status(appError.status).json(appError.toBody());
  };
}

function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { status?: number; type?: string } | undefined;
  // Errors of Express's own parsers and of the router (e.g. a malformed %-escape in the path).
  if (e && typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    if (e.status === 413) return new AppError(413, 'The request body is too large');
    if (e.status === 415) return new AppError(415, 'The request body must be JSON (Content-Type: application/json)');
    return new AppError(400, 'The request is malformed', { validationErrors: ['The request is malformed'] });
  }
  // SQLite rolled the write back whole; reads go on, and writes succeed again once there is space.
  if (sqliteCode(err) === 'SQLITE_FULL') return diskFull();
  if (isDatabaseDiskFull(err))
    return new AppError(
      507,
      "The database server's disk is full: the change was not saved. Reads go on; writes succeed again once it has space",
    );
  // The database away or too busy for now: passing, so 503 with when to try again, never 500.
  const kind = dbErrorKind(err);
  if (kind) return databaseUnavailable(kind);
  return new AppError(500, 'Something went wrong on the server; the request id in X-Request-Id helps find the details in its log');
}

/** The answer while the database is away (`unavailable`) or could not give the work its turn (`busy`): nothing was changed. */
function databaseUnavailable(kind: DbErrorKind): AppError {
  const message =
    kind === 'unavailable'
      ? 'The database is not answering; nothing was changed. Try again shortly'
      : 'The database is too busy to take this request now; nothing was changed. Try again shortly';
  return new AppError(503, message, { headers: { 'Retry-After': String(RETRY_AFTER_S[kind]) } });
}

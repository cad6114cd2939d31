import { createServer, type RequestListener, type Server } from 'node:http';
import { CliError, EXIT } from './command';

/** What a request gets between binding and the app being ready (migrations, seeding). */
const starting: RequestListener = (_req, res) => {
  res.writeHead(503, { 'Content-Type': 'application/json; charset=utf-8', 'Retry-After': '1' });
  res.end(JSON.stringify({ name: 'Unavailable', message: 'The server is starting', code: 503 }));
};

const REASONS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the port is already in use',
  EADDRNOTAVAIL: 'the address is not one of this machine',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved',
};

export const shownAddress = (host: string, port: number) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

/**
 * How long a client may take to send a request (docs/operations.md). TARS serves a LAN: headers arrive in
 * milliseconds and a body (at most 1 MiB) in well under a second, while Node's defaults let a client hold a
 * connection for a minute with a header line a second, or five minutes with a byte of body a second. A request
 * whose headers are not all in within `headersMs`, or which is not whole within `requestMs` (its body included), is
 * answered 408 and its connection closed; an idle kept-alive connection closes after `keepAliveMs`. Node checks
 * every `checkEveryMs`. Only the time to receive the request counts: a long report or an event stream is not cut.
 */
export interface ServerTimeouts {
  readonly headersMs: number;
  readonly requestMs: number;
  readonly keepAliveMs: number;
  readonly checkEveryMs: number;
}

export const SERVER_TIMEOUTS: ServerTimeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000, checkEveryMs: 1_000 };

/**
 * Binds the server's address first of all, so that a taken port or a bad host ends `tars serve` with
 * exit code 1 and a message naming the address and the reason, before the data-directory lock is taken
 * or any job starts (systemd's Restart=on-failure then sees the failure). Requests that arrive before
 * `serveApp` get 503. Tests pass small `timeouts`; `tars serve` uses SERVER_TIMEOUTS.
 */
export async function bindAddress(host: string, port: number, timeouts: ServerTimeouts = SERVER_TIMEOUTS): Promise<Server> {
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      connectionsCheckingInterval: timeouts.checkEveryMs,
    },
    starting,
  );
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    throw new CliError(
      `cannot listen on ${shownAddress(host, port)}: ${REASONS[code] ?? (err as Error).message}${code ? ` (${code})` : ''}`,
      EXIT.failed,
    );
  }
  return server;
}

/** Hands the bound server's requests to the app. */
export function serveApp(server: Server, app: RequestListener): void {
  server.off('request', starting);
  server.on('request', app);
}

export function closeBound(server: Server): void {
  server.close();
  server.closeAllConnections();
}

import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { expect } from 'chai';
import { HTTP_GRACE_MS } from '../../src/ops/shutdown';
import { send } from '../helpers/app';
import { startServe, type RunningServer } from '../helpers/cli';
import { until } from '../helpers/until';

const ADMIN = { TARS_ADMIN_EMAIL: 'ops@example.test', TARS_ADMIN_PASSWORD: 'ops-admin-pass' };
/** Node's http.Server keep-alive timeout, which TARS keeps: an idle connection is closed after it. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/**
 * A login whose body arrives in two parts: the request is in flight (headers read, body awaited) until
 * finish() sends the rest. That is how a slow client looks to the server. `inFlight` settles when the
 * server has read the headers (its `100 Continue` answers the `Expect` header).
 */
function slowLogin(url: string): {
  req: ClientRequest;
  inFlight: Promise<void>;
  finish(): void;
  response: Promise<{ status: number; body: any }>;
} {
  const body = JSON.stringify({ email: ADMIN.TARS_ADMIN_EMAIL, password: ADMIN.TARS_ADMIN_PASSWORD });
  const half = Math.floor(body.length / 2);
  let req!: ClientRequest;
  const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' };
  const response = new Promise<{ status: number; body: any }>((resolve, reject) => {
    req = request(`${url}/v2/authentication/`, { method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
  });
  const inFlight = new Promise<void>((resolve) => req.once('continue', resolve));
  req.write(body.slice(0, half));
  return { req, inFlight, finish: () => req.end(body.slice(half)), response };
}

/** The code of a TCP connection attempt to the server's port: undefined when it was accepted. */
function connectError(url: string): Promise<string | undefined> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

/** The server's own record of how long its HTTP part took to stop (the "stopped" line of part http). */
function httpStopMs(output: string): number | undefined {
  const line = output.split('\n').find((l) => l.includes('"part":"http"') && l.includes('"msg":"stopped"'));
  return line === undefined ? undefined : (JSON.parse(line) as { ms: number }).ms;
}

const stoppingLogged = (server: RunningServer) =>
  until(() => (/"msg":"stopping"/.test(server.output()) ? true : undefined), { what: 'the "stopping" log line' });

describe('serve: graceful shutdown on SIGTERM/SIGINT (e2e, real process)', function () {
  this.timeout(60_000);
  let dir: string;
  let server: RunningServer | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tars-shutdown-'));
  });
  afterEach(async () => {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('when SIGTERM arrives during a slow request, then no new connection is accepted, the request completes, the WAL is emptied and the exit code is 0', async () => {
    server = await startServe(['--data-dir', dir], { env: ADMIN });
    const login = await send(server.url, 'POST', '/v2/authentication/', {
      body: { email: ADMIN.TARS_ADMIN_EMAIL, password: ADMIN.TARS_ADMIN_PASSWORD },
    });
    const { accessToken: token, user } = login.body;
    expect(
      (
        await send(server.url, 'POST', '/v2/admin/branches', {
          token,
          body: { tenantId: user.tenantId, name: 'Written before the stop', timezone: 'UTC' },
        })
      ).status,
    ).to.equal(201);
    expect(statSync(join(dir, 'tars.db-wal')).size, 'the write sits in the WAL').to.be.greaterThan(0);

    const slow = slowLogin(server.url);
    await slow.inFlight;
    const exited = server.stop('SIGTERM');
    await stoppingLogged(server);
    const refused = await until(() => connectError(server!.url), { what: 'the listener to close' });
    expect(server.child.exitCode, 'still running: a request is in flight').to.equal(null);
    expect(refused, 'no new connections').to.equal('ECONNREFUSED');

    slow.finish();
    const res = await slow.response;
    expect(res.status).to.equal(201);
    expect(res.body.accessToken).to.be.a('string');
    expect(await exited).to.equal(0);
    // Which of the server's own timers came first, on its own clock: its close, or the cut after the grace period.
    expect(httpStopMs(server.output()), 'exits after the last request, not after the grace period').to.be.below(HTTP_GRACE_MS);

    const wal = join(dir, 'tars.db-wal');
    expect(existsSync(wal) ? statSync(wal).size : 0, 'the WAL was checkpointed').to.equal(0);
    expect(existsSync(join(dir, 'server.lock')), 'the lock is released').to.equal(false);
    const db = new Sqlite(join(dir, 'tars.db'), { readonly: true });
    try {
      expect(db.prepare("SELECT COUNT(*) AS n FROM branches WHERE name = 'Written before the stop'").get()).to.deep.equal({ n: 1 });
    } finally {
      db.close();
    }
    expect(server.output()).to.match(/"signal":"SIGTERM","msg":"stopping"/);
  });

  it('when SIGINT stops an idle server, then it exits 0 at once', async () => {
    server = await startServe(['--data-dir', dir], { env: ADMIN });
    await send(server.url, 'GET', '/healthz'); // leaves a keep-alive connection open
    expect(await server.stop('SIGINT')).to.equal(0);
    // On the server's own clock: it closed the idle connection, rather than waiting for its keep-alive timeout.
    expect(httpStopMs(server.output()), 'the HTTP part stopped at once').to.be.below(KEEP_ALIVE_TIMEOUT_MS);
  });

  it('when a second signal arrives while a request is still in flight, then the process exits at once with a non-zero code', async () => {
    server = await startServe(['--data-dir', dir], { env: ADMIN });
    const slow = slowLogin(server.url);
    slow.response.catch(() => {}); // its connection is cut
    await slow.inFlight;
    const exited = server.stop('SIGTERM');
    await stoppingLogged(server);
    expect(server.child.exitCode).to.equal(null);
    server.child.kill('SIGTERM');
    // 1 is the exit of the second signal: a stop that waited for the request, or its grace period, exits 0.
    expect(await exited).to.equal(1);
    slow.req.destroy();
  });
});

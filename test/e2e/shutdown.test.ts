import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { expect } from 'chai';
import { send } from '../helpers/app';
import { startServe, type RunningServer } from '../helpers/cli';

const ADMIN = { TARS_ADMIN_EMAIL: 'ops@example.test', TARS_ADMIN_PASSWORD: 'ops-admin-pass' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A login whose body arrives in two parts: the request is in flight (headers read, body awaited) until
 * finish() sends the rest. That is how a slow client looks to the server.
 */
function slowLogin(url: string): { req: ClientRequest; finish(): void; response: Promise<{ status: number; body: any }> } {
  const body = JSON.stringify({ email: ADMIN.TARS_ADMIN_EMAIL, password: ADMIN.TARS_ADMIN_PASSWORD });
  const half = Math.floor(body.length / 2);
  let req!: ClientRequest;
  const response = new Promise<{ status: number; body: any }>((resolve, reject) => {
    req = request(`${url}/v2/authentication/`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
  });
  req.write(body.slice(0, half));
  return { req, finish: () => req.end(body.slice(half)), response };
}

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
    const login = await send(server.url, 'POST', '/v2/authentication/', { body: { email: ADMIN.TARS_ADMIN_EMAIL, password: ADMIN.TARS_ADMIN_PASSWORD } });
    const { accessToken: token, user } = login.body;
    expect((await send(server.url, 'POST', '/v2/admin/branches', { token, body: { tenantId: user.tenantId, name: 'Written before the stop', timezone: 'UTC' } })).status).to.equal(201);
    expect(statSync(join(dir, 'tars.db-wal')).size, 'the write sits in the WAL').to.be.greaterThan(0);

    const slow = slowLogin(server.url);
    await sleep(300);
    const exited = server.stop('SIGTERM');
    await sleep(500);
    expect(server.child.exitCode, 'still running: a request is in flight').to.equal(null);
    const refused = await fetch(`${server.url}/healthz`).then(() => 'accepted', (err: Error & { cause?: { code?: string } }) => err.cause?.code);
    expect(refused, 'no new connections').to.equal('ECONNREFUSED');

    const finished = Date.now();
    slow.finish();
    const res = await slow.response;
    expect(res.status).to.equal(201);
    expect(res.body.accessToken).to.be.a('string');
    expect(await exited).to.equal(0);
    expect(Date.now() - finished, 'exits right after the last request, not after the grace period').to.be.below(5000);

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
    const started = Date.now();
    expect(await server.stop('SIGINT')).to.equal(0);
    expect(Date.now() - started).to.be.below(3000);
  });

  it('when a second signal arrives while a request is still in flight, then the process exits at once with a non-zero code', async () => {
    server = await startServe(['--data-dir', dir], { env: ADMIN });
    const slow = slowLogin(server.url);
    slow.response.catch(() => {}); // its connection is cut
    await sleep(300);
    const exited = server.stop('SIGTERM');
    await sleep(300);
    expect(server.child.exitCode).to.equal(null);
    const started = Date.now();
    server.child.kill('SIGTERM');
    expect(await exited).to.equal(1);
    expect(Date.now() - started).to.be.below(2000);
    slow.req.destroy();
  });
});

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runTars, startServe, type RunningServer } from '../helpers/cli';
import { FIXTURES } from '../helpers/fixtures';

const CERT = join(FIXTURES, 'tls', 'localhost-cert.pem');
const KEY = join(FIXTURES, 'tls', 'localhost-key.pem');

/** One HTTPS request that trusts only the test certificate (it is self-signed for 127.0.0.1 and localhost). */
function httpsCall(url: string, method = 'GET', body?: unknown, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }>((resolve, reject) => {
    const req = request(url, { method, ca: readFileSync(CERT), headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Issue 30: `tars serve` speaks HTTPS itself, so a console on a site's LAN never sends a password in clear. */
describe('tars serve over HTTPS (TARS_TLS_CERT, TARS_TLS_KEY)', function () {
  this.timeout(60_000);
  let dir: string;
  let server: RunningServer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tars-https-'));
    server = await startServe(['--data-dir', join(dir, 'data')], {
      env: { TARS_TLS_CERT: CERT, TARS_TLS_KEY: KEY, TARS_ADMIN_EMAIL: 'admin@tls.test', TARS_ADMIN_PASSWORD: 'tls admin password' },
    });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when the pair is set, then it says it listens on https:// and answers over TLS with that certificate', async () => {
    expect(server.url).to.match(/^https:\/\/127\.0\.0\.1:\d+$/);
    const health = await httpsCall(`${server.url}/healthz`);
    expect(health.status).to.equal(200);
    expect(JSON.parse(health.text).status).to.equal('ok');
  });

  it('when the console signs in over HTTPS, then its session cookie is Secure (and HttpOnly, SameSite=Strict)', async () => {
    const res = await httpsCall(
      `${server.url}/v2/console/session`,
      'POST',
      { email: 'admin@tls.test', password: 'tls admin password' },
      {
        'sec-fetch-site': 'same-origin',
      },
    );
    expect(res.status, res.text).to.equal(201);
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).to.match(/^tars_session=[A-Za-z0-9_-]{43};/);
    for (const attribute of [/;\s*Secure/i, /;\s*HttpOnly/i, /;\s*SameSite=Strict/i]) expect(cookie).to.match(attribute);
  });

  it('when a client speaks plain HTTP to it, then it gets no HTTP answer', async () => {
    const plain = server.url.replace('https://', 'http://');
    const outcome = await new Promise<string>((resolve) => {
      const req = httpRequest(`${plain}/healthz`, (res) => resolve(`answered ${res.statusCode}`));
      req.on('error', (err) => resolve(`error ${(err as NodeJS.ErrnoException).code ?? err.message}`));
      req.end();
    });
    expect(outcome).to.match(/^error /);
  });

  it("when the key is not the certificate's, then tars serve exits 1 naming both settings, before it listens", async () => {
    const res = await runTars(['serve', '--port', '0', '--data-dir', join(dir, 'other')], {
      env: { TARS_TLS_CERT: CERT, TARS_TLS_KEY: CERT },
    });
    expect(res.code).to.not.equal(0);
    expect(res.stderr).to.include('TARS_TLS_KEY');
    expect(res.stdout).not.to.include('listening on');
  });
});

import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { send } from '../helpers/app';
import { runTars, startServe } from '../helpers/cli';

/*
 * The standalone executable (npm run build:binary), copied alone into an empty directory and run with a
 * PATH and environment without Node.js or node_modules. Run by `npm run test:binary`, which also runs the
 * CLI e2e tests against the executable.
 */
const BINARY = resolve('dist/tars');

describe('the standalone executable', function () {
  this.timeout(120_000);
  let dir: string;
  let exe: string;
  let previous: string | undefined;
  // PATH is the empty directory itself: no node, no npx, nothing else to lean on.
  const env = () => ({ PATH: dir, HOME: dir, NODE_PATH: undefined, NODE_OPTIONS: undefined });

  before(() => {
    if (!existsSync(BINARY)) throw new Error('dist/tars is missing: run npm run build:binary first');
    dir = mkdtempSync(join(tmpdir(), 'tars-binary-'));
    exe = join(dir, 'tars');
    copyFileSync(BINARY, exe);
    previous = process.env.TARS_E2E_BIN;
    process.env.TARS_E2E_BIN = exe;
  });
  after(() => {
    if (previous === undefined) delete process.env.TARS_E2E_BIN;
    else process.env.TARS_E2E_BIN = previous;
    rmSync(dir, { recursive: true, force: true });
  });

  it('when SHA256SUMS is checked, then it matches the executable', () => {
    const line = readFileSync(resolve('dist/SHA256SUMS'), 'utf8').trim();
    expect(line).to.equal(`${createHash('sha256').update(readFileSync(BINARY)).digest('hex')}  tars`);
  });

  it('when asked for its version, then it names TARS, a supported Node.js LTS (24) and SQLite', async () => {
    const res = await runTars(['--version'], { cwd: dir, env: env() });
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.match(/^tars \d+\.\d+\.\d+\nnode 24\.\d+\.\d+\nsqlite 3\.\d+\.\d+\n$/);
  });

  it('when its cached SQLite addon is named by its hash and then altered, then it writes the addon again and runs', async () => {
    const cacheDir = join(dir, 'addon-cache');
    const first = await runTars(['--version'], { cwd: dir, env: { ...env(), TARS_CACHE_DIR: cacheDir } });
    expect(first.code, first.stderr).to.equal(0);
    const names = readdirSync(cacheDir);
    expect(names).to.have.length(1);
    const file = join(cacheDir, names[0] as string);
    const addon = readFileSync(file);
    expect(names[0]).to.equal(`better_sqlite3-${createHash('sha256').update(addon).digest('hex').slice(0, 16)}.node`);
    const altered = Buffer.from(addon);
    altered[altered.length - 1] = (altered.at(-1) as number) ^ 1;
    chmodSync(file, 0o600);
    writeFileSync(file, altered);
    const second = await runTars(['--version'], { cwd: dir, env: { ...env(), TARS_CACHE_DIR: cacheDir } });
    expect(second.code, second.stderr).to.equal(0);
    expect(readFileSync(file).equals(addon), 'the altered file replaced by the asset').to.equal(true);
  });

  it('when started alone in an empty directory, then it creates ./data, logs in and serves the API', async () => {
    const server = await startServe([], { cwd: dir, env: { ...env(), TARS_ADMIN_PASSWORD: 'binary-admin-pass' } });
    try {
      expect(existsSync(join(dir, 'data', 'tars.db'))).to.equal(true);
      const login = await send(server.url, 'POST', '/v2/authentication/', {
        body: { email: 'admin@tars.local', password: 'binary-admin-pass' },
      });
      expect(login.status).to.equal(201);
      const token = login.body.accessToken as string;
      const branch = await send(server.url, 'POST', '/v2/admin/branches', {
        token,
        body: { tenantId: login.body.user.tenantId, name: 'Binary branch', timezone: 'Europe/Berlin' },
      });
      expect(branch.status).to.equal(201);
      expect(branch.body.timezone).to.equal('Europe/Berlin');
      expect(
        (await send(server.url, 'POST', '/v2/admin/branches', { token, body: { tenantId: 1, name: 'x', timezone: 'Mars/Olympus' } })).body
          .validationErrors,
      ).to.have.length(2);
    } finally {
      expect(await server.stop()).to.equal(0);
    }
  });
});

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { expect } from 'chai';
import { runTars } from '../helpers/cli';
import { startSmtp, type TestSmtp } from '../helpers/smtp';

/** A loopback port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const lines = (stdout: string) => stdout.trim().split('\n');

describe('tars check (e2e, real processes)', function () {
  this.timeout(60_000);
  let dir: string;
  let smtp: TestSmtp | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tars-check-'));
  });
  afterEach(async () => {
    await smtp?.close();
    smtp = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('when everything is in order and the SMTP server answers, then every line says ok and the exit code is 0', async () => {
    smtp = await startSmtp();
    expect((await runTars(['migrate', '--data-dir', dir])).code).to.equal(0);
    const res = await runTars(['check', '--data-dir', dir], { env: { TARS_SMTP_URL: smtp.url } });
    expect(res.code, res.stdout).to.equal(0);
    const out = lines(res.stdout);
    for (const line of out) expect(line).to.match(/^ok [^:]+: /);
    const what = out.map((l) => /^ok ([^:]+):/.exec(l)?.[1]);
    expect(what).to.deep.equal(['configuration', 'database integrity', 'schema version', 'JWT secret', 'disk space', 'SMTP', 'server']);
    expect(res.stdout).to.include(`ok SMTP: ${smtp.url} answers`);
    expect(res.stdout).to.match(/ok schema version: \S+: up to date/);
    expect(res.stdout).to.match(/ok disk space: \d+\.\d\d GiB free/);
  });

  it('when the SMTP server cannot be reached, then that line is a problem and the exit code is 1', async () => {
    expect((await runTars(['migrate', '--data-dir', dir])).code).to.equal(0);
    const port = await closedPort();
    const res = await runTars(['check', '--data-dir', dir], { env: { TARS_SMTP_URL: `smtp://someone:secret-pass@127.0.0.1:${port}` } });
    expect(res.code).to.equal(1);
    expect(res.stdout).to.match(new RegExp(`^problem SMTP: smtp://127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`, 'm'));
    expect(res.stdout, 'credentials are never printed').not.to.include('secret-pass');
    expect(res.stdout).to.match(/^ok database integrity/m);
  });

  it('when there is no database, or its schema is newer than the program, then that is a problem', async () => {
    const missing = await runTars(['check', '--data-dir', join(dir, 'nothing-here')]);
    expect(missing.code).to.equal(1);
    expect(missing.stdout).to.match(/^problem database: .*tars\.db does not exist/m);

    expect((await runTars(['migrate', '--data-dir', dir])).code).to.equal(0);
    const db = new Sqlite(join(dir, 'tars.db'));
    db.prepare('INSERT INTO schema_migrations (name, timestamp) VALUES (?, ?)').run('2099-01-01T0000_newer', '2099-01-01T00:00:00.000Z');
    db.close();
    const newer = await runTars(['check', '--data-dir', dir]);
    expect(newer.code).to.equal(1);
    expect(newer.stdout).to.match(/^problem schema version: 2099-01-01T0000_newer: newer than this program/m);
  });

  it('when the JWT secret file is readable by others, then that is a problem', async () => {
    expect((await runTars(['migrate', '--data-dir', dir])).code).to.equal(0);
    writeFileSync(join(dir, 'jwt-secret'), `${'x'.repeat(43)}\n`);
    chmodSync(join(dir, 'jwt-secret'), 0o644);
    const res = await runTars(['check', '--data-dir', dir]);
    expect(res.code).to.equal(1);
    expect(res.stdout).to.match(/^problem JWT secret: .* readable by others \(mode 644\)/m);
  });

  it('when the configuration is wrong, then each problem is a line and the exit code is 1', async () => {
    const res = await runTars(['check', '--data-dir', dir], { env: { TARS_PORT: 'eighty', TARS_SMTP_URL: 'mail.example' } });
    expect(res.code).to.equal(1);
    expect(lines(res.stdout)).to.deep.equal([
      'problem configuration: TARS_PORT must be a port number from 0 to 65535, got "eighty"',
      'problem configuration: TARS_SMTP_URL must be an smtp:// or smtps:// URL',
    ]);
  });
});

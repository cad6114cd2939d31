import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { expect } from 'chai';
import { send } from '../helpers/app';
import { ACME } from '../helpers/fixtures';
import { runTars, startServe, type RunningServer } from '../helpers/cli';

const ADMIN = { TARS_ADMIN_EMAIL: 'ops@example.test', TARS_ADMIN_PASSWORD: 'ops-admin-pass' };

async function adminToken(url: string): Promise<{ token: string; tenantId: number }> {
  const res = await send(url, 'POST', '/v2/authentication/', {
    body: { email: ADMIN.TARS_ADMIN_EMAIL, password: ADMIN.TARS_ADMIN_PASSWORD },
  });
  expect(res.status).to.equal(201);
  return { token: res.body.accessToken, tenantId: res.body.user.tenantId };
}

function readDb<T>(file: string, fn: (db: Sqlite.Database) => T): T {
  const db = new Sqlite(file, { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

const branchNames = (file: string) =>
  readDb(file, (db) =>
    (db.prepare("SELECT name FROM branches WHERE name LIKE 'Load %' ORDER BY id").all() as { name: string }[]).map((r) => r.name),
  );

describe('tars backup and tars restore (e2e, real processes)', function () {
  this.timeout(120_000);
  let dir: string;
  let data: string;
  let server: RunningServer | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tars-backup-'));
    data = join(dir, 'data');
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('when a backup is taken while the server keeps accepting writes, then it is sound and holds every write committed before it, without gaps', async () => {
    server = await startServe(['--data-dir', data], { env: ADMIN });
    const { token, tenantId } = await adminToken(server.url);
    const created: string[] = [];
    const failures: number[] = [];
    let writing = true;
    const writer = (async () => {
      while (writing) {
        const name = `Load ${String(created.length).padStart(5, '0')}`;
        const res = await send(server!.url, 'POST', '/v2/admin/branches', { token, body: { tenantId, name, timezone: 'UTC' } });
        if (res.status === 201) created.push(name);
        else failures.push(res.status);
      }
    })();
    while (created.length < 20) await new Promise((r) => setTimeout(r, 5));
    const before = created.length;
    const backup = await runTars(['backup', join(dir, 'live.db'), '--data-dir', data]);
    const after = created.length;
    while (created.length < after + 20) await new Promise((r) => setTimeout(r, 5));
    writing = false;
    await writer;

    expect(backup.code, backup.stderr).to.equal(0);
    expect(backup.stdout).to.include('with the JWT secret');
    expect(failures, 'the server kept accepting writes').to.deep.equal([]);
    const file = join(dir, 'live.db');
    expect(readDb(file, (db) => db.pragma('integrity_check', { simple: true }))).to.equal('ok');
    const saved = branchNames(file);
    expect(saved.length).to.be.within(before, after);
    expect(saved, 'a snapshot: the first N writes, in order').to.deep.equal(created.slice(0, saved.length));
    expect(existsSync(`${file}-wal`), 'one self-contained file').to.equal(false);
    const secret = readDb(
      file,
      (db) => (db.prepare("SELECT value FROM tars_backup WHERE key = 'jwtSecret'").get() as { value: string }).value,
    );
    expect(secret).to.equal(readFileSync(join(data, 'jwt-secret'), 'utf8').trim());
  });

  it('when a backup is restored into an empty directory and served, then the tokens issued before still work and the data is there', async () => {
    server = await startServe(['--data-dir', data], { env: ADMIN });
    const { token, tenantId } = await adminToken(server.url);
    expect(
      (await send(server.url, 'POST', '/v2/admin/branches', { token, body: { tenantId, name: 'Load before backup', timezone: 'UTC' } }))
        .status,
    ).to.equal(201);
    const file = join(dir, 'b.db');
    expect((await runTars(['backup', file, '--data-dir', data])).code).to.equal(0);
    expect(await server.stop()).to.equal(0);

    const restored = join(dir, 'restored');
    const res = await runTars(['restore', file, '--data-dir', restored]);
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.include('the JWT secret of the backup is restored');
    server = await startServe(['--data-dir', restored]);
    expect((await send(server.url, 'POST', '/v2/authentication/jwt', { body: { accessToken: token } })).status, 'same secret').to.equal(
      201,
    );
    expect(
      (await send(server.url, 'POST', '/v2/admin/branches', { token, body: { tenantId, name: 'Load after restore', timezone: 'UTC' } }))
        .status,
    ).to.equal(201);
    expect(await server.stop()).to.equal(0);
    server = undefined;
    expect(branchNames(join(restored, 'tars.db'))).to.deep.equal(['Load before backup', 'Load after restore']);
    expect(
      readDb(join(restored, 'tars.db'), (db) => db.prepare("SELECT name FROM sqlite_master WHERE name = 'tars_backup'").get()),
      'the facts table is dropped',
    ).to.equal(undefined);
  });

  it('when a server runs on the data directory, then restore is refused; after the server crashed, its stale lock does not block and the crashed database is kept aside with its WAL', async () => {
    server = await startServe(['--data-dir', data], { env: ADMIN });
    const file = join(dir, 'b.db');
    expect((await runTars(['backup', file, '--data-dir', data])).code).to.equal(0);
    const res = await runTars(['restore', file, '--data-dir', data]);
    expect(res.code).to.equal(1);
    expect(res.stderr).to.match(/a TARS server \(pid \d+\) is running/);
    expect((await send(server.url, 'GET', '/healthz')).status).to.equal(200);

    const { token, tenantId } = await adminToken(server.url);
    expect(
      (await send(server.url, 'POST', '/v2/admin/branches', { token, body: { tenantId, name: 'Load after the backup', timezone: 'UTC' } }))
        .status,
    ).to.equal(201);
    expect(await server.stop('SIGKILL')).to.equal(null); // a crash: lock, -wal and -shm stay behind
    server = undefined;
    expect(existsSync(join(data, 'server.lock'))).to.equal(true);
    expect(existsSync(join(data, 'tars.db-wal'))).to.equal(true);

    const again = await runTars(['restore', file, '--data-dir', data]);
    expect(again.code, again.stderr).to.equal(0);
    const replaced = /the database it replaced is in (\S+)/.exec(again.stdout)?.[1] as string;
    expect(replaced).to.match(/tars\.db\.replaced-/);
    expect(existsSync(`${replaced}-wal`), 'the crashed WAL moved with its database').to.equal(true);
    expect(branchNames(replaced), 'the write that was only in the WAL is kept aside').to.deep.equal(['Load after the backup']);
    for (const stale of ['tars.db-wal', 'tars.db-shm']) expect(existsSync(join(data, stale)), stale).to.equal(false);
    expect(branchNames(join(data, 'tars.db')), 'the backup, from before that write').to.deep.equal([]);
  });

  it('when the backup file is not a database or is damaged, then restore is refused and the data directory is untouched', async () => {
    expect((await runTars(['seed', ACME, '--data-dir', data])).code).to.equal(0);
    const good = join(dir, 'good.db');
    expect((await runTars(['backup', good, '--data-dir', data])).code).to.equal(0);
    const garbage = join(dir, 'garbage.db');
    writeFileSync(garbage, 'this is not a database at all, just some words '.repeat(200));
    // A user's e-mail is stored twice, in its row and in the unique index: change one copy, and the two disagree.
    const damaged = join(dir, 'damaged.db');
    const bytes = readFileSync(good);
    const email = Buffer.from('admin@acme.example');
    const at = bytes.lastIndexOf(email);
    expect(at).to.be.greaterThan(bytes.indexOf(email));
    bytes[at] = 'A'.charCodeAt(0);
    writeFileSync(damaged, bytes);
    const target = join(dir, 'target');
    for (const [file, reason] of [
      [garbage, /garbage\.db is not a usable SQLite database: file is not a database/],
      [damaged, /damaged\.db is damaged \(integrity check: .*users_email/],
    ] as const) {
      const res = await runTars(['restore', file, '--data-dir', target]);
      expect(res.code, file).to.equal(1);
      expect(res.stderr).to.match(reason);
    }
    expect(existsSync(join(target, 'tars.db'))).to.equal(false);
  });

  it('when the backup was made by a newer TARS, then restore is refused', async () => {
    expect((await runTars(['migrate', '--data-dir', data])).code).to.equal(0);
    const file = join(dir, 'b.db');
    expect((await runTars(['backup', file, '--data-dir', data])).code).to.equal(0);
    const db = new Sqlite(file);
    db.prepare('INSERT INTO schema_migrations (name, timestamp) VALUES (?, ?)').run(
      '2099-01-01T0000_from_the_future',
      new Date().toISOString(),
    );
    db.close();
    const res = await runTars(['restore', file, '--data-dir', join(dir, 'target')]);
    expect(res.code).to.equal(1);
    expect(res.stderr).to.include('made by a newer TARS (migration 2099-01-01T0000_from_the_future');
  });

  it('when the backup file exists already, then backup refuses to overwrite it', async () => {
    expect((await runTars(['migrate', '--data-dir', data])).code).to.equal(0);
    const file = join(dir, 'b.db');
    writeFileSync(file, 'keep me');
    const res = await runTars(['backup', file, '--data-dir', data]);
    expect(res.code).to.equal(1);
    expect(readFileSync(file, 'utf8')).to.equal('keep me');
  });
});

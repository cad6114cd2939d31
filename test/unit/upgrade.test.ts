import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { sql, type Kysely } from 'kysely';
import { migrations } from '../../db/migrations/index';
import { openDatabase, type OpenDatabase } from '../../src/db/database';
import { appliedMigrations, MIGRATION_NAMES, migrator } from '../../src/db/migrate';
import { upgradeDatabase } from '../../src/db/upgrade';
import { runTars, startServe } from '../helpers/cli';

/** The schema of the previous release (its last migration): what a database made by it holds. */
const PREVIOUS_RELEASE = '2026-11-23T1200_pbx_logs';

/** A database as the previous release left it: its schema only, and data written the way it wrote it. */
async function previousReleaseDatabase(file: string): Promise<OpenDatabase> {
  const handle = openDatabase(file);
  const result = await migrator(handle).migrateTo(PREVIOUS_RELEASE);
  if (result.error) throw result.error;
  handle.sqlite.exec(`
    INSERT INTO tenants (id, name, partner_id) VALUES (1, 'Old Tenant', 0);
    INSERT INTO branches (id, tenant_id, name, timezone, is_default) VALUES (1, 1, 'Old Branch', 'Europe/Berlin', 1);
    INSERT INTO users (id, tenant_id, branch_id, email, password_hash, user_role, created_at)
      VALUES (1, 1, 1, 'old@example.test', 'scrypt$old-hash', 3, '2026-01-01T00:00:00.000Z');
  `);
  return handle;
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('schema upgrades', () => {
  let dir: string;
  let file: string;
  let handle: OpenDatabase | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tars-upgrade-'));
    file = join(dir, 'tars.db');
  });
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('when a database made by the previous release is upgraded, then every later migration runs, its data survives, and a copy of it as it was is left beside it', async () => {
    handle = await previousReleaseDatabase(file);
    const result = await upgradeDatabase(handle);
    expect(result.applied).to.deep.equal(MIGRATION_NAMES.filter((n) => n > PREVIOUS_RELEASE));
    expect(result.applied).to.not.be.empty;
    expect(await appliedMigrations(handle)).to.deep.equal([...MIGRATION_NAMES]);
    expect(handle.sqlite.prepare('SELECT name FROM tenants WHERE id = 1').get()).to.deep.equal({ name: 'Old Tenant' });
    expect(handle.sqlite.prepare('SELECT name, timezone, is_default FROM branches WHERE id = 1').get()).to.deep.equal({
      name: 'Old Branch',
      timezone: 'Europe/Berlin',
      is_default: 1,
    });
    expect(handle.sqlite.prepare('SELECT email, password_hash, user_role FROM users WHERE id = 1').get()).to.deep.equal({
      email: 'old@example.test',
      password_hash: 'scrypt$old-hash',
      user_role: 3,
    });
    expect(handle.sqlite.pragma('foreign_key_check')).to.deep.equal([]);

    expect(result.backup).to.equal(`${file}.before-${PREVIOUS_RELEASE}.bak`);
    const before = openDatabase(result.backup as string, { readonly: true });
    try {
      expect(await appliedMigrations(before)).to.deep.equal(MIGRATION_NAMES.filter((n) => n <= PREVIOUS_RELEASE));
      expect(before.sqlite.prepare('SELECT name FROM branches').all()).to.deep.equal([{ name: 'Old Branch' }]);
    } finally {
      await before.close();
    }
  });

  it('when a migration fails, then the database file is left exactly as it was (the backup beside it is written first)', async () => {
    handle = await previousReleaseDatabase(file);
    handle.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    const original = sha256(file);
    const broken = {
      ...migrations,
      '2099-01-01T0000_broken': {
        async up(db: Kysely<unknown>) {
          await sql`CREATE TABLE half_done (id INTEGER PRIMARY KEY)`.execute(db);
          await sql`UPDATE branches SET name = 'changed by a broken migration'`.execute(db);
          throw new Error('this migration breaks on purpose');
        },
      },
    };
    let failure: Error | undefined;
    await upgradeDatabase(handle, broken).catch((err: Error) => (failure = err));
    expect(failure?.message).to.equal('migration 2099-01-01T0000_broken failed: this migration breaks on purpose');
    expect(await appliedMigrations(handle)).to.deep.equal(MIGRATION_NAMES.filter((n) => n <= PREVIOUS_RELEASE));
    expect(handle.sqlite.prepare("SELECT name FROM sqlite_master WHERE name IN ('half_done', 'import_line_counts')").all()).to.deep.equal(
      [],
    );
    await handle.close();
    handle = undefined;
    expect(sha256(file), 'not one byte of the file changed').to.equal(original);
    expect(existsSync(`${file}-wal`) ? readFileSync(`${file}-wal`).length : 0, 'nothing committed to the WAL either').to.equal(0);
    expect(existsSync(`${file}.before-${PREVIOUS_RELEASE}.bak`)).to.equal(true);
  });

  it('when the directory tables are rebuilt so that no id is given twice (issue 27), then every row, and every row that refers to one, stays', async () => {
    handle = openDatabase(file);
    const result = await migrator(handle).migrateTo('2026-11-25T1400_live_queues');
    if (result.error) throw result.error;
    handle.sqlite.exec(`
      INSERT INTO tenants (id, name, partner_id, mfa_required) VALUES (1, 'One', 7, 1), (2, 'Two', 0, 0);
      INSERT INTO users (id, tenant_id, email, password_hash, user_role, created_at, token_version)
        VALUES (1, 1, 'a@example.test', 'h', 3, 'x', 4), (2, 2, 'b@example.test', 'h', 5, 'x', 0);
      INSERT INTO mfa_enrolments (user_id, mode, expires_at) VALUES (1, 'app', 1);
      INSERT INTO password_resets (token_hash, user_id, expires_at) VALUES ('t', 2, 1);
      INSERT INTO extensions (id, tenant_id, ext_num, peer_name) VALUES (1, 1, 101, 'PJSIP/101'), (2, 1, 102, 'PJSIP/102');
      INSERT INTO queues (id, tenant_id, name, log_name) VALUES (1, 1, 'Sales', 'sales');
      INSERT INTO queue_members (queue_id, extension_id) VALUES (1, 2);
    `);
    // The newest user and extension are deleted before the upgrade: their ids are taken then, after it never again.
    handle.sqlite.exec(
      'DELETE FROM password_resets; DELETE FROM users WHERE id = 2; DELETE FROM queue_members; DELETE FROM extensions WHERE id = 2',
    );
    handle.sqlite.exec(
      "INSERT INTO queue_members (queue_id, extension_id) VALUES (1, 1); INSERT INTO password_resets (token_hash, user_id, expires_at) VALUES ('t', 1, 1)",
    );
    await upgradeDatabase(handle);
    const all = (q: string) => handle?.sqlite.prepare(q).all();
    expect(all('SELECT id, name, partner_id, mfa_required FROM tenants ORDER BY id')).to.deep.equal([
      { id: 1, name: 'One', partner_id: 7, mfa_required: 1 },
      { id: 2, name: 'Two', partner_id: 0, mfa_required: 0 },
    ]);
    expect(all('SELECT id, email, token_version FROM users')).to.deep.equal([{ id: 1, email: 'a@example.test', token_version: 4 }]);
    expect(all('SELECT user_id, mode FROM mfa_enrolments')).to.deep.equal([{ user_id: 1, mode: 'app' }]);
    expect(all('SELECT user_id FROM password_resets')).to.deep.equal([{ user_id: 1 }]);
    expect(all('SELECT queue_id, extension_id FROM queue_members')).to.deep.equal([{ queue_id: 1, extension_id: 1 }]);
    expect(handle.sqlite.pragma('foreign_key_check')).to.deep.equal([]);
    expect(handle.sqlite.pragma('foreign_keys', { simple: true })).to.equal(1);
    // Unique rules came along: another user with the same e-mail in any case is still refused.
    expect(() =>
      handle?.sqlite.exec(
        "INSERT INTO users (tenant_id, email, password_hash, user_role, created_at) VALUES (1, 'A@EXAMPLE.TEST', 'h', 5, 'x')",
      ),
    ).to.throw(/UNIQUE/);
    // Deleting the newest user (its enrolment goes with it, as before) and adding one gives a new id.
    handle.sqlite.exec(
      "INSERT INTO users (tenant_id, email, password_hash, user_role, created_at) VALUES (1, 'c@example.test', 'h', 5, 'x')",
    );
    const newest = (handle.sqlite.prepare('SELECT max(id) AS id FROM users').get() as { id: number }).id;
    handle.sqlite.prepare('DELETE FROM users WHERE id = ?').run(newest);
    handle.sqlite.exec(
      "INSERT INTO users (tenant_id, email, password_hash, user_role, created_at) VALUES (1, 'd@example.test', 'h', 5, 'x')",
    );
    expect((handle.sqlite.prepare('SELECT max(id) AS id FROM users').get() as { id: number }).id).to.equal(newest + 1);
    handle.sqlite.exec('DELETE FROM users WHERE id = 1');
    expect(all('SELECT user_id FROM mfa_enrolments')).to.deep.equal([]);
  });

  it('when the database was made by a newer TARS, then the upgrade refuses it before writing anything', async () => {
    handle = openDatabase(file);
    await upgradeDatabase(handle);
    handle.sqlite
      .prepare('INSERT INTO schema_migrations (name, timestamp) VALUES (?, ?)')
      .run('2099-01-01T0000_newer', '2099-01-01T00:00:00.000Z');
    let failure: Error | undefined;
    await upgradeDatabase(handle).catch((err: Error) => (failure = err));
    expect(failure?.message).to.match(/^the database was made by a newer TARS \(migration 2099-01-01T0000_newer is unknown/);
  });

  it('when a new or up-to-date database is migrated, then no backup is written', async () => {
    handle = openDatabase(file);
    expect((await upgradeDatabase(handle)).backup).to.equal(undefined);
    expect(await upgradeDatabase(handle)).to.deep.equal({ applied: [] });
  });

  it('when tars serve starts on a database of the previous release, then it logs where the backup is, and serves the old data', async function () {
    this.timeout(30_000);
    await (await previousReleaseDatabase(file)).close();
    const server = await startServe(['--data-dir', dir], { env: { TARS_ADMIN_EMAIL: 'old@example.test' } });
    try {
      const line = server
        .output()
        .split('\n')
        .find((l) => l.includes('"backup"'));
      expect(JSON.parse(line ?? '{}')).to.include({
        backup: `${file}.before-${PREVIOUS_RELEASE}.bak`,
        msg: 'upgraded the database schema; the database as it was before is in the backup file',
      });
      expect(existsSync(`${file}.before-${PREVIOUS_RELEASE}.bak`)).to.equal(true);
      expect(server.output(), 'the old user counts as the first admin: none is created').not.to.include(
        'created the first platform administrator',
      );
    } finally {
      const code = await server.stop();
      expect(code, server.output()).to.equal(0);
    }
  });

  it('when tars migrate upgrades a database of the previous release, then it says where the backup is', async function () {
    this.timeout(30_000);
    await (await previousReleaseDatabase(file)).close();
    const res = await runTars(['migrate', '--data-dir', dir]);
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.include(`backed up the database before the upgrade: ${file}.before-${PREVIOUS_RELEASE}.bak`);
    expect(existsSync(`${file}.before-${PREVIOUS_RELEASE}.bak`)).to.equal(true);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { migrations } from '../../db/migrations/index';
import { openDatabase, type OpenDatabase } from '../../src/db/database';
import { migrateToLatest } from '../../src/db/migrate';
import { deleteAttempts, insertAttempt, recentAttempts } from '../../src/modules/auth/attempts.repository';

const MIGRATION = '2026-11-27T1500_login_failure_ids';

describe('the login_failures id migration (issue 32) on a database with attempts', () => {
  let dir: string;
  let handle: OpenDatabase;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tars-login-ids-'));
    handle = openDatabase(join(dir, 'tars.sqlite'));
  });
  afterEach(async () => {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when a database of the version before holds attempts, then after the migration every one is there with an id, in time order, and new ones are numbered after them', async () => {
    const earlier = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < MIGRATION));
    await migrateToLatest(handle, earlier);
    const s = handle.sqlite;
    const insert = s.prepare('INSERT INTO login_failures (key, at) VALUES (?, ?)');
    insert.run('email:ann@example.com', 3000);
    insert.run('ip:10.0.0.1', 1000);
    insert.run('email:ann@example.com', 2000);

    const upToThis = Object.fromEntries(Object.entries(migrations).filter(([name]) => name <= MIGRATION));
    expect(await migrateToLatest(handle, upToThis)).to.deep.equal([MIGRATION]);
    expect(s.prepare('SELECT id, key, at FROM login_failures ORDER BY id').all()).to.deep.equal([
      { id: 1, key: 'ip:10.0.0.1', at: 1000 },
      { id: 2, key: 'email:ann@example.com', at: 2000 },
      { id: 3, key: 'email:ann@example.com', at: 3000 },
    ]);
    expect(
      s.prepare("SELECT name FROM sqlite_master WHERE tbl_name = 'login_failures' AND type = 'index' AND sql IS NOT NULL").pluck().all(),
    ).to.deep.equal(['login_failures_key_at']);
    expect(s.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'login_failures_old'").pluck().get()).to.equal(0);

    // The throttle's place (on the latest schema): inserted with its id, given back by it, the others untouched.
    await migrateToLatest(handle);
    const id = await insertAttempt(handle.db, 'email:ann@example.com', 4000);
    expect(id).to.equal(4);
    await deleteAttempts(handle.db, [id, 2]);
    expect(await recentAttempts(handle.db, 'email:ann@example.com', 0, 10)).to.deep.equal([{ at: 3000 }]);
  });
});

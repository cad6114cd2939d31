import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import SqliteDatabase from 'better-sqlite3';
import { StatementCache } from '../../src/db/dialect';
import { groupKey } from '../../src/http/route';
import { createLogger } from '../../src/log';
import { Writable } from 'node:stream';
import { startTestApp, type TestApp } from '../helpers/app';
import { buildTenant, buildUser, ROLE, tokenFor } from '../helpers/factories';

/*
 * What makes requests faster (README "Performance", "HTTP API") must not change any answer: prepared
 * statements are reused by SQL text, permission sets by the stored role and grants of the user row read
 * on every request, and routes are looked up in the group of their first two path segments.
 */
describe('speed paths', () => {
  describe('prepared statements (StatementCache)', () => {
    let dir: string;
    let sqlite: SqliteDatabase.Database;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'tars-stmt-'));
      sqlite = new SqliteDatabase(join(dir, 'x.db'));
      sqlite.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    });
    afterEach(() => {
      if (sqlite.open) sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('when the same text is prepared twice, then the same statement serves both and sees the current rows', () => {
      const cache = new StatementCache(sqlite);
      const first = cache.prepare('SELECT v FROM t WHERE id = ?');
      expect(first.all([1])).to.deep.equal([]);
      cache.prepare('INSERT INTO t (id, v) VALUES (?, ?)').run([1, 'one']);
      const again = cache.prepare('SELECT v FROM t WHERE id = ?');
      expect(again).to.equal(first);
      expect(again.all([1])).to.deep.equal([{ v: 'one' }]);
      expect(cache.kept).to.equal(2);
    });

    it('when more texts than its size are prepared, then the least recently used is dropped and the size holds', () => {
      const cache = new StatementCache(sqlite, 3);
      const a = cache.prepare('SELECT 1');
      cache.prepare('SELECT 2');
      cache.prepare('SELECT 3');
      cache.prepare('SELECT 1'); // used again: now the most recent
      cache.prepare('SELECT 4'); // drops SELECT 2
      expect(cache.kept).to.equal(3);
      expect(cache.prepare('SELECT 1')).to.equal(a);
      expect(cache.kept).to.equal(3);
    });

    it('when the schema changes after a statement was kept, then the kept statement reads the new schema', () => {
      const cache = new StatementCache(sqlite);
      cache.prepare('INSERT INTO t (id, v) VALUES (?, ?)').run([1, 'one']);
      const select = cache.prepare('SELECT * FROM t');
      expect(select.all([])).to.deep.equal([{ id: 1, v: 'one' }]);
      sqlite.exec("ALTER TABLE t ADD COLUMN w TEXT NOT NULL DEFAULT 'x'");
      expect(cache.prepare('SELECT * FROM t').all([])).to.deep.equal([{ id: 1, v: 'one', w: 'x' }]);
    });

    it('when it is closed, then the connection is closed', () => {
      const cache = new StatementCache(sqlite);
      cache.prepare('SELECT 1');
      cache.close();
      expect(sqlite.open).to.equal(false);
      expect(cache.kept).to.equal(0);
    });
  });

  describe('permissions of the caller', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp();
    });
    after(() => app.close());

    it('when a user row gets other grants or another role, then its very next request (same token) is judged by them', async () => {
      const db = app.deps.database.db;
      const tenant = await buildTenant(db);
      const user = await buildUser(db, tenant.id, ROLE.basic);
      const token = await tokenFor(app, user);
      const list = () => app.request('GET', '/v2/webhooks/', { token, query: { tenantId: tenant.id } });
      expect((await list()).status).to.equal(403);

      await db.updateTable('users').set({ permissions: JSON.stringify(['webhooks.read']) }).where('id', '=', user.id).execute();
      expect((await list()).status).to.equal(200);

      await db.updateTable('users').set({ permissions: JSON.stringify(['webhooks.read', '!webhooks.#']) }).where('id', '=', user.id).execute();
      expect((await list()).status).to.equal(403);

      await db.updateTable('users').set({ permissions: '[]', user_role: ROLE.account }).where('id', '=', user.id).execute();
      expect((await list()).status).to.equal(200);

      await db.updateTable('users').set({ user_role: ROLE.queues }).where('id', '=', user.id).execute();
      expect((await list()).status).to.equal(403);
    });

    it('when two users share a role and grants, then each still acts only in its own tenant', async () => {
      const db = app.deps.database.db;
      const [t1, t2] = [await buildTenant(db), await buildTenant(db)];
      const [u1, u2] = [await buildUser(db, t1.id, ROLE.account), await buildUser(db, t2.id, ROLE.account)];
      const list = async (u: { id: number }, tenantId: number) => (await app.request('GET', '/v2/webhooks/', { token: await tokenFor(app, u), query: { tenantId } })).status;
      expect([await list(u1, t1.id), await list(u1, t2.id), await list(u2, t2.id), await list(u2, t1.id)]).to.deep.equal([200, 403, 200, 403]);
    });
  });

  describe('route groups', () => {
    let app: TestApp;
    let token: string;
    before(async () => {
      app = await startTestApp();
      const db = app.deps.database.db;
      token = await tokenFor(app, await buildUser(db, (await buildTenant(db)).id, ROLE.account));
    });
    after(() => app.close());

    it('when paths are grouped, then by their first two segments, with or without a trailing slash', () => {
      expect(['/v2/webhooks/:id', '/v2/webhooks', '/v2/webhooks/', '/healthz', '/healthz/', '/v2', '//v2/webhooks'].map(groupKey)).to.deep.equal([
        'v2/webhooks', 'v2/webhooks', 'v2/webhooks', 'healthz/', 'healthz/', 'v2/', '/v2',
      ]);
    });

    it('when a fixed path is declared before a parameterised one of its group, then the fixed one still answers', async () => {
      const res = await app.request('GET', '/v2/webhooks/list-types', { token });
      expect(res.status).to.equal(200);
      expect(res.body).to.be.an('array').that.is.not.empty;
      expect(res.body[0]).to.have.keys(['type', 'description']);
    });

    it('when a path has a trailing slash, another case, a doubled slash or no route in its group, then it is answered as before', async () => {
      expect((await app.request('GET', '/healthz/')).status).to.equal(200);
      expect((await app.request('GET', '/v2/webhooks/list-types/', { token })).status).to.equal(200);
      for (const path of ['/V2/webhooks/list-types', '//v2/webhooks/list-types', '/v2/webhooks/1/nothing', '/v2/nothing', '/v2']) {
        const res = await app.request('GET', path, { token });
        expect([path, res.status, res.body.message]).to.deep.equal([path, 404, `Route GET ${path} not found`]);
      }
    });
  });

  describe('the request log line', () => {
    it('when a request is answered, then one line names it, and a line of any other kind is still redacted', async () => {
      const lines: string[] = [];
      const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(...chunk.toString().split('\n').filter(Boolean)), done()) });
      const app = await startTestApp({ log: createLogger('info', sink) });
      try {
        const db = app.deps.database.db;
        const user = await buildUser(db, (await buildTenant(db)).id, ROLE.account);
        const res = await app.request('GET', '/v2/webhooks/list-types', { token: await tokenFor(app, user), headers: { 'x-request-id': 'speed-1' } });
        expect(res.status).to.equal(200);
        app.deps.log.info({ user: { password: 'hunter2' }, accessToken: 'abc' }, 'other');
        const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
        const request = entries.filter((e) => e.msg === 'request');
        expect(request.map(({ reqId, method, path, status, userId, service }) => ({ reqId, method, path, status, userId, service }))).to.deep.equal([
          { reqId: 'speed-1', method: 'GET', path: '/v2/webhooks/list-types', status: 200, userId: user.id, service: 'tars' },
        ]);
        expect(request[0]?.durationMs).to.be.a('number');
        expect(entries.find((e) => e.msg === 'other')).to.deep.include({ user: { password: '[redacted]' }, accessToken: '[redacted]' });
      } finally {
        await app.close();
      }
    });
  });
});

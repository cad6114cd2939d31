import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import SqliteDatabase from 'better-sqlite3';
import { StatementCache } from '../../src/db/dialect';
import { ALL_TENANTS, tenantsScope, type TenantScope } from '../../src/access/scope';
import { tenantIn } from '../../src/access/tenant-filter';
import { defineQuery, defineShapedQuery, inJsonList, type Params } from '../../src/db/query';
import { windowed } from '../../src/access/paging';
import { groupKey } from '../../src/http/route';
import { createLogger } from '../../src/log';
import { Writable } from 'node:stream';
import { startTestApp, type TestApp } from '../helpers/app';
import { buildBranch, buildTenant, buildUser, ROLE, tokenFor } from '../helpers/factories';

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

    it('when rows are read with all(), then they are the objects better-sqlite3 makes, whatever the columns are called', () => {
      const cache = new StatementCache(sqlite);
      cache.prepare('INSERT INTO t (id, v) VALUES (?, ?), (?, ?)').run([1, 'one', 2, null]);
      for (const sql of [
        'SELECT * FROM t ORDER BY id',
        `SELECT id, v AS "odd ""name""}; throw 1; //", v AS 'it''s' FROM t ORDER BY id`,
        'SELECT id, v AS id FROM t ORDER BY id', // a name twice: the last one wins, as in better-sqlite3
        'SELECT id AS __proto__, v FROM t ORDER BY id',
        'SELECT count(*) AS n FROM t WHERE id > ?',
      ]) {
        const params = sql.includes('?') ? [5] : [];
        expect(cache.all(sql, params), sql).to.deep.equal(sqlite.prepare(sql).all(params));
      }
      const proto = cache.all('SELECT id AS __proto__ FROM t ORDER BY id', []) as object[];
      expect(Object.getPrototypeOf(proto[0])).to.equal(Object.prototype);
    });

    it('when the schema changes after rows were read with all(), then a SELECT * reads the new columns', () => {
      const cache = new StatementCache(sqlite);
      cache.prepare('INSERT INTO t (id, v) VALUES (?, ?)').run([1, 'one']);
      expect(cache.all('SELECT * FROM t', [])).to.deep.equal([{ id: 1, v: 'one' }]);
      sqlite.exec("ALTER TABLE t ADD COLUMN w TEXT NOT NULL DEFAULT 'x'");
      expect(cache.all('SELECT * FROM t', [])).to.deep.equal([{ id: 1, v: 'one', w: 'x' }]);
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

  describe('queries compiled once (defineQuery, defineShapedQuery)', () => {
    let app: TestApp;
    before(async () => (app = await startTestApp()));
    after(() => app.close());

    it('when no transaction is open, then a read sees every committed row', async () => {
      const { db } = app.deps.database;
      const tenant = await buildTenant(db);
      const byId = defineQuery((h, p: Params<{ id: number }>) => h.selectFrom('tenants').select(['id', 'name']).where('id', '=', p.id));
      expect(await byId.all(db, { id: tenant.id })).to.deep.equal([{ id: tenant.id, name: tenant.name }]);
    });

    it('when another request holds a transaction open across an await, then a read waits for it and never sees its uncommitted rows', async () => {
      const { db } = app.deps.database;
      const tenant = await buildTenant(db);
      const nameOf = defineQuery((h, p: Params<{ id: number }>) => h.selectFrom('tenants').select('name').where('id', '=', p.id));
      let inside!: () => void;
      let release!: () => void;
      const entered = new Promise<void>((r) => (inside = r));
      const held = new Promise<void>((r) => (release = r));
      const writer = db.transaction().execute(async (trx) => {
        await trx.updateTable('tenants').set({ name: 'Renamed, then rolled back' }).where('id', '=', tenant.id).execute();
        inside();
        await held;
        throw new Error('roll back');
      });
      await entered;
      const read = nameOf.all(db, { id: tenant.id });
      release();
      await writer.catch(() => undefined);
      expect(await read).to.deep.equal([{ name: tenant.name }]);
    });

    it('when a query compiled once runs in a transaction or with other values, then it reads them; without a value, it rejects', async () => {
      const { db } = app.deps.database;
      const [a, b] = [await buildTenant(db), await buildTenant(db)];
      const nameOf = defineQuery((h, p: Params<{ id: number }>) => h.selectFrom('tenants').select('name').where('id', '=', p.id));
      expect(await nameOf.first(db, { id: a.id })).to.deep.equal({ name: a.name });
      expect(await nameOf.all(db, { id: b.id })).to.deep.equal([{ name: b.name }]);
      const inTrx = await db.transaction().execute(async (trx) => {
        await trx.updateTable('tenants').set({ name: 'Inside' }).where('id', '=', a.id).execute();
        return nameOf.all(trx, { id: a.id });
      });
      expect(inTrx).to.deep.equal([{ name: 'Inside' }]);
      const missing = await nameOf.all(db, {} as { id: number }).then(
        () => 'read',
        (err: Error) => err.message,
      );
      expect(missing).to.match(/no value for id/);
    });

    it('when a scope is a parameter, then it is in the WHERE: every tenant sees all rows, a scope of some tenants only theirs', async () => {
      const { db } = app.deps.database;
      const [a, b] = [await buildTenant(db), await buildTenant(db)];
      let builds = 0;
      const named = defineQuery((h, p: Params<{ ids: string; scope: TenantScope }>) => {
        builds++;
        return h.selectFrom('tenants').select('id').where(inJsonList('id', p.ids)).where(tenantIn(p.scope, 'id')).orderBy('id');
      });
      const ids = JSON.stringify([a.id, b.id]);
      expect(await named.all(db, { ids, scope: ALL_TENANTS })).to.deep.equal([{ id: a.id }, { id: b.id }]);
      expect(await named.all(db, { ids, scope: tenantsScope([b.id]) })).to.deep.equal([{ id: b.id }]);
      expect(await named.all(db, { ids, scope: tenantsScope([a.id]) })).to.deep.equal([{ id: a.id }]);
      expect(await named.all(db, { ids, scope: tenantsScope([]) })).to.deep.equal([]);
      expect(builds, 'one build for every tenant, one for some').to.equal(2);
    });

    it('when run with shapes and values, then each shape is built once and every run reads its own values, by name', async () => {
      const { db } = app.deps.database;
      const [a, b] = [await buildTenant(db, { partnerId: 7 }), await buildTenant(db, { partnerId: 8 })];
      let builds = 0;
      const tenants = defineShapedQuery(
        (s: { partner: boolean }) => String(s.partner),
        (h, p: Params<{ ids: string; partner?: number }>, s) => {
          builds++;
          return h
            .selectFrom('tenants')
            .select(['id', 'name'])
            .where(inJsonList('id', p.ids))
            .$if(s.partner, (q) => q.where('partner_id', '=', p.partner as number))
            .orderBy('id');
        },
      );
      const ids = JSON.stringify([a.id, b.id]);
      expect(await tenants.all(db, { partner: false }, { ids })).to.deep.equal([a, b].map(({ id, name }) => ({ id, name })));
      expect(await tenants.all(db, { partner: true }, { ids, partner: 8 })).to.deep.equal([{ id: b.id, name: b.name }]);
      expect(await tenants.all(db, { partner: true }, { ids, partner: 7 })).to.deep.equal([{ id: a.id, name: a.name }]);
      expect(await tenants.all(db, { partner: false }, { ids: JSON.stringify([b.id]) })).to.deep.equal([{ id: b.id, name: b.name }]);
      expect(builds, 'one build per shape').to.equal(2);
      const inTrx = await db.transaction().execute(async (trx) => tenants.all(trx, { partner: true }, { ids, partner: 7 }));
      expect(inTrx).to.deep.equal([{ id: a.id, name: a.name }]);
      const missing = await tenants.all(db, { partner: true }, { ids }).catch((err: Error) => err.message);
      expect(missing).to.match(/no value for partner/);
    });
  });

  describe('page windows', () => {
    it('when a page is read, then its LIMIT and OFFSET are written into the SQL (a bound LIMIT is prepared again on every run)', async () => {
      const app = await startTestApp();
      try {
        const { db } = app.deps.database;
        const q = windowed(db.selectFrom('tenants').select('id').where('id', '>', 7).orderBy('id'), { limit: 50, offset: 100 }).compile();
        expect([q.sql, q.parameters]).to.deep.equal(['select "id" from "tenants" where "id" > ? order by "id" limit 50 offset 100', [7]]);
        expect(() => windowed(db.selectFrom('tenants').select('id'), { limit: 1.5, offset: 0 })).to.throw(/integers expected/);
        expect(windowed(db.selectFrom('tenants').select('id'), { limit: null, offset: 0 }).compile().sql).to.equal('select "id" from "tenants"');
      } finally {
        await app.close();
      }
    });
  });

  describe('the route table', () => {
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

    it('when asked with OPTIONS, HEAD or a method the path has no route for, then it answers as Express did', async () => {
      const options = await app.request('OPTIONS', '/v2/webhooks/1');
      expect([options.status, options.headers.get('allow'), options.text]).to.deep.equal([200, 'DELETE, GET, HEAD, PATCH', 'DELETE, GET, HEAD, PATCH']);
      expect((await app.request('OPTIONS', '/v2/nothing/here')).status).to.equal(404);
      const head = await app.request('HEAD', '/v2/webhooks/list-types', { token });
      expect([head.status, head.headers.get('content-type'), head.text]).to.deep.equal([200, 'application/json; charset=utf-8', '']);
      const put = await app.request('PUT', '/v2/webhooks/1', { token, body: {} });
      expect([put.status, put.body.message]).to.deep.equal([404, 'Route PUT /v2/webhooks/1 not found']);
    });

    it('when a path parameter has a malformed %-escape, then the answer is a 400 in the error shape', async () => {
      const res = await app.request('GET', '/v2/webhooks/%zz', { token });
      expect([res.status, res.body.name, res.body.code]).to.deep.equal([400, 'BadRequest', 400]);
    });

    it('when a record is answered, then as res.json would: JSON with its charset and the length in bytes', async () => {
      const db = app.deps.database.db;
      const tenant = await buildTenant(db);
      const branch = await buildBranch(db, tenant.id, { name: 'Zürich Ünïcode' });
      const admin = await tokenFor(app, await buildUser(db, tenant.id, ROLE.account));
      const res = await app.request('GET', `/v2/admin/branches/${branch.id}`, { token: admin });
      expect([res.status, res.body.name]).to.deep.equal([200, 'Zürich Ünïcode']);
      expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      expect(Number(res.headers.get('content-length'))).to.equal(Buffer.byteLength(res.text)).and.be.greaterThan(res.text.length);
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

    it('when the server writes a burst of lines to its standard output and exits at once, then every line arrives whole and in order', () => {
      // The output tars serve logs through (serverLogOutput: asynchronous, lines queued as bytes), in a child
      // process that writes 20,000 lines (some with text of several bytes per character) and exits right away.
      const script = `
        import { createLogger, serverLogOutput } from ${JSON.stringify(join(import.meta.dirname, '../../src/log.ts'))};
        const log = createLogger('info', serverLogOutput());
        for (let i = 0; i < 20000; i++) log.info({ i, name: i % 3 === 0 ? 'Zoë Ångström 東京 ☎' : 'plain' }, 'line');
        process.exit(0);`;
      const out = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 64 << 20 });
      expect(out.status, out.stderr).to.equal(0);
      const lines = out.stdout.split('\n');
      expect(lines.pop()).to.equal(''); // ends with a whole line
      const entries = lines.map((l) => JSON.parse(l) as { i: number; name: string; msg: string });
      expect(entries.map((e) => e.i)).to.deep.equal(Array.from({ length: 20000 }, (_, i) => i));
      expect(entries.filter((e) => e.name === 'Zoë Ångström 東京 ☎')).to.have.length(6667);
      expect(entries.every((e) => e.msg === 'line')).to.equal(true);
    });
  });
});

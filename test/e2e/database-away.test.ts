import { expect } from 'chai';
import { sql } from 'kysely';
import { openSqlite, transaction } from '../../src/db/database';
import { dbErrorKind } from '../../src/db/db-errors';
import { errorHandler } from '../../src/http/middleware';
import { silentLogger } from '../../src/log';
import { startTestApp, type TestResponse } from '../helpers/app';
import { buildTenant, buildUser, ROLE, tokenFor } from '../helpers/factories';
import { migratePostgres, startPgInstance, type PgInstance } from '../helpers/pg-instances';
import { startPostgres, type PostgresCluster } from '../helpers/postgres';
import { until } from '../helpers/until';
import { databasePath } from '../../src/runtime';

/*
 * The database away or busy (issue 32, design step 9). PostgreSQL away: while the database does not answer, the
 * real app answers 503 with Retry-After in the error shape of decisions.md §2 (never 500), /healthz says 503, and
 * once it is back the same instances, never restarted, serve again; every write acknowledged before the stop is
 * there after it. The cluster is its own, durable (fsync and synchronous commit on), stopped as by a crash
 * ('immediate') and started again. SQLite busy: the write lock held by another connection past the busy timeout.
 */

describe('PostgreSQL away: 503 while the database does not answer, and back without a restart', function () {
  this.timeout(240_000);
  let cluster: PostgresCluster;
  let instances: PgInstance[] = [];

  before(async () => {
    cluster = await startPostgres({ durable: true });
  });
  after(async () => {
    await Promise.all(instances.map((i) => i.close()));
    await cluster?.stop();
  });

  const expect503 = (res: TestResponse) => {
    expect(res.status, res.text).to.equal(503);
    expect(res.body).to.deep.equal({
      name: 'Unavailable',
      message: 'The database is not answering; nothing was changed. Try again shortly',
      code: 503,
    });
    expect(res.headers.get('retry-after')).to.equal('5');
  };

  it('when the server stops as by a crash, then reads, writes and /healthz answer 503 with Retry-After on two instances; started again, they serve and no acknowledged write is lost', async () => {
    const url = await cluster.createDatabase();
    await migratePostgres(url);
    instances = await Promise.all([startPgInstance(url), startPgInstance(url)]);
    const [one, two] = instances as [PgInstance, PgInstance];
    const tenant = await buildTenant(one.database.db);
    const admin = await buildUser(one.database.db, tenant.id, ROLE.account);
    const signedIn = await one.request('POST', '/v2/authentication/', { body: { email: admin.email, password: admin.password } });
    expect(signedIn.status).to.equal(201);
    const token = signedIn.body.accessToken as string;
    const create = (on: PgInstance, name: string) =>
      on.request('POST', '/v2/admin/branches', { token, body: { tenantId: tenant.id, name } });
    const acknowledged: string[] = [];
    for (let i = 0; i < 10; i++) {
      const name = `Before ${i}`;
      const res = await create(i % 2 ? two : one, name);
      expect(res.status, res.text).to.equal(201);
      acknowledged.push(name);
    }
    expect((await one.request('GET', '/healthz')).body).to.deep.equal({ status: 'ok' });

    await cluster.stopServer('immediate');
    for (const on of [one, two]) {
      expect503(await on.request('GET', '/healthz'));
      expect503(await on.request('GET', '/v2/users/me', { token }));
      expect503(await create(on, 'During'));
      expect503(await on.request('POST', '/v2/authentication/', { body: { email: admin.email, password: 'wrong password' } }));
    }

    await cluster.startServer();
    // The pools' connections died with the server: the first queries after may still find one; then all is served.
    for (const on of [one, two]) await until(async () => (await on.request('GET', '/healthz')).status === 200, { what: 'health back' });
    for (let i = 0; i < 4; i++) {
      const name = `After ${i}`;
      const res = await create(i % 2 ? two : one, name);
      expect(res.status, res.text).to.equal(201);
      acknowledged.push(name);
    }
    expect((await two.request('GET', '/v2/users/me', { token })).status).to.equal(200);
    const names = (await one.database.db.selectFrom('branches').select('name').where('tenant_id', '=', tenant.id).execute()).map(
      (r) => r.name,
    );
    expect(names.sort()).to.deep.equal([...acknowledged].sort());
  });

  it('when a serialization failure survives every run of transaction(), then the answer is 503 with Retry-After, not 500', async () => {
    const url = await cluster.createDatabase();
    await migratePostgres(url);
    const instance = await startPgInstance(url);
    instances.push(instance);
    let runs = 0;
    let failure: unknown;
    try {
      await transaction(instance.database.db, async (trx) => {
        runs++;
        await sql`DO $$ BEGIN RAISE EXCEPTION SQLSTATE '40001' USING MESSAGE = 'could not serialize access'; END $$`.execute(trx);
      });
    } catch (err) {
      failure = err;
    }
    expect(runs).to.equal(5);
    expect((failure as { code?: string }).code).to.equal('40001');
    expect(dbErrorKind(failure)).to.equal('busy');
    const answer = answerOf(failure);
    expect(answer.status).to.equal(503);
    expect(answer.headers['Retry-After']).to.equal('1');
    expect(answer.body).to.deep.equal({
      name: 'Unavailable',
      message: 'The database is too busy to take this request now; nothing was changed. Try again shortly',
      code: 503,
    });
  });
});

describe('SQLite busy: 503 when another process holds the write lock past the busy timeout', function () {
  this.timeout(60_000);

  it('when another connection holds the write lock longer than the busy timeout, then a write answers 503 busy with Retry-After, a read is served, and the write succeeds once the lock is gone', async () => {
    const app = await startTestApp();
    const other = openSqlite(databasePath(app.dataDir));
    try {
      const tenant = await buildTenant(app.deps.db);
      const admin = await buildUser(app.deps.db, tenant.id, ROLE.account);
      const token = await tokenFor(app, admin);
      const create = () => app.request('POST', '/v2/admin/branches', { token, body: { tenantId: tenant.id, name: 'Held up' } });
      other.exec('BEGIN IMMEDIATE'); // as a `tars import` beside the server holds it while it writes a chunk
      const refused = await create(); // waits BUSY_TIMEOUT_MS (10 s), then gives up
      expect(refused.status, refused.text).to.equal(503);
      expect(refused.body).to.deep.equal({
        name: 'Unavailable',
        message: 'The database is too busy to take this request now; nothing was changed. Try again shortly',
        code: 503,
      });
      expect(refused.headers.get('retry-after')).to.equal('1');
      expect((await app.request('GET', '/v2/users/me', { token })).status).to.equal(200); // WAL: readers never wait
      other.exec('ROLLBACK');
      expect((await create()).status).to.equal(201);
      expect(await app.deps.db.selectFrom('branches').select('name').where('tenant_id', '=', tenant.id).execute()).to.deep.equal([
        { name: 'Held up' },
      ]);
    } finally {
      other.close();
      await app.close();
    }
  });
});

/** What the app's error handler answers for `err`: status, headers and body, as Express would send them. */
function answerOf(err: unknown): { status: number; headers: Record<string, string>; body: unknown } {
  const answer = { status: 0, headers: {} as Record<string, string>, body: undefined as unknown };
  const res = {
    locals: {},
    headersSent: false,
    setHeader: (k: string, v: string) => (answer.headers[k] = v),
    status(code: number) {
      answer.status = code;
      return this;
    },
    json(body: unknown) {
      answer.body = body;
      return this;
    },
  };
  errorHandler(silentLogger)(err, {} as never, res as never, () => undefined);
  return answer;
}

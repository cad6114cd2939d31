import { existsSync } from 'node:fs';
import { expect } from 'chai';
import pg from 'pg';
import { PG_USER, startPostgres, type PostgresCluster } from '../helpers/postgres';

/*
 * The throw-away PostgreSQL of test/helpers/postgres.ts, which the PostgreSQL runs of the suite (issue 32)
 * stand on: it really starts, its databases are separate and C-collated, it keeps committed rows across a
 * crash of the server, and it leaves nothing behind.
 */

async function withClient<T>(url: string, use: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

describe('the throw-away PostgreSQL cluster (test/helpers/postgres.ts)', function () {
  this.timeout(120_000);
  let cluster: PostgresCluster;

  before(async () => {
    cluster = await startPostgres({ tcp: true, durable: true });
  });

  after(async () => {
    await cluster?.stop();
  });

  it('when a database is created, then a query over its Unix socket answers as the test role on PostgreSQL 13 or later', async () => {
    const url = await cluster.createDatabase('answers');
    expect(url).to.equal(`postgres://${PG_USER}@/answers?host=${encodeURIComponent(cluster.socketDir)}&port=${cluster.port}`);
    const row = await withClient(
      url,
      async (c) => (await c.query('SELECT current_user AS who, 6 * 7 AS n, current_database() AS db')).rows[0],
    );
    expect(row).to.deep.equal({ who: PG_USER, n: 42, db: 'answers' });
    const [shown] = await cluster.query<{ server_version_num: string }>('SHOW server_version_num');
    expect(Math.floor(Number(shown?.server_version_num) / 10_000))
      .to.equal(cluster.major)
      .and.to.be.at.least(13);
  });

  it('when the cluster listens on loopback too, then the TCP URL reaches the same server', async () => {
    const url = await cluster.createDatabase('both_ways');
    const viaTcp = cluster.url('both_ways', 'tcp');
    expect(viaTcp).to.equal(`postgres://${PG_USER}@127.0.0.1:${cluster.port}/both_ways`);
    await withClient(url, (c) => c.query('CREATE TABLE marks (n integer)').then(() => c.query('INSERT INTO marks VALUES (7)')));
    const rows = await withClient(viaTcp, async (c) => (await c.query('SELECT n FROM marks')).rows);
    expect(rows).to.deep.equal([{ n: 7 }]);
  });

  it('when two databases are created, then a table made in one does not exist in the other', async () => {
    const a = await cluster.createDatabase();
    const b = await cluster.createDatabase();
    expect(a).to.not.equal(b);
    await withClient(a, (c) => c.query('CREATE TABLE only_in_a (id integer)'));
    const inB = await withClient(b, async (c) => (await c.query("SELECT to_regclass('only_in_a') AS t")).rows[0].t);
    const inA = await withClient(a, async (c) => (await c.query("SELECT to_regclass('only_in_a') AS t")).rows[0].t);
    expect([inA, inB]).to.deep.equal(['only_in_a', null]);
  });

  it('when text is sorted, then it is in byte (code point) order, as SQLite sorts it', async () => {
    const url = await cluster.createDatabase();
    const sorted = await withClient(url, async (c) =>
      (await c.query("SELECT s FROM unnest(ARRAY['b', 'B', 'a', 'É', 'e', 'Z', '_']) AS s ORDER BY s")).rows.map((r) => r.s),
    );
    expect(sorted).to.deep.equal(['B', 'Z', '_', 'a', 'b', 'e', 'É']);
  });

  it('when the server crashes and starts again, then every committed row is there and an uncommitted one is not', async () => {
    const url = await cluster.createDatabase();
    await withClient(url, (c) => c.query('CREATE TABLE acked (id integer PRIMARY KEY)'));
    await withClient(url, (c) => c.query('INSERT INTO acked SELECT generate_series(1, 500)'));
    const open = new pg.Client({ connectionString: url });
    await open.connect();
    open.on('error', () => undefined); // the crash cuts this connection
    await open.query('BEGIN');
    await open.query('INSERT INTO acked VALUES (501)');
    await cluster.restart('immediate');
    await open.end().catch(() => undefined);
    const n = await withClient(url, async (c) => (await c.query('SELECT count(*)::int AS n, max(id) AS top FROM acked')).rows[0]);
    expect(n).to.deep.equal({ n: 500, top: 500 });
  });

  it('when the cluster is stopped, then its directory is gone and its socket refuses connections', async () => {
    const other = await startPostgres();
    const url = await other.createDatabase();
    const dir = other.socketDir;
    expect(existsSync(dir)).to.equal(true);
    await other.stop();
    expect(existsSync(dir)).to.equal(false);
    const err = await withClient(url, (c) => c.query('SELECT 1')).then(
      () => undefined,
      (e: NodeJS.ErrnoException) => e.code,
    );
    expect(err).to.equal('ENOENT');
  });
});

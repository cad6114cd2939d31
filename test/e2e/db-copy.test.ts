import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { expect } from 'chai';
import { runTars, startServe, type RunningServer } from '../helpers/cli';
import { MIGRATION_NAMES } from '../../src/db/migrate';
import { CDR_SAMPLE, FIXTURES, QUEUE_LOG_SAMPLE } from '../helpers/pbx-logs';
import { sharedPostgres } from '../helpers/postgres';

/*
 * `tars db copy` (issue 32) with the real program: every row of a used data directory into an empty one (and, in
 * the PostgreSQL tests, into PostgreSQL and back), verified table by table; refused where it would lose or mix data.
 */

type Counts = Record<string, number>;

/* tars_settings is not among the copied tables: its one setting, the JWT secret, moves between the file and the row. */

function tableCounts(dataDir: string): Counts {
  const db = new SqliteDatabase(join(dataDir, 'tars.db'), { readonly: true, fileMustExist: true });
  try {
    const tables = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'schema_migrations%' AND name <> 'tars_settings' ORDER BY name",
      )
      .pluck()
      .all() as string[];
    return Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT count(*) FROM "${t}"`).pluck().get() as number]));
  } finally {
    db.close();
  }
}

function query<T>(dataDir: string, text: string): T[] {
  const db = new SqliteDatabase(join(dataDir, 'tars.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(text).all() as T[];
  } finally {
    db.close();
  }
}

describe('tars db copy (e2e, the real program)', function () {
  this.timeout(180_000);
  let dir: string;
  let source: string;
  let server: RunningServer | undefined;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tars-db-copy-'));
    source = join(dir, 'source');
    expect((await runTars(['seed', join(FIXTURES, 'acme.json'), '--data-dir', source])).code).to.equal(0);
    expect((await runTars(['import', 'queue-log', QUEUE_LOG_SAMPLE, '--data-dir', source])).code).to.equal(0);
    expect((await runTars(['import', 'cdr', CDR_SAMPLE, '--data-dir', source])).code).to.equal(0);
    // A server start writes the JWT secret; a webhook made and deleted leaves an id that must never be given again.
    server = await startServe(['--data-dir', source], {
      env: { TARS_ADMIN_EMAIL: 'ops@example.test', TARS_ADMIN_PASSWORD: 'ops-admin-pass' },
    });
    await server.stop();
    server = undefined;
    const db = new SqliteDatabase(join(source, 'tars.db'));
    try {
      db.prepare(
        'INSERT INTO webhooks (tenant_id, url, type, secret, created_at) SELECT tenant_id, url, type, secret, created_at FROM webhooks LIMIT 1',
      ).run();
      db.prepare('DELETE FROM webhooks WHERE id = (SELECT max(id) FROM webhooks)').run();
    } finally {
      db.close();
    }
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('when a used data directory is copied into a new one, then every table has its rows and checksum, ids given before stay given, and the secret goes along', async () => {
    const target = join(dir, 'copy');
    const result = await runTars(['db', 'copy', '--from', source, '--to', target]);
    expect(result.stderr).to.equal('');
    expect(result.code).to.equal(0);
    const counts = tableCounts(source);
    expect(counts.queue_events).to.be.greaterThan(400);
    expect(counts.cdr_calls).to.be.greaterThan(100);
    expect(counts.users).to.be.greaterThan(1);
    expect(tableCounts(target)).to.deep.equal(counts);
    const lines = result.stdout.trim().split('\n');
    for (const [table, rows] of Object.entries(counts)) {
      const line = lines.find((l) => l.startsWith(`${table} `));
      expect(line, table).to.match(new RegExp(`^${table} +${rows} [0-9a-f]{16} ok$`));
    }
    expect(lines.at(-1)).to.equal(
      `copied ${Object.values(counts).reduce((a, b) => a + b, 0)} rows of ${Object.keys(counts).length} tables; every table reads back as in the source`,
    );
    const sequences = (d: string) => query<{ name: string; seq: number }>(d, 'SELECT name, seq FROM sqlite_sequence ORDER BY name');
    expect(sequences(target)).to.deep.equal(sequences(source));
    const webhooks = sequences(source).find((s) => s.name === 'webhooks');
    const top = query<{ top: number }>(source, 'SELECT max(id) AS top FROM webhooks')[0]?.top ?? 0;
    expect(webhooks?.seq).to.equal(top + 1);
    expect(readFileSync(join(target, 'jwt-secret'), 'utf8')).to.equal(readFileSync(join(source, 'jwt-secret'), 'utf8'));
    expect(statSync(join(target, 'jwt-secret')).mode & 0o077).to.equal(0);
    const check = await runTars(['check', '--data-dir', target]);
    expect(check.stdout).to.include('passes PRAGMA integrity_check');
  });

  it('when the target already holds rows, then the copy is refused with exit 1 and the target is unchanged', async () => {
    const target = join(dir, 'full');
    expect((await runTars(['seed', join(FIXTURES, 'acme.json'), '--data-dir', target])).code).to.equal(0);
    const before = tableCounts(target);
    const result = await runTars(['db', 'copy', '--from', source, '--to', target]);
    expect(result.code).to.equal(1);
    expect(result.stderr).to.match(
      /^tars db copy: .* already holds rows \(in [a-z_, …]+\): tars db copy writes only into an empty database; nothing was written\n$/,
    );
    expect(result.stderr).to.include(`${target} already holds rows`);
    expect(tableCounts(target)).to.deep.equal(before);
  });

  it('when a server runs on the source, or --from and --to are the same, or one is missing, then the copy is refused and writes nothing', async () => {
    server = await startServe(['--data-dir', source]);
    const busy = await runTars(['db', 'copy', '--from', source, '--to', join(dir, 'busy')]);
    expect(busy.code).to.equal(1);
    expect(busy.stderr).to.match(
      /a TARS server \(pid \d+\) is running on .*source: stop it first, so that no row changes during the copy; nothing was written/,
    );
    await server.stop();
    server = undefined;
    const same = await runTars(['db', 'copy', '--from', source, '--to', source]);
    expect(same.code).to.equal(1);
    expect(same.stderr).to.equal('tars db copy: --from and --to name the same database; nothing was written\n');
    const missing = await runTars(['db', 'copy', '--from', source]);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.equal('tars db copy: say both --from and --to\n');
    const none = await runTars(['db', 'copy', '--from', join(dir, 'nothing-here'), '--to', join(dir, 'never')]);
    expect(none.code).to.equal(1);
    expect(none.stderr).to.include('holds no TARS database');
    expect(() => statSync(join(dir, 'never'))).to.throw();
  });

  it('when a data directory is copied into PostgreSQL and back into a new directory, then every table reads back alike at each step, with the same checksums, and ids given before stay given', async () => {
    const url = await (await sharedPostgres()).createDatabase();
    const there = await runTars(['db', 'copy', '--from', source, '--to', url]);
    expect(there.stderr).to.equal('');
    expect(there.code).to.equal(0);
    const back = join(dir, 'back');
    const again = await runTars(['db', 'copy', '--from', url, '--to', back]);
    expect(again.stderr).to.equal('');
    expect(again.code).to.equal(0);
    expect(tableCounts(back)).to.deep.equal(tableCounts(source));
    // Each line is `table rows checksum ok`: the same checksums from SQLite into PostgreSQL and from PostgreSQL out.
    const checksums = (out: string) =>
      out
        .split('\n')
        .filter((l) => / ok$/.test(l))
        .map((l) => l.split(/ +/).slice(0, 3).join(' '))
        .sort();
    expect(checksums(again.stdout)).to.deep.equal(checksums(there.stdout));
    expect(checksums(there.stdout)).to.have.length(Object.keys(tableCounts(source)).length);
    const sequences = (d: string) => query<{ name: string; seq: number }>(d, 'SELECT name, seq FROM sqlite_sequence ORDER BY name');
    expect(sequences(back)).to.deep.equal(sequences(source));
    // The secret: from the source's file into the database's row, and from the row into the new directory's file.
    expect(there.stdout).to.include('the JWT secret is copied into the database (table tars_settings)');
    const secret = readFileSync(join(source, 'jwt-secret'), 'utf8').trim();
    const cluster = await sharedPostgres();
    const database = /\/(\w+)\?/.exec(url)?.[1];
    expect(await cluster.query('SELECT name, value FROM tars_settings', [], database)).to.deep.equal([
      { name: 'jwt_secret', value: secret },
    ]);
    expect(again.stdout).to.include('the JWT secret is copied (jwt-secret, mode 600)');
    expect(readFileSync(join(back, 'jwt-secret'), 'utf8').trim()).to.equal(secret);
    expect(statSync(join(back, 'jwt-secret')).mode & 0o077).to.equal(0);
    expect(query(back, 'SELECT * FROM tars_settings')).to.deep.equal([]);
    const into = await runTars(['db', 'copy', '--from', source, '--to', url]);
    expect(into.code).to.equal(1);
    expect(into.stderr).to.match(/already holds rows .*nothing was written\n$/);
    const check = await runTars(['check'], { env: { TARS_DATABASE_URL: url } });
    expect(check.stdout).to.match(/^ok database: postgres:\/\/.*: PostgreSQL \d+\.\d+$/m);
    expect(check.stdout).to.include(`ok schema version: ${MIGRATION_NAMES.at(-1)}: up to date`);
    expect(check.stdout).to.include('ok text order: every text column uses the collation "C"');
    expect(check.stdout).to.match(/^ok clock: within 1 s of the database server's$/m);
  });

  it('when tars migrate names a new PostgreSQL database, then every migration is applied once, and a second run finds nothing to do', async () => {
    const url = await (await sharedPostgres()).createDatabase();
    const first = await runTars(['migrate', '--database-url', url]);
    expect(first.code).to.equal(0);
    expect(first.stdout).to.include(`applied ${MIGRATION_NAMES.join(', ')}\n`);
    expect(first.stdout).to.include(
      `schema version: ${MIGRATION_NAMES.at(-1)} (${MIGRATION_NAMES.length} of ${MIGRATION_NAMES.length} migrations)`,
    );
    const second = await runTars(['migrate'], { env: { TARS_DATABASE_URL: url } });
    expect(second.stdout).to.include('the schema is up to date');
  });
});

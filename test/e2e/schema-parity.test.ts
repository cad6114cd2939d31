import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { sql, type Kysely } from 'kysely';
import { migrations } from '../../db/migrations/index';
import { openDatabase, type Db } from '../../src/db/database';
import { describeSchema, type SchemaDescription } from '../../src/db/describe';
import { openPostgres } from '../../src/db/engine';
import { appliedMigrations, MIGRATION_NAMES, migrateToLatest } from '../../src/db/migrate';
import { upgradeDatabase } from '../../src/db/upgrade';
import { sharedPostgres, type PostgresCluster } from '../helpers/postgres';

/*
 * The migrations make the same schema on both engines (docs/design/postgresql.md §3.4; docs/architecture.md,
 * "Schema on two engines"): a fresh SQLite file and a fresh PostgreSQL database, both migrated, described by
 * describeSchema (src/db/describe.ts), are equal; PostgreSQL's columns are bigint and text COLLATE "C"; migrating
 * runs once, serialised between two instances, and a failure changes nothing. Then the behaviours the DDL is for.
 */

/** A pool of a few connections on the database of `url`, as TARS opens it. */
const openPg = (url: string) => openPostgres(url, { poolSize: 4 });

let databases = 0;

/**
 * A new database whose default collation is not C where the server allows choosing (ICU, PostgreSQL 15 and later),
 * so that what the columns' own COLLATE "C" does is seen, not the database's default.
 */
async function icuDatabase(cluster: PostgresCluster): Promise<string> {
  const name = `parity_${process.pid}_${++databases}`;
  await cluster.query(
    cluster.major >= 15
      ? `CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C'`
      : `CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`,
  );
  return cluster.url(name);
}

describe('the schema on SQLite and on PostgreSQL', function () {
  this.timeout(120_000);
  let cluster: PostgresCluster;
  let dir: string;
  const open: { close(): Promise<void> }[] = [];

  before(async () => {
    cluster = await sharedPostgres();
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tars-parity-'));
  });
  afterEach(async () => {
    for (const handle of open.splice(0)) await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function migratedPg(): Promise<Db> {
    const handle = openPg(await icuDatabase(cluster));
    open.push(handle);
    await migrateToLatest(handle);
    return handle.db;
  }

  async function migratedSqlite(): Promise<SchemaDescription> {
    const handle = openDatabase(join(dir, 'tars.db'));
    open.push(handle);
    await migrateToLatest(handle);
    // What was applied reads the same through the raw connection and through Kysely alone.
    expect(await appliedMigrations({ db: handle.db })).to.deep.equal(await appliedMigrations({ sqlite: handle.sqlite }));
    expect(await appliedMigrations({ db: handle.db })).to.deep.equal([...MIGRATION_NAMES]);
    return describeSchema(handle.db);
  }

  it('when a fresh SQLite file and a fresh PostgreSQL database are migrated, then their described schemas are equal', async () => {
    const onSqlite = await migratedSqlite();
    const onPostgres = await describeSchema(await migratedPg());
    expect(onPostgres).to.deep.equal(onSqlite);
    // The description is not empty or blind: the 44 tables, a case-insensitive key, a partial index, a CHECK, a cascade.
    expect(onSqlite.tables).to.have.length(44);
    const table = (name: string) => onSqlite.tables.find((t) => t.name === name);
    expect(table('users')?.indexes.find((i) => i.name === 'users_email')).to.deep.equal({
      name: 'users_email',
      unique: true,
      columns: ['ci(email)'],
      where: null,
    });
    expect(table('report_runs')?.indexes.find((i) => i.name === 'report_runs_scheduled_period')?.where).to.equal("kind = 'scheduled'");
    expect(table('import_line_counts')?.checks).to.deep.equal(["outcome in 'imported', 'duplicate', 'skipped'"]);
    expect(table('queue_members')?.foreignKeys).to.deep.equal([
      { columns: ['extension_id'], table: 'extensions', references: ['id'], onDelete: 'cascade' },
      { columns: ['queue_id'], table: 'queues', references: ['id'], onDelete: 'cascade' },
    ]);
    expect(table('webhooks')?.columns[0]).to.deep.equal({ name: 'id', type: 'integer', notNull: true, default: null, generated: true });
  });

  it('when PostgreSQL is migrated, then every integer column is bigint, every text column has collation "C" of its own, and reals are double precision', async () => {
    const db = await migratedPg();
    const { rows } = await sql<{ table: string; column: string; type: string; collation: string | null }>`
      SELECT c.relname AS "table", a.attname AS "column", format_type(a.atttypid, a.atttypmod) AS type, co.collname AS collation
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_collation co ON co.oid = a.attcollation
      WHERE n.nspname = current_schema() AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
        AND c.relname NOT IN ('schema_migrations', 'schema_migrations_lock')`.execute(db);
    const kinds = new Map<string, number>();
    for (const r of rows) {
      const kind = `${r.type}${r.collation ? ` COLLATE "${r.collation}"` : ''}`;
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    expect([...kinds.keys()].sort()).to.deep.equal(['bigint', 'double precision', 'text COLLATE "C"']);
    expect(kinds.get('double precision')).to.equal(1); // queue_alerts.min_service_level_percent, SQLite's one REAL
    const described = (await describeSchema(db)).tables.flatMap((t) => t.columns);
    expect(rows).to.have.length(described.length).and.length.greaterThan(390);
  });

  it('when PostgreSQL is migrated twice, then the second run applies nothing and the schema stays as it was', async () => {
    const db = await migratedPg();
    const first = await describeSchema(db);
    expect(await migrateToLatest({ db })).to.deep.equal([]);
    expect(await upgradeDatabase({ db })).to.deep.equal({ applied: [] });
    expect(await appliedMigrations({ db })).to.deep.equal([...MIGRATION_NAMES]);
    expect(await describeSchema(db)).to.deep.equal(first);
  });

  it('when two instances migrate one new PostgreSQL database at once, then one applies every migration and the other finds none pending', async () => {
    const url = await icuDatabase(cluster);
    const [a, b] = [openPg(url), openPg(url)];
    open.push(a, b);
    const results = await Promise.all([migrateToLatest(a), migrateToLatest(b)]);
    expect(results.map((r) => r.length).sort((x, y) => x - y)).to.deep.equal([0, MIGRATION_NAMES.length]);
    expect(await appliedMigrations(a)).to.deep.equal([...MIGRATION_NAMES]);
    const onSqlite = await migratedSqlite();
    expect(await describeSchema(b.db)).to.deep.equal(onSqlite);
  });

  it('when a migration throws on PostgreSQL, then none of that run is kept: not the migrations before it, not its own half', async () => {
    const handle = openPg(await icuDatabase(cluster));
    open.push(handle);
    const firstThree = Object.fromEntries(MIGRATION_NAMES.slice(0, 3).map((n) => [n, migrations[n]!]));
    await migrateToLatest(handle, firstThree);
    const before = await describeSchema(handle.db);
    const broken = {
      ...migrations,
      '2099-01-01T0000_broken': {
        async up(db: Kysely<unknown>) {
          await sql`CREATE TABLE half_done (id INTEGER PRIMARY KEY)`.execute(db);
          await sql`UPDATE tenants SET name = 'changed by a broken migration'`.execute(db);
          throw new Error('this migration breaks on purpose');
        },
      },
    };
    let failure: Error | undefined;
    await upgradeDatabase(handle, broken).catch((err: Error) => (failure = err));
    expect(failure?.message).to.equal('migration 2099-01-01T0000_broken failed: this migration breaks on purpose');
    expect(await appliedMigrations(handle)).to.deep.equal(MIGRATION_NAMES.slice(0, 3));
    expect(await describeSchema(handle.db)).to.deep.equal(before);
    expect(before.tables.map((t) => t.name))
      .to.include('webhook_deliveries')
      .and.not.include('queue_events');
  });

  describe('what the PostgreSQL DDL is for', () => {
    it('when a user has e-mail a@x.test, then another with A@x.test is refused by the unique index, as SQLite’s NOCASE refuses it', async () => {
      const db = await migratedPg();
      await sql`INSERT INTO tenants (name) VALUES ('Acme')`.execute(db);
      const insert = (email: string) =>
        sql`INSERT INTO users (tenant_id, email, password_hash, user_role, created_at)
            SELECT id, ${email}, 'h', 5, 'now' FROM tenants`.execute(db);
      await insert('a@x.test');
      const refused = await insert('A@x.test').then(
        () => undefined,
        (err: { code?: string; constraint?: string }) => err,
      );
      expect(refused).to.include({ code: '23505', constraint: 'users_email' });
      await insert('b@x.test'); // and a different address is taken
      const { rows } = await sql<{ email: string }>`SELECT email FROM users ORDER BY email`.execute(db);
      expect(rows.map((r) => r.email)).to.deep.equal(['a@x.test', 'b@x.test']);
    });

    it('when the newest row is deleted, then the next row gets a new id, never the deleted one', async () => {
      const db = await migratedPg();
      const add = async (name: string) =>
        (await sql<{ id: number }>`INSERT INTO tenants (name) VALUES (${name}) RETURNING id`.execute(db)).rows[0]!.id;
      const first = await add('One');
      const second = await add('Two');
      await sql`DELETE FROM tenants WHERE id = ${second}`.execute(db);
      const third = await add('Three');
      expect([first, second, third]).to.deep.equal([1, 2, 3]);
    });

    it('when rows are ordered by a text column, then they come in code-point order (B, Z, _, a, b, é), whatever the database’s collation', async () => {
      const db = await migratedPg();
      await sql`INSERT INTO agents (peer) VALUES ('b'), ('é'), ('B'), ('a'), ('_'), ('Z'), ('e')`.execute(db);
      const { rows } = await sql<{ peer: string }>`SELECT peer FROM agents ORDER BY peer`.execute(db);
      expect(rows.map((r) => r.peer)).to.deep.equal(['B', 'Z', '_', 'a', 'b', 'e', 'é']);
      if (cluster.major >= 15) {
        // The database's own order is another: the column's collation is what made the one above.
        const { rows: byDefault } = await sql<{ s: string }>`SELECT s FROM unnest(ARRAY['B', 'a', '_']) AS s ORDER BY s`.execute(db);
        expect(byDefault.map((r) => r.s)).to.deep.equal(['_', 'a', 'B']);
      }
    });
  });
});

import type { Kysely } from 'kysely';
import type { Db, Sqlite } from '../../src/db/database';
import type { AnyDatabase } from '../../src/db/engine';
import { migrateToLatest } from '../../src/db/migrate';
import { openPostgres } from '../../src/db/engine';
import { sharedPostgres } from './postgres';

/*
 * Which engine the tests run TARS on (docs/testing.md, "Two engines"): SQLite by default; PostgreSQL when
 * TARS_TEST_ENGINE=postgres (npm run test:postgres). A TARS_ name on purpose: test/helpers/cli.ts strips TARS_*
 * from the environment of the processes it spawns, so the engine reaches them only as the TARS_DATABASE_URL
 * testDatabaseEnv gives them.
 */
export type TestEngine = 'sqlite' | 'postgres';

export function testEngine(): TestEngine {
  const engine = process.env.TARS_TEST_ENGINE ?? 'sqlite';
  if (engine !== 'sqlite' && engine !== 'postgres') throw new Error(`TARS_TEST_ENGINE=${engine}: sqlite or postgres`);
  return engine;
}

/** The database every test database is copied from: migrated once per test process. */
const TEMPLATE = 'tars_template';
let template: Promise<void> | undefined;
let made = 0;

function migratedTemplate(): Promise<void> {
  template ??= (async () => {
    const cluster = await sharedPostgres();
    const url = await cluster.createDatabase(TEMPLATE);
    const database = openPostgres(url, { poolSize: 1 });
    try {
      await migrateToLatest(database);
    } finally {
      await database.close();
    }
  })();
  return template;
}

/** A fresh PostgreSQL database on the shared test cluster, copied from the migrated template; `drop` removes it. */
export interface TestPostgresDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

export async function freshPostgresDatabase(): Promise<TestPostgresDatabase> {
  await migratedTemplate();
  const cluster = await sharedPostgres();
  const name = `tars_t_${process.pid}_${++made}`;
  await cluster.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`);
  return { url: cluster.url(name), drop: () => cluster.dropDatabase(name) };
}

/** Databases of spawned processes, by data directory: a restart on the same directory finds the same database. */
const byDataDir = new Map<string, Promise<TestPostgresDatabase>>();

/**
 * The environment a spawned `tars` needs to work on the test engine's database for `dataDir`: nothing on SQLite
 * (the data directory's file); on PostgreSQL the TARS_DATABASE_URL of a fresh database, the same one each time for
 * the same directory. dropTestDatabases() removes them.
 */
export async function testDatabaseEnv(dataDir: string): Promise<Record<string, string>> {
  if (testEngine() === 'sqlite') return {};
  let database = byDataDir.get(dataDir);
  if (!database) {
    database = freshPostgresDatabase();
    byDataDir.set(dataDir, database);
  }
  return { TARS_DATABASE_URL: (await database).url };
}

/** Drops the database testDatabaseEnv made for `dataDir`, if it made one (the directory is gone: so is its database). */
export async function forgetTestDatabase(dataDir: string): Promise<void> {
  const database = byDataDir.get(dataDir);
  if (!database) return;
  byDataDir.delete(dataDir);
  await (await database).drop();
}

/** Drops the databases testDatabaseEnv made (a test file's after hook). */
export async function dropTestDatabases(): Promise<void> {
  const all = [...byDataDir.values()];
  byDataDir.clear();
  for (const d of all) await (await d).drop();
}

/**
 * The raw better-sqlite3 connection of a test app's database, for tests of what runs on it only (the PBX log
 * importer, the webhook outbox and the live call events until design steps 4 and 6 move them off it). Such a test
 * file is in test/sqlite-only.json; run on PostgreSQL anyway, it fails here with this sentence, never silently.
 */
export function rawSqlite(database: AnyDatabase): Sqlite {
  if (database.engine === 'sqlite') return database.sqlite;
  throw new Error("this test uses SQLite's own connection (test/sqlite-only.json says why): it does not run on PostgreSQL");
}

/** Rows of `table` (those of `where` column = value when given), through Kysely: the same on both engines. */
export async function rowCount(db: Db, table: string, where?: Readonly<Record<string, unknown>>): Promise<number> {
  let q = (db as unknown as Kysely<Record<string, Record<string, unknown>>>)
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'));
  for (const [column, value] of Object.entries(where ?? {})) q = q.where(column, '=', value);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

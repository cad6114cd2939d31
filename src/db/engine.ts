import { parse as parseConnectionString } from 'pg-connection-string';
import pg from 'pg';
import { Kysely, PostgresDialect, sql, type QueryCompiler } from 'kysely';
import type { Db, OpenDatabase } from './database';
import { PortablePostgresQueryCompiler } from './portable';
import type { Database } from './schema';

export { engineOf, type Engine } from '../../db/migrations/engine';

/*
 * TARS on PostgreSQL (issue 32; the plan is docs/design/postgresql.md): the database named by TARS_DATABASE_URL
 * (or --database-url) instead of the data directory's SQLite file. This file opens it; what runs on it is in the
 * design's step plan.
 */

/** A PostgreSQL database TARS works on: Kysely over a pool of connections. */
export interface PostgresDatabase {
  readonly engine: 'postgres';
  readonly db: Db;
  /** The URL without its password, for messages and logs. */
  readonly shownUrl: string;
  close(): Promise<void>;
}

/** Connections a process keeps open (pg's default, and the figure the deployment advice multiplies by the instances). */
export const POOL_SIZE = 10;

/**
 * The problems of a database URL, empty when it can be used: a postgres:// or postgresql:// URL naming a database
 * (a Unix socket as `?host=/run/postgresql`). The URL itself never appears in a message: it may hold a password.
 */
export function databaseUrlProblems(url: string): string[] {
  if (!isPostgresUrl(url))
    return ['must be a postgres:// or postgresql:// URL such as postgres://tars@db.example/tars (SQLite needs no URL: leave it unset)'];
  try {
    const parts = parseConnectionString(url);
    if (!parts.database) return ['must name the database, as in postgres://tars@db.example/tars'];
  } catch {
    return ['is not a URL PostgreSQL understands'];
  }
  return [];
}

/** Whether `text` is written as a PostgreSQL URL (postgres:// or postgresql://), rather than, say, a directory. */
export function isPostgresUrl(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text);
}

/** The URL with its password replaced by `***`: what messages and logs may show. */
export function redactUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@?#]*):[^@/?#]*@/i, '$1:***@');
}

const INT8 = 20;
const NUMERIC = 1700;

/**
 * count(*) is a bigint on PostgreSQL and sum(bigint) a numeric, which pg returns as strings; every such value TARS
 * keeps (ids, counts, epoch milliseconds, seconds of talk) is below 2^53, so they are read as numbers, as SQLite
 * gives them. Per pool, not pg's global table: a process that holds both engines (tars db copy) stays exact.
 */
const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 || oid === NUMERIC) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/**
 * Opens a pool on the database of `url` (nothing connects until the first query). Each connection waits at most
 * 10 s for a lock and is closed by the server if it sits in an open transaction for a minute, so a stuck request
 * cannot hold rows for ever; a connection is awaited at most 10 s (then the request fails, never hangs).
 */
export function openPostgres(url: string, opts: { poolSize?: number } = {}): PostgresDatabase {
  const problems = databaseUrlProblems(url);
  if (problems.length > 0) throw new Error(`the database URL ${problems[0]}`);
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.poolSize ?? POOL_SIZE,
    connectionTimeoutMillis: 10_000,
    idle_in_transaction_session_timeout: 60_000,
    lock_timeout: 10_000,
    application_name: 'tars',
    types: typeParsers,
  });
  // An idle connection the server closed (a restart) is an error event on the pool: without a listener it would end the process.
  pool.on('error', () => undefined);
  // A connection checked out of the pool (a transaction, a job's lock) has no pool listener: when the server goes
  // away under it, pg emits 'error' on the client, which would end the process. Its queries fail and say why.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<Database>({ dialect: new TarsPostgresDialect({ pool }) });
  let closed = false;
  return {
    engine: 'postgres',
    db,
    shownUrl: redactUrl(url),
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy(); // ends the pool
    },
  };
}

/** Kysely's PostgreSQL dialect compiling TARS's portable fragments (src/db/portable.ts) into their PostgreSQL form. */
export class TarsPostgresDialect extends PostgresDialect {
  override createQueryCompiler(): QueryCompiler {
    return new PortablePostgresQueryCompiler();
  }
}

/** The server's version as "15.8", and its major number. */
export async function postgresVersion(db: Db): Promise<{ text: string; major: number }> {
  const { rows } = await sql<{ server_version_num: string }>`SHOW server_version_num`.execute(db);
  const num = Number(rows[0]?.server_version_num);
  return { text: `${Math.floor(num / 10_000)}.${num % 10_000}`, major: Math.floor(num / 10_000) };
}

/** What `tars check` reports of a PostgreSQL server (docs/postgresql.md, "Settings that matter"). */
export interface PostgresFacts {
  readonly version: { readonly text: string; readonly major: number };
  readonly synchronousCommit: string;
  readonly dataChecksums: string;
  readonly maxConnections: number;
  /** The server's clock, epoch ms, read half-way through the round trip. */
  readonly serverNow: number;
  readonly localNow: number;
  /** TARS's text columns that do not compare by code point (collation "C"), as table.column. */
  readonly textColumnsNotC: readonly string[];
}

export async function postgresFacts(db: Db): Promise<PostgresFacts> {
  const version = await postgresVersion(db);
  const started = Date.now();
  const { rows } = await sql<{ sc: string; dc: string; mc: string; now: number }>`
    SELECT current_setting('synchronous_commit') AS sc, current_setting('data_checksums') AS dc,
           current_setting('max_connections') AS mc, (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now`.execute(db);
  const localNow = Math.round((started + Date.now()) / 2);
  const { rows: columns } = await sql<{ name: string }>`
    SELECT table_name || '.' || column_name AS name FROM information_schema.columns
    WHERE table_schema = current_schema() AND data_type = 'text' AND coalesce(collation_name, '') <> 'C'
    ORDER BY table_name, ordinal_position`.execute(db);
  const row = rows[0];
  return {
    version,
    synchronousCommit: row?.sc ?? '',
    dataChecksums: row?.dc ?? '',
    maxConnections: Number(row?.mc),
    serverNow: Number(row?.now),
    localNow,
    textColumnsNotC: columns.map((c) => c.name),
  };
}

/** The database a process works on: the data directory's SQLite file, or PostgreSQL when TARS_DATABASE_URL is set. */
export type AnyDatabase = OpenDatabase | PostgresDatabase;

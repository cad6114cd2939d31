import SqliteDatabase from 'better-sqlite3';
import { Kysely, type CompiledQuery } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import { engineOf } from '../../db/migrations/engine';
import { ImmediateSqliteDialect, StatementCache } from './dialect';
import { nativeBinding } from './native';
import type { Database } from './schema';

// Until pbx-logs and queue-reports move to ./query.ts and ./statements.ts (their own branch), their old entry points stay.

export type Db = Kysely<Database>;
export type Sqlite = SqliteDatabase.Database;

export interface OpenDatabase {
  /** Which engine: this file's handle is SQLite's; PostgreSQL's is src/db/engine.ts's PostgresDatabase. */
  readonly engine: 'sqlite';
  /** Kysely over the connection: what repositories use. */
  readonly db: Db;
  /** The raw better-sqlite3 connection: for pragmas, backups and the bulk import's prepared statements (./statements.ts). */
  readonly sqlite: Sqlite;
  readonly file: string;
  close(): Promise<void>;
}

/** How long a writer waits for another process's write lock (e.g. `tars import` next to the server). */
export const BUSY_TIMEOUT_MS = 10_000;

/**
 * Opens (creating if needed) the one SQLite file: WAL so readers never wait for the writer and a CLI
 * import can run beside the server, foreign keys enforced, a busy timeout instead of immediate
 * SQLITE_BUSY, transactions that take the write lock when they begin (./dialect.ts), and synchronous=FULL
 * so that a committed write survives a power cut, not only a crash.
 */
export function openDatabase(file: string, opts: { readonly?: boolean } = {}): OpenDatabase {
  const sqlite = openSqlite(file, opts);
  if (!opts.readonly) sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('synchronous = FULL');
  const statements = new StatementCache(sqlite);
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect(statements, sqlite, BUSY_TIMEOUT_MS) });
  directReads.set(db, { sqlite, statements }); // reads on `db` may run on this connection's statement cache (readRows)
  let closed = false;
  return {
    engine: 'sqlite',
    db,
    sqlite,
    file,
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy(); // SqliteDialect closes the better-sqlite3 connection too
    },
  };
}

/**
 * Runs `work` in a transaction: a new one, or the one `db` already is (a service called inside another's
 * transaction joins it, so that a change made of several services' steps commits or rolls back whole).
 *
 * Services check, then write (is the e-mail taken? is this the default branch? how many attempts in the last
 * minute?), counting on no other writer in between. SQLite guarantees it: a transaction takes the one write lock
 * when it begins (./dialect.ts). On PostgreSQL the same guarantee is SERIALIZABLE isolation, which aborts one of two
 * transactions that would have interleaved (40001) instead of letting both pass; the aborted one runs again from
 * the start, a few times, after a short random pause (docs/design/postgresql.md §2.13). So `work` must do nothing
 * outside the database before it returns (no mail, no HTTP): it may run more than once.
 */
export async function transaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db);
  if (engineOf(db) === 'sqlite') return db.transaction().execute(work);
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().setIsolationLevel('serializable').execute(work);
    } catch (err) {
      if (attempt >= SERIALIZABLE_ATTEMPTS || !mustRetry(err)) throw err;
      await sleep(Math.random() * 10 * attempt);
    }
  }
}

/** Runs of a PostgreSQL transaction before its serialization failure is the request's error. */
export const SERIALIZABLE_ATTEMPTS = 5;

/** PostgreSQL's serialization_failure and deadlock_detected: the transaction did nothing and may run again. */
const mustRetry = (err: unknown) => ['40001', '40P01'].includes((err as { code?: string }).code ?? '');

/**
 * A bare better-sqlite3 connection with the busy timeout and nothing else: for files that are not the live
 * database (backups, restores in progress), whose journal mode must not be switched to WAL.
 */
export function openSqlite(file: string, opts: { readonly?: boolean } = {}): Sqlite {
  const binding = nativeBinding();
  const sqlite = new SqliteDatabase(file, {
    readonly: opts.readonly ?? false,
    fileMustExist: opts.readonly ?? false,
    ...(binding ? { nativeBinding: binding as unknown as string } : {}),
  });
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return sqlite;
}

/** The connection under each database handle (never a transaction's): see readRows. */
const directReads = new WeakMap<Db, { readonly sqlite: Sqlite; readonly statements: StatementCache }>();

/**
 * The rows of a compiled SELECT. On the database handle itself (not a transaction) while no transaction is
 * open on its connection, the statement runs at once: nothing uncommitted can be seen, and the read sees every
 * committed write, as Kysely's would. Otherwise (in a transaction, or while another request holds one open
 * across an await) it goes through Kysely, which waits for the connection like every other query. Kysely's
 * way costs a dozen promises, its connection lock and its result plugins: a third of the time of the
 * server's hottest read (GET /v2/webhooks/{id}). Repositories reach it through defineQuery (./query.ts).
 */
export async function readRows<R>(db: Db, query: CompiledQuery<R>, parameters: readonly unknown[]): Promise<R[]> {
  const direct = directReads.get(db);
  if (direct && !direct.sqlite.inTransaction) return direct.statements.all(query.sql, parameters) as never as R[];
  return (await db.executeQuery<R>({ ...query, parameters })).rows;
}

/**
 * Settings for a bulk import on its own connection: a bigger page cache (32 MiB), and NORMAL sync (durable against
 * a crash of the process in WAL mode; a power cut may lose the last chunks, which a rerun stores again).
 */
export function tuneForBulkImport(sqlite: Sqlite): void {
  sqlite.pragma('cache_size = -32768');
  sqlite.pragma('synchronous = NORMAL');
}

/** Moves everything in the WAL into the database file and empties it; `busy` when another process holds it. */
export function checkpointWal(sqlite: Sqlite): { busy: number; log: number; checkpointed: number } | undefined {
  const [result] = sqlite.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number; checkpointed: number }[];
  return result;
}

/** The version of the SQLite library a connection runs. */
export function sqliteVersion(sqlite: Sqlite): string {
  return (sqlite.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
}

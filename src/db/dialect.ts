import { setTimeout as sleep } from 'node:timers/promises';
import type SqliteDatabase from 'better-sqlite3';
import { SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDatabase as KyselySqlite } from 'kysely';
import { sqliteCode } from '../errors';

/** How often a transaction that found the write lock taken tries again. */
const RETRY_MS = 1;

/** Prepared statements kept per connection (the server's queries are a few hundred distinct texts at most). */
export const STATEMENT_CACHE_SIZE = 500;

/**
 * The connection as Kysely sees it, with its prepared statements kept by SQL text. Kysely's SQLite driver
 * prepares every query anew; preparing took an eighth of the server's time under load (GET
 * /v2/webhooks/{id}, two queries a request). A statement is executed to its end (all/run) before
 * the next query, so one statement object can serve every query of the same text; the least recently used
 * is dropped past STATEMENT_CACHE_SIZE, so texts with inlined values cannot grow it without bound. SQLite
 * prepares a kept statement again by itself when the schema has changed since (a migration).
 */
export class StatementCache implements KyselySqlite {
  private readonly statements = new Map<string, SqliteDatabase.Statement>();

  constructor(
    private readonly sqlite: SqliteDatabase.Database,
    private readonly size = STATEMENT_CACHE_SIZE,
  ) {}

  prepare(sql: string): SqliteDatabase.Statement {
    let stmt = this.statements.get(sql);
    if (stmt) {
      this.statements.delete(sql); // to the end: the most recently used
    } else {
      stmt = this.sqlite.prepare(sql);
      if (this.statements.size >= this.size) this.statements.delete(this.statements.keys().next().value as string);
    }
    this.statements.set(sql, stmt);
    return stmt;
  }

  /** How many statements are kept (tests). */
  get kept(): number {
    return this.statements.size;
  }

  close(): void {
    this.statements.clear();
    this.sqlite.close();
  }
}

/**
 * Kysely's SQLite dialect, with transactions that take the write lock when they begin, waiting for it
 * without blocking the event loop, and that roll back only what is still open.
 *
 * Kysely begins a DEFERRED transaction. One that reads first (every service does: the tenant, the record)
 * holds a read snapshot, and its first write must turn that into the write lock. When another process (a
 * `tars import` beside the server) is writing or has written since the snapshot, SQLite refuses at once with
 * SQLITE_BUSY, without waiting for the busy timeout, since waiting cannot make a stale snapshot fresh.
 * BEGIN IMMEDIATE takes the write lock first, so a transaction never fails for that reason. Every
 * transaction of the server writes, so none takes the lock in vain.
 *
 * Waiting for the lock in SQLite's busy handler would put the whole server to sleep, and its sleeps grow to
 * 100 ms, so an import that takes the lock again right after each chunk kept writes waiting for seconds.
 * Instead BEGIN IMMEDIATE is tried without a busy wait and again every RETRY_MS between other work, which
 * also finds the short moments between two chunks; after `busyTimeoutMs` its SQLITE_BUSY goes to the caller.
 *
 * After some errors (SQLITE_FULL, an I/O error) SQLite has already rolled the transaction back; Kysely's
 * ROLLBACK would then throw "no transaction is active" in place of the error that says what went wrong.
 */
export class ImmediateSqliteDialect extends SqliteDialect {
  constructor(
    private readonly statements: StatementCache,
    private readonly sqlite: SqliteDatabase.Database,
    private readonly busyTimeoutMs: number,
  ) {
    super({ database: statements });
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.statements, this.sqlite, this.busyTimeoutMs);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  constructor(
    statements: StatementCache,
    private readonly sqlite: SqliteDatabase.Database,
    private readonly busyTimeoutMs: number,
  ) {
    super({ database: statements });
  }

  override async beginTransaction(): Promise<void> {
    const deadline = Date.now() + this.busyTimeoutMs;
    for (;;) {
      const busy = this.tryBegin();
      if (!busy) return;
      if (Date.now() >= deadline) throw busy;
      await sleep(RETRY_MS);
    }
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.sqlite.inTransaction) await super.rollbackTransaction(connection);
  }

  /** BEGIN IMMEDIATE without a busy wait: the SQLITE_BUSY error when another connection holds the write lock. */
  private tryBegin(): Error | undefined {
    // The busy timeout is lifted for this one statement only: everything else on the connection (the
    // importers of the HTTP ingest use it directly) still waits as usual.
    this.sqlite.pragma('busy_timeout = 0');
    try {
      this.sqlite.exec('BEGIN IMMEDIATE');
      return undefined;
    } catch (err) {
      if (sqliteCode(err)?.startsWith('SQLITE_BUSY')) return err as Error;
      throw err;
    } finally {
      this.sqlite.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
    }
  }
}

import { setTimeout as sleep } from 'node:timers/promises';
import type SqliteDatabase from 'better-sqlite3';
import {
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type SqliteDatabase as KyselySqlite,
  type SqliteStatement,
} from 'kysely';
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
 *
 * The rows of a statement that returns rows are built in JavaScript: better-sqlite3 builds each row object
 * in C++, one property at a time, which made reading rows cost more than finding them (6 day rows of 24
 * columns: 50 us; 15 columns of 3 rows: 19 us, 11 us this way). The statement runs in raw mode (arrays)
 * and a function made for its columns turns each array into an object with one literal (rowReader).
 */
export class StatementCache implements KyselySqlite {
  private readonly statements: Lru<SqliteStatement>;

  constructor(
    private readonly sqlite: SqliteDatabase.Database,
    size = STATEMENT_CACHE_SIZE,
  ) {
    this.statements = new Lru(size);
  }

  prepare(sql: string): SqliteStatement {
    return this.statements.get(sql, () => {
      const stmt = this.sqlite.prepare(sql);
      if (!stmt.reader) return stmt;
      // Raw mode belongs to the statement: a stream (rare) gets a statement of its own.
      return { reader: true, all: rowReader(stmt), run: (p) => stmt.run(p), iterate: (p) => this.sqlite.prepare(sql).iterate(p) };
    });
  }

  /** The rows of a SELECT, as objects (the direct reads of ./query.ts). */
  all(sql: string, parameters: readonly unknown[]): unknown[] {
    return this.prepare(sql).all(parameters);
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

/** A map of at most `size` entries that drops the least recently used. */
export class Lru<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly limit: number) {}

  get(key: string, make: () => V): V {
    let value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key); // to the end: the most recently used
    } else {
      value = make();
      if (this.entries.size >= this.limit) this.entries.delete(this.entries.keys().next().value as string);
    }
    this.entries.set(key, value);
    return value;
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}

/**
 * Runs a statement in raw mode and makes each row an object with one literal (see StatementCache). When
 * the schema changed since (another process ran `tars migrate`), SQLite prepares the statement again by
 * itself and a `SELECT *` may bring another count of columns: the names are then read again.
 */
function rowReader(stmt: SqliteDatabase.Statement): (parameters: readonly unknown[]) => unknown[] {
  let names: string[] = [];
  let toObject: ((row: unknown[]) => unknown) | undefined;
  const learn = () => {
    names = stmt.columns().map((c) => c.name);
    // The names are written as JSON strings: whatever a column is called, it is a property name, never code.
    // A column named __proto__ would set the prototype in a literal: that statement keeps better-sqlite3's objects.
    toObject = names.includes('__proto__')
      ? undefined
      : (new Function('r', `return {${names.map((n, i) => `${JSON.stringify(n)}: r[${i}]`).join(', ')}};`) as (row: unknown[]) => unknown);
    stmt.raw(toObject !== undefined);
  };
  learn();
  const read = (parameters: readonly unknown[]): unknown[] => {
    if (!toObject) return stmt.all(parameters);
    const rows = stmt.all(parameters) as unknown[][];
    if (rows.length > 0 && (rows[0] as unknown[]).length !== names.length) {
      learn();
      return read(parameters);
    }
    const out = new Array<unknown>(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = toObject(rows[i] as unknown[]);
    return out;
  };
  return read;
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

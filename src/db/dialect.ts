import type SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver } from 'kysely';

/**
 * Kysely's SQLite dialect, with transactions that begin IMMEDIATE and roll back only what is still open.
 *
 * Kysely begins a DEFERRED transaction. One that reads first (every service does: the tenant, the record)
 * holds a read snapshot, and its first write must turn that into the write lock. When another process (a
 * `tars import` beside the server) is writing or has written since the snapshot, SQLite refuses at once with
 * SQLITE_BUSY, without waiting for the busy timeout, since waiting cannot make a stale snapshot fresh.
 * BEGIN IMMEDIATE takes the write lock first, waiting for it like any single write, so a transaction never
 * fails for that reason. Every transaction of the server writes, so none takes the lock in vain.
 *
 * After some errors (SQLITE_FULL, an I/O error) SQLite has already rolled the transaction back; Kysely's
 * ROLLBACK would then throw "no transaction is active" in place of the error that says what went wrong.
 */
export class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly sqlite: SqliteDatabase.Database) {
    super({ database: sqlite });
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.sqlite);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  constructor(private readonly sqlite: SqliteDatabase.Database) {
    super({ database: sqlite });
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.sqlite.inTransaction) await super.rollbackTransaction(connection);
  }
}

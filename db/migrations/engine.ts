import { PostgresAdapter, type Kysely } from 'kysely';

/** The database engines TARS runs on: the SQLite file (the default) or PostgreSQL (issue 32, docs/design/postgresql.md). */
export type Engine = 'sqlite' | 'postgres';

/**
 * The engine under a Kysely handle (the database or one of its transactions). Here, beside the migrations, because
 * a migration writes the DDL of its engine and must not import application code; src/db re-exports it.
 */
export function engineOf(db: Pick<Kysely<unknown>, 'getExecutor'>): Engine {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

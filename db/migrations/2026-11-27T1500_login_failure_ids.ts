import { sql, type Kysely } from 'kysely';

/**
 * login_failures gets a key, `id` (issue 32, docs/design/postgresql.md §2.1 and §5.3): the throttle gives a place
 * back by deleting its row, which it named by SQLite's rowid, and PostgreSQL has no rowid. The table is made again
 * with `id INTEGER PRIMARY KEY` first (numbered when not given, on both engines: the DDL plugin makes it an identity
 * column on PostgreSQL) and every row kept, in its order: the attempts of the windows still open keep counting.
 * The same statements on both engines (no ALTER TABLE … ADD COLUMN, which would put `id` last on PostgreSQL).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE login_failures RENAME TO login_failures_old`.execute(db);
  await sql`DROP INDEX login_failures_key_at`.execute(db);
  await db.schema
    .createTable('login_failures')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('at', 'integer', (c) => c.notNull())
    .execute();
  await sql`INSERT INTO login_failures (key, at) SELECT key, at FROM login_failures_old ORDER BY at`.execute(db);
  await sql`DROP TABLE login_failures_old`.execute(db);
  await db.schema.createIndex('login_failures_key_at').on('login_failures').columns(['key', 'at']).execute();
}

import type { Kysely } from 'kysely';

/**
 * tars_settings (issue 32, docs/design/postgresql.md §3 and §5.7): settings that every instance of one database must
 * share, one row per name. The first is the JWT secret on PostgreSQL (name `jwt_secret`), so that several instances
 * sign and accept the same tokens; it is written once, by whichever instance starts first (INSERT … ON CONFLICT DO
 * NOTHING, then read). On SQLite the table is made too (one schema on both engines) and the secret stays in the data
 * directory's file, as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tars_settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}

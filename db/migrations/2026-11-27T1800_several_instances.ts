import type { Kysely } from 'kysely';

/**
 * What several instances on one database share (issue 32, docs/design/postgresql.md §5.3 and §5.7).
 *
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
  // login_failures.pending_until (ms): a place held by an attempt still running, until then or until it settles
  // (a failure sets it NULL, a success deletes the row). Every instance sees which places are held by attempts still
  // running anywhere, so a newcomer waits for them instead of being refused; a place of an instance killed
  // mid-attempt becomes a failure when the time passes. NULL for every row there is: settled failures.
  await db.schema.alterTable('login_failures').addColumn('pending_until', 'integer').execute();
}

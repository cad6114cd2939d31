import { sql, type Kysely } from 'kysely';

/** The directory's tables that the API deletes from (issue 18) and whose ids tokens, users and clients hold. */
const TABLES = ['tenants', 'users', 'extensions', 'queues'] as const;

/**
 * Ids are never given again (issue 27): these tables were made with a plain INTEGER PRIMARY KEY, which SQLite
 * numbers max(id) + 1, so deleting the newest user and creating another gave the new one the old id, and the deleted
 * user's access token (which names its user by id) worked for the new one; a user's extId, a client's queue id
 * named the next extension or queue likewise. AUTOINCREMENT, as the other deletable tables have, never reuses one.
 * SQLite cannot add it to a table: each is rebuilt with its own columns and constraints (its stored CREATE TABLE,
 * the id column made AUTOINCREMENT), its rows copied, and its indexes made again (foreign keys are off meanwhile
 * and checked before the commit: src/db/migrate.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    const { rows } = await sql<{ type: string; sql: string }>`
      SELECT type, sql FROM sqlite_master WHERE tbl_name = ${table} AND sql IS NOT NULL ORDER BY type = 'table' DESC`.execute(db);
    const create = rows[0]?.type === 'table' ? rows[0].sql : undefined;
    const idColumn = /^CREATE TABLE "?\w+"? \("id" integer primary key,/i;
    if (!create || !idColumn.test(create)) throw new Error(`table ${table} is not as its migrations made it`);
    const rebuilt = create.replace(idColumn, `CREATE TABLE "${table}_rebuilt" ("id" integer primary key autoincrement,`);
    await sql.raw(rebuilt).execute(db);
    await sql.raw(`INSERT INTO "${table}_rebuilt" SELECT * FROM "${table}"`).execute(db);
    await sql.raw(`DROP TABLE "${table}"`).execute(db);
    await sql.raw(`ALTER TABLE "${table}_rebuilt" RENAME TO "${table}"`).execute(db);
    for (const index of rows.slice(1)) await sql.raw(index.sql).execute(db);
  }
}

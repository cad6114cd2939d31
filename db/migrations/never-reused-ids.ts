import { sql, type Kysely } from 'kysely';

/**
 * Makes each table's INTEGER PRIMARY KEY `id` AUTOINCREMENT, so that SQLite never gives a deleted row's id again
 * (a plain INTEGER PRIMARY KEY is numbered max(id) + 1). SQLite cannot add it to a table: each is rebuilt with its
 * own columns and constraints (its stored CREATE TABLE, the id column made AUTOINCREMENT), its rows copied, and its
 * indexes made again. Foreign keys are off meanwhile and checked before the commit (src/db/migrate.ts); the other
 * tables' references name the table, which has its name again once the rebuilt copy is renamed.
 */
export async function neverReuseIds(db: Kysely<unknown>, tables: readonly string[]): Promise<void> {
  for (const table of tables) {
    const { rows } = await sql<{ type: string; sql: string }>`
      SELECT type, sql FROM sqlite_master WHERE tbl_name = ${table} AND sql IS NOT NULL ORDER BY type = 'table' DESC`.execute(db);
    const create = rows[0]?.type === 'table' ? rows[0].sql : undefined;
    // Kysely's `CREATE TABLE "t" ("id" integer primary key,` or a hand-written `CREATE TABLE t (\n  id INTEGER PRIMARY KEY,`.
    const idColumn = /^CREATE TABLE ("?)\w+\1 \(\s*("?)id\2 integer primary key,/i;
    if (!create || !idColumn.test(create)) throw new Error(`table ${table} is not as its migrations made it`);
    const rebuilt = create.replace(idColumn, `CREATE TABLE "${table}_rebuilt" ("id" integer primary key autoincrement,`);
    await sql.raw(rebuilt).execute(db);
    await sql.raw(`INSERT INTO "${table}_rebuilt" SELECT * FROM "${table}"`).execute(db);
    await sql.raw(`DROP TABLE "${table}"`).execute(db);
    await sql.raw(`ALTER TABLE "${table}_rebuilt" RENAME TO "${table}"`).execute(db);
    for (const index of rows.slice(1)) await sql.raw(index.sql).execute(db);
  }
}

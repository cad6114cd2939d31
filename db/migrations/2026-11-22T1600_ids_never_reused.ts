import { sql, type Kysely } from 'kysely';

/**
 * The tables whose records the API deletes get AUTOINCREMENT ids. Without it SQLite gives a new row
 * max(id) + 1, so deleting the newest record and creating another reused its id: an id a client still
 * held (a webhook, a campaign, a notification group it meant to keep) then named a different record.
 *
 * SQLite cannot add AUTOINCREMENT to a table, so each is rebuilt from its own CREATE statement. Foreign
 * keys cannot be switched off inside the migration's transaction, and with them on a renamed table takes
 * the REFERENCES of other tables along; so the tables that reference these are rebuilt with them, all
 * renamed away first and re-created under their own names, and the old copies, children first, dropped
 * without cascading anywhere.
 */
const AUTOINCREMENT = ['call_campaigns', 'emergency_locations', 'notification_groups', 'webhooks'];

interface SchemaRow {
  type: 'table' | 'index';
  name: string;
  tbl_name: string;
  sql: string;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const schema = (await sql<SchemaRow>`SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'`.execute(db)).rows;
  const tables = schema.filter((r) => r.type === 'table');
  const children = await sql<{ name: string }>`
    SELECT DISTINCT m.name FROM sqlite_master m, pragma_foreign_key_list(m.name) f
    WHERE m.type = 'table' AND f."table" IN (${sql.join(AUTOINCREMENT)})`.execute(db);
  // Parents before children: the AUTOINCREMENT tables in order, then every other table that references one.
  const rebuilt = [...AUTOINCREMENT, ...children.rows.map((r) => r.name).filter((n) => !AUTOINCREMENT.includes(n))];
  const createOf = (name: string) => {
    const create = tables.find((t) => t.name === name)?.sql ?? '';
    if (!AUTOINCREMENT.includes(name)) return create;
    const changed = create.replace('"id" integer primary key,', '"id" integer primary key autoincrement,');
    if (changed === create) throw new Error(`${name}: its id column is not the expected "id" integer primary key`);
    return changed;
  };
  const old = (name: string) => sql.table(`${name}_before_autoincrement`);

  for (const name of rebuilt) await sql`ALTER TABLE ${sql.table(name)} RENAME TO ${old(name)}`.execute(db);
  for (const name of rebuilt) {
    await sql.raw(createOf(name)).execute(db);
    await sql`INSERT INTO ${sql.table(name)} SELECT * FROM ${old(name)}`.execute(db);
  }
  for (const name of [...rebuilt].reverse()) await sql`DROP TABLE ${old(name)}`.execute(db); // indexes go with them
  for (const index of schema.filter((r) => r.type === 'index' && rebuilt.includes(r.tbl_name))) await sql.raw(index.sql).execute(db);

  const broken = await sql`PRAGMA foreign_key_check`.execute(db);
  if (broken.rows.length > 0) throw new Error(`foreign keys broken after the rebuild: ${JSON.stringify(broken.rows)}`);
}

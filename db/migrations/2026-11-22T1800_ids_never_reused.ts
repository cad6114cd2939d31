import { sql, type Kysely } from 'kysely';

/**
 * The tables whose records the API deletes get AUTOINCREMENT ids. Without it SQLite gives a new row
 * max(id) + 1, so deleting the newest record and creating another reused its id: an id a client still
 * held (a webhook, a campaign, a notification group it meant to keep) then named a different record.
 *
 * SQLite cannot add AUTOINCREMENT to a table, so each is rebuilt from its own CREATE statement. Foreign
 * keys cannot be switched off inside the migration's transaction, and with them on a renamed table takes
 * the REFERENCES of other tables along; so every table that references a rebuilt one (transitively) is
 * rebuilt too: all are renamed away, re-created under their own names and refilled, and the old copies,
 * which only reference each other, dropped. Foreign keys are checked at the end.
 */
const AUTOINCREMENT = ['call_campaigns', 'emergency_locations', 'notification_groups', 'webhooks'];

interface SchemaRow {
  type: 'table' | 'index';
  tbl_name: string;
  sql: string;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const schema = (await sql<SchemaRow>`SELECT type, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'`.execute(db)).rows;
  const rebuilt = await withReferencingTables(db, AUTOINCREMENT);
  const old = (name: string) => sql.table(`${name}_before_autoincrement`);

  await sql`PRAGMA defer_foreign_keys = ON`.execute(db); // rows are copied table by table; checked at commit
  for (const name of rebuilt) await sql`ALTER TABLE ${sql.table(name)} RENAME TO ${old(name)}`.execute(db);
  for (const name of rebuilt) {
    await sql.raw(createStatement(schema, name)).execute(db);
    await sql`INSERT INTO ${sql.table(name)} SELECT * FROM ${old(name)}`.execute(db);
  }
  for (const name of [...rebuilt].reverse()) await sql`DROP TABLE ${old(name)}`.execute(db); // indexes go with them
  for (const index of schema.filter((r) => r.type === 'index' && rebuilt.includes(r.tbl_name))) await sql.raw(index.sql).execute(db);

  const broken = await sql`PRAGMA foreign_key_check`.execute(db);
  if (broken.rows.length > 0) throw new Error(`foreign keys broken after the rebuild: ${JSON.stringify(broken.rows)}`);
}

/** The tables, then every table that references one of them, directly or through others. */
async function withReferencingTables(db: Kysely<unknown>, tables: readonly string[]): Promise<string[]> {
  const all = [...tables];
  for (let i = 0; i < all.length; i++) {
    const children = await sql<{ name: string }>`
      SELECT DISTINCT m.name FROM sqlite_master m, pragma_foreign_key_list(m.name) f WHERE m.type = 'table' AND f."table" = ${all[i]}`.execute(db);
    for (const { name } of children.rows) if (!all.includes(name)) all.push(name);
  }
  return all;
}

function createStatement(schema: readonly SchemaRow[], name: string): string {
  const create = schema.find((r) => r.type === 'table' && r.tbl_name === name)?.sql ?? '';
  if (!AUTOINCREMENT.includes(name)) return create;
  const changed = create.replace('"id" integer primary key,', '"id" integer primary key autoincrement,');
  if (changed === create) throw new Error(`${name}: its id column is not the expected "id" integer primary key`);
  return changed;
}

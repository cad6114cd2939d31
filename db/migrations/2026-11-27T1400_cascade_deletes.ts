import { sql, type Kysely } from 'kysely';
import { engineOf } from './engine';

/**
 * Deleting a tenant, or a queue, is the database's work (issue 32; docs/design/postgresql.md §3.5): until now the
 * service deleted a hand-kept list of tables in an order no foreign key objected to, and a table added later had to
 * be added to the list (or its rows stayed behind).
 *
 * - Every tenant-owned table's `tenant_id` references its tenant ON DELETE CASCADE, and a saved filter's report runs
 *   go with it; the children of those tables already cascaded (users' MFA rows, a webhook's deliveries, …).
 * - Kept NO ACTION on purpose, so that the database refuses rather than silently deleting or unlinking: a
 *   record's `branch_id` (a branch in use is refused with 409 by the branch delete; within a tenant delete the
 *   branch and its users go in the same statement, and NO ACTION is checked at its end), `phone_numbers.sms_ext_id`
 *   (an extension receiving a number's SMS is refused likewise) and `saved_filters.user_id` (the tenant delete
 *   refuses while a user of the tenant owns another tenant's filter: that check stays the service's).
 * - The bulk tables (stored log lines and what is derived from them, imported CDRs, PBX starts) get triggers, not
 *   foreign keys: a foreign key costs a parent lookup per imported row (and on PostgreSQL a row lock of the parent),
 *   and the import is a speed target. After a queue is deleted its rows of those tables go and its CDR rows stay,
 *   no longer tied to it; after a tenant is deleted its CDR rows and PBX starts go.
 *
 * SQLite cannot change a table's foreign keys: each table is rebuilt from its stored CREATE TABLE, with the
 * REFERENCES clause rewritten (https://sqlite.org/lang_altertable.html; foreign keys are off meanwhile and checked
 * before the commit, src/db/migrate.ts). PostgreSQL drops and adds the constraint under the same name.
 */

/** The foreign keys made ON DELETE CASCADE, per table: [column, parent table]. */
const CASCADES: ReadonlyArray<readonly [table: string, column: string, parent: string]> = [
  ['branches', 'tenant_id', 'tenants'],
  ['extensions', 'tenant_id', 'tenants'],
  ['users', 'tenant_id', 'tenants'],
  ['queues', 'tenant_id', 'tenants'],
  ['phone_numbers', 'tenant_id', 'tenants'],
  ['emergency_locations', 'tenant_id', 'tenants'],
  ['call_campaigns', 'tenant_id', 'tenants'],
  ['webhooks', 'tenant_id', 'tenants'],
  ['saved_filters', 'tenant_id', 'tenants'],
  ['report_runs', 'tenant_id', 'tenants'],
  ['report_runs', 'filter_id', 'saved_filters'],
  ['webhook_deliveries', 'tenant_id', 'tenants'],
];

/** A queue's rows in the tables without a foreign key to it: its stored log lines, their derived rows, sent events. */
const QUEUE_ROWS = [
  'queue_events',
  'queue_hour_stats',
  'agent_talk_hour',
  'queue_outbound_hour',
  'queue_day_stats',
  'agent_sessions',
  'agent_pauses',
  'queue_report_state',
  'call_events_sent',
] as const;

/** A tenant's rows in the tables without a foreign key to it. */
const TENANT_ROWS = ['cdr_calls', 'pbx_starts'] as const;

const queueStatements = [
  ...QUEUE_ROWS.map((t) => `DELETE FROM ${t} WHERE queue_id = OLD.id;`),
  'UPDATE cdr_calls SET queue_id = NULL WHERE queue_id = OLD.id;',
];
const tenantStatements = TENANT_ROWS.map((t) => `DELETE FROM ${t} WHERE tenant_id = OLD.id;`);

export async function up(db: Kysely<unknown>): Promise<void> {
  if (engineOf(db) === 'postgres') return upPostgres(db);
  const tables = [...new Set(CASCADES.map(([table]) => table))];
  for (const table of tables) {
    await rebuild(
      db,
      table,
      CASCADES.filter(([t]) => t === table),
    );
  }
  await sql.raw(`CREATE TRIGGER queues_delete_rows AFTER DELETE ON queues FOR EACH ROW BEGIN ${queueStatements.join(' ')} END`).execute(db);
  await sql
    .raw(`CREATE TRIGGER tenants_delete_rows AFTER DELETE ON tenants FOR EACH ROW BEGIN ${tenantStatements.join(' ')} END`)
    .execute(db);
}

/**
 * Rebuilds a table with the foreign keys given made ON DELETE CASCADE: its stored CREATE TABLE (as Kysely's schema
 * builder wrote it: `"tenant_id" integer not null references "tenants" ("id"),`) rewritten under another name, its
 * rows copied, the old table dropped, the copy renamed, its indexes made again and its AUTOINCREMENT counter kept
 * (a deleted newest id is never given again). Throws when the table is not as its migrations made it.
 */
async function rebuild(db: Kysely<unknown>, table: string, keys: ReadonlyArray<readonly [string, string, string]>): Promise<void> {
  const { rows } = await sql<{ type: string; sql: string }>`
    SELECT type, sql FROM sqlite_master WHERE tbl_name = ${table} AND sql IS NOT NULL ORDER BY type = 'table' DESC`.execute(db);
  const notAsMade = (why: string) => new Error(`table ${table} is not as its migrations made it (${why})`);
  let create = rows[0]?.type === 'table' ? rows[0].sql : undefined;
  const head = new RegExp(`^CREATE TABLE "${table}" \\(`);
  if (!create || !head.test(create)) throw notAsMade('its CREATE TABLE');
  if (rows.some((r) => r.type !== 'index' && r !== rows[0])) throw notAsMade('a trigger or view on it');
  for (const [, column, parent] of keys) {
    const reference = `"${column}" integer not null references "${parent}" ("id"),`;
    if (create.split(reference).length !== 2) throw notAsMade(`the reference of ${column} to ${parent}`);
    create = create.replace(reference, `"${column}" integer not null references "${parent}" ("id") on delete cascade,`);
  }
  const sequence = await sql<{ seq: number }>`SELECT seq FROM sqlite_sequence WHERE name = ${table}`.execute(db);
  await sql.raw(create.replace(head, `CREATE TABLE "${table}_rebuilt" (`)).execute(db);
  await sql.raw(`INSERT INTO "${table}_rebuilt" SELECT * FROM "${table}"`).execute(db);
  await sql.raw(`DROP TABLE "${table}"`).execute(db);
  await sql.raw(`ALTER TABLE "${table}_rebuilt" RENAME TO "${table}"`).execute(db);
  const seq = sequence.rows[0]?.seq;
  await sql`DELETE FROM sqlite_sequence WHERE name = ${table}`.execute(db);
  if (seq !== undefined) await sql`INSERT INTO sqlite_sequence (name, seq) VALUES (${table}, ${seq})`.execute(db);
  for (const index of rows.slice(1)) await sql.raw(index.sql).execute(db);
}

/**
 * PostgreSQL: each foreign key dropped and added again ON DELETE CASCADE under its own name (found in pg_constraint:
 * the one single-column foreign key of that column to that parent); the triggers as one plpgsql function each.
 */
async function upPostgres(db: Kysely<unknown>): Promise<void> {
  for (const [table, column, parent] of CASCADES) {
    const { rows } = await sql<{ conname: string }>`
      SELECT c.conname FROM pg_constraint c
      JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
      WHERE c.contype = 'f' AND c.conrelid = to_regclass(${table}) AND c.confrelid = to_regclass(${parent})
        AND cardinality(c.conkey) = 1 AND a.attname = ${column}`.execute(db);
    if (rows.length !== 1) throw new Error(`table ${table} has ${rows.length} foreign keys of ${column} to ${parent}, not one`);
    const name = sql.id(rows[0]!.conname);
    await sql`ALTER TABLE ${sql.table(table)} DROP CONSTRAINT ${name},
      ADD CONSTRAINT ${name} FOREIGN KEY (${sql.ref(column)}) REFERENCES ${sql.table(parent)} (id) ON DELETE CASCADE`.execute(db);
  }
  for (const [table, statements] of [
    ['queues', queueStatements],
    ['tenants', tenantStatements],
  ] as const) {
    await sql
      .raw(
        `CREATE FUNCTION ${table}_delete_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${statements.join(' ')} RETURN NULL; END $$`,
      )
      .execute(db);
    await sql
      .raw(`CREATE TRIGGER ${table}_delete_rows AFTER DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${table}_delete_rows()`)
      .execute(db);
  }
}

import { sql, type Kysely } from 'kysely';

/**
 * What the instance holding a PBX's AMI link shares with the others (issue 32, docs/design/postgresql.md §5.4):
 * - `live_state`: per PBX, the link's state and the queues as the holder knows them, with a version that grows
 *   with each write; the others read it when a signal (LISTEN/NOTIFY) says it changed;
 * - `ami_actions`: an agent action (pause, log in, DND) asked of an instance that does not hold the link, for the
 *   holder to carry out and answer. An action past `expires_at` is never carried out.
 * On SQLite (one process, which holds every link) both stay empty.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('live_state')
    .addColumn('pbx', 'text', (c) => c.primaryKey())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('link', 'text', (c) => c.notNull())
    .addColumn('last_event_at', 'integer')
    .addColumn('snapshot_at', 'integer')
    .addColumn('queues', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('ami_actions')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('pbx', 'text', (c) => c.notNull())
    .addColumn('fields', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status IN ('pending', 'running', 'done')`))
    .addColumn('error', 'text')
    .addColumn('requested_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .addColumn('done_at', 'integer')
    .execute();
  await db.schema.createIndex('ami_actions_pbx_status').on('ami_actions').columns(['pbx', 'status']).execute();
}

import { sql, type Kysely } from 'kysely';

/**
 * The site's directory (issue 18): a queue's hosted-API fields (number, ring strategy, recording, branch),
 * an extension's branch, and a queue's static members; queue_log names are unique without case, as Asterisk
 * looks queues up (reporting.md R2).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE queues ADD COLUMN number TEXT NOT NULL DEFAULT ''`.execute(db);
  await sql`ALTER TABLE queues ADD COLUMN ring_strategy TEXT NOT NULL DEFAULT 'ringall'`.execute(db);
  await sql`ALTER TABLE queues ADD COLUMN recording TEXT NOT NULL DEFAULT ''`.execute(db);
  await sql`ALTER TABLE queues ADD COLUMN branch_id INTEGER REFERENCES branches(id)`.execute(db);
  await sql`ALTER TABLE extensions ADD COLUMN branch_id INTEGER REFERENCES branches(id)`.execute(db);
  await sql`CREATE UNIQUE INDEX queues_log_name_nocase ON queues (log_name COLLATE NOCASE)`.execute(db);
  await sql`CREATE TABLE queue_members (
    queue_id INTEGER NOT NULL REFERENCES queues(id) ON DELETE CASCADE,
    extension_id INTEGER NOT NULL REFERENCES extensions(id) ON DELETE CASCADE,
    penalty INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (queue_id, extension_id)
  ) WITHOUT ROWID`.execute(db);
  await sql`CREATE INDEX queue_members_extension ON queue_members (extension_id)`.execute(db);
}

import { sql, type Kysely } from 'kysely';

/**
 * One agent, many names (reporting.md R14, R15):
 * - extensions.agent_aliases: the other strings a PBX writes for an extension's agent in its logs (a member
 *   name such as `Bob Smith`, an interface such as `Local/1001@from-queue/n`), as a JSON array;
 * - queue_events.agent and cdr_calls.src_agent/dst_agent now hold the agent a line resolved to (the
 *   extension's peerName), and raw_agent/src_raw/dst_raw the name the line carried when it differs (NULL:
 *   the same), so that a change of aliases can resolve every stored line again;
 * - pbx_starts: the times the PBX's queues (re)started (QUEUESTART, CONFIGRELOAD, written with queue NONE),
 *   per tenant of the import, from which a static member's membership counts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE extensions ADD COLUMN agent_aliases TEXT NOT NULL DEFAULT '[]'`.execute(db);
  await sql`ALTER TABLE queue_events ADD COLUMN raw_agent INTEGER`.execute(db);
  await sql`ALTER TABLE cdr_calls ADD COLUMN src_raw INTEGER`.execute(db);
  await sql`ALTER TABLE cdr_calls ADD COLUMN dst_raw INTEGER`.execute(db);
  await sql`CREATE TABLE pbx_starts (tenant_id INTEGER NOT NULL, time INTEGER NOT NULL, PRIMARY KEY (tenant_id, time)) WITHOUT ROWID`.execute(
    db,
  );
}

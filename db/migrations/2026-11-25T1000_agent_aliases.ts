import { sql, type Kysely } from 'kysely';

/**
 * One agent, many names (reporting.md R14): the other strings a PBX writes for an extension's agent in its
 * logs (a member name such as `Bob Smith`, an interface such as `Local/1001@from-queue/n`), as a JSON array.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE extensions ADD COLUMN agent_aliases TEXT NOT NULL DEFAULT '[]'`.execute(db);
}

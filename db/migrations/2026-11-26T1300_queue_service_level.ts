import { sql, type Kysely } from 'kysely';

/**
 * reporting.md R19: each queue's service level threshold in seconds (Asterisk's `servicelevel` in
 * queues.conf), 30 by default, the hosted API's answeredUnder30. The service-level report judges a queue's
 * calls by it first; `tars pbx sync` sets it from the PBX's configuration.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE queues ADD COLUMN service_level_seconds INTEGER NOT NULL DEFAULT 30`.execute(db);
}

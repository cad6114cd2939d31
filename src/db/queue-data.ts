import { sql } from 'kysely';
import type { Db } from './database';

/*
 * A queue's stored log lines and what is derived from them, deleted with the queue (queues.repository.ts) or with
 * its tenant (tenants.repository.ts's cascade). In the db layer because both modules delete it and tenants is
 * below queues (docs/architecture.md, "How modules use each other"): one list, so a table added is deleted by both.
 */

/** The tables of a queue's stored log lines and of what is derived from them (db/migrations/2026-11-23T1200_pbx_logs.ts). */
export const QUEUE_DATA = [
  'queue_events',
  'queue_hour_stats',
  'agent_talk_hour',
  'queue_outbound_hour',
  'queue_day_stats',
  'agent_sessions',
  'agent_pauses',
  'queue_report_state',
] as const;

/** Deletes a queue's stored lines and derived report data; its CDR rows stay, no longer tied to it. */
export async function deleteQueueData(db: Db, queueId: number): Promise<void> {
  for (const table of QUEUE_DATA) await sql`DELETE FROM ${sql.table(table)} WHERE queue_id = ${queueId}`.execute(db);
  await sql`UPDATE cdr_calls SET queue_id = NULL WHERE queue_id = ${queueId}`.execute(db);
}

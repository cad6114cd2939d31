import { sql, type Kysely } from 'kysely';

/**
 * queue_events columns named by what they hold. `a` and `b` meant a different thing per event (hold or wait
 * time, call time, CONNECT's ring seconds, RINGNOANSWER's ring milliseconds, ADDMEMBER's PAUSED flag); now:
 * - wait_time: hold time of an answered line, wait time of an exit (reporting.md R4), else 0;
 * - talk_time: call time of an answered line, else 0;
 * - ring_ms: ring time in milliseconds, CONNECT's seconds × 1000 and RINGNOANSWER's milliseconds, else 0;
 * - pause_reason (was reason): the reason of the pause the line opens, PAUSE's and "" for ADDMEMBER PAUSED.
 * Event codes as stored then: CONNECT 2, answered 3..6, exits 7..10, RINGNOANSWER 11, ADDMEMBER 20, PAUSE 24.
 * The derived tables are sums of the same values and stay as they are.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE queue_events RENAME COLUMN a TO wait_time`.execute(db);
  await sql`ALTER TABLE queue_events RENAME COLUMN b TO talk_time`.execute(db);
  await sql`ALTER TABLE queue_events RENAME COLUMN reason TO pause_reason`.execute(db);
  await sql`ALTER TABLE queue_events ADD COLUMN ring_ms INTEGER NOT NULL DEFAULT 0`.execute(db);
  await sql`UPDATE queue_events SET ring_ms = wait_time * 1000, wait_time = 0 WHERE event = 2`.execute(db);
  await sql`UPDATE queue_events SET ring_ms = wait_time, wait_time = 0 WHERE event = 11`.execute(db);
  await sql`UPDATE queue_events SET pause_reason = CASE WHEN wait_time = 1 THEN '' END, wait_time = 0 WHERE event = 20`.execute(db);
  // b was 0 for every line but the answered ones; a was 0 for the membership events other than ADDMEMBER.
}

import { sql, type Kysely } from 'kysely';

/**
 * What the lost-calls report needs (reporting.md R22) and the stored rows did not keep:
 * - queue_events.caller: an ENTERQUEUE's caller number as the line wrote it ("" when it wrote none; NULL for
 *   other events and for lines stored before this migration);
 * - queue_events.caller_key: the number's match key (its digits, the last 10 of 10 or more; NULL under 3 digits),
 *   indexed with the call's time so that a lost caller's later calls are found by their number;
 * - queue_events.position, orig_position: the caller's position when it left and when it entered, of an exit
 *   line (ABANDON, EXITWITHTIMEOUT, EXITWITHKEY, EXITEMPTY), NULL when the line does not give them;
 * - cdr_calls.last_app: the record's lastapp (before this migration only its being Queue, or Dial of an R9
 *   outbound call, was kept: those are filled in, the rest stay NULL); cdr_calls.destination_key: the match key
 *   of its dst, indexed for answered Dial calls, the calls that can call a lost caller back.
 * Importing a file again fills caller, caller_key and the positions of its lines stored before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of [
    'ALTER TABLE queue_events ADD COLUMN caller TEXT',
    'ALTER TABLE queue_events ADD COLUMN caller_key TEXT',
    'ALTER TABLE queue_events ADD COLUMN position INTEGER',
    'ALTER TABLE queue_events ADD COLUMN orig_position INTEGER',
    'CREATE INDEX queue_events_caller ON queue_events (caller_key, anchor) WHERE caller_key IS NOT NULL',
    'ALTER TABLE cdr_calls ADD COLUMN last_app TEXT',
    'ALTER TABLE cdr_calls ADD COLUMN destination_key TEXT',
    `UPDATE cdr_calls SET last_app = CASE WHEN via_queue = 1 THEN 'Queue' WHEN outbound_r9 = 1 THEN 'Dial' END,
      destination_key = CASE WHEN length(destination_digits) >= 10 THEN substr(destination_digits, -10)
        WHEN length(destination_digits) >= 3 THEN destination_digits END`,
    `CREATE INDEX cdr_calls_callback ON cdr_calls (tenant_id, destination_key, start_at)
      WHERE destination_key IS NOT NULL AND last_app = 'Dial' AND disposition = 'ANSWERED'`,
  ])
    await sql.raw(statement).execute(db);
}

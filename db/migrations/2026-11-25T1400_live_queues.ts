import { sql, type Kysely } from 'kysely';

/**
 * Live queues (issue 20): each queue's alert thresholds (a queue without a row has no alerts; its row goes
 * with it; whether an alert is raised now is not stored: the watcher works it out again after a restart), and
 * the call events already sent, so that a call announced by AMI is not announced again when its queue_log
 * line arrives, nor the other way round (kept two days).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE queue_alerts (
    queue_id INTEGER PRIMARY KEY REFERENCES queues(id) ON DELETE CASCADE,
    tenant_id INTEGER NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    max_callers_waiting INTEGER,
    max_longest_wait_seconds INTEGER,
    min_service_level_percent REAL,
    no_agent_available INTEGER NOT NULL DEFAULT 0,
    email TEXT NOT NULL DEFAULT '',
    cooldown_seconds INTEGER NOT NULL DEFAULT 300
  )`.execute(db);
  await sql`CREATE INDEX queue_alerts_tenant ON queue_alerts (tenant_id)`.execute(db);
  await sql`CREATE TABLE call_events_sent (
    event_type TEXT NOT NULL,
    call_id TEXT NOT NULL,
    queue_id INTEGER NOT NULL,
    sent_at INTEGER NOT NULL,
    PRIMARY KEY (event_type, call_id, queue_id)
  ) WITHOUT ROWID`.execute(db);
  await sql`CREATE INDEX call_events_sent_at ON call_events_sent (sent_at)`.execute(db);
}

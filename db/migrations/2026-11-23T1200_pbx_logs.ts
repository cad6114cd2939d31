import { sql, type Kysely } from 'kysely';

/**
 * The imported PBX logs (reporting.md) and what is derived from them to make the reports fast.
 *
 * Stored as read: `queue_events` (one row per valid queue_log line of a known queue) and `cdr_calls` (one
 * row per Master.csv record with a tenant). Derived, rebuilt from those whenever late lines arrive:
 * per-hour sums (`queue_hour_stats`, `agent_talk_hour`, `queue_outbound_hour`), per-local-day sums of
 * both per-hour tables (`queue_day_stats`, days of the queue's tenant's timezone), and the membership and
 * pause intervals (`agent_sessions`, `agent_pauses`). Written as SQL because these tables need WITHOUT
 * ROWID and partial indexes. The bulk tables carry no foreign keys on purpose: a per-row parent lookup
 * would halve the import rate, and the importer only writes ids it has just read from `queues`.
 */
const STATEMENTS = [
  // Agent peer names (PJSIP/101) as small integers, so the big tables and their indexes stay narrow.
  `CREATE TABLE agents (id INTEGER PRIMARY KEY, peer TEXT NOT NULL UNIQUE)`,

  // Clustered by (queue, anchor): the per-hour sums and the report edges read ranges of it in order.
  // anchor = the time the line counts at (reporting.md R3); seq = import order, which breaks ties of one second.
  `CREATE TABLE queue_events (
    queue_id INTEGER NOT NULL,
    anchor INTEGER NOT NULL,
    time INTEGER NOT NULL,
    line_key INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    event INTEGER NOT NULL,
    callid TEXT,
    agent INTEGER NOT NULL,
    a INTEGER NOT NULL,
    b INTEGER NOT NULL,
    reason TEXT,
    PRIMARY KEY (queue_id, anchor, time, line_key)
  ) WITHOUT ROWID`,
  // The idempotency key: a line's time and the hash of its text and of its rank among identical lines.
  `CREATE UNIQUE INDEX queue_events_line ON queue_events (time, line_key)`,

  `CREATE TABLE queue_hour_stats (
    queue_id INTEGER NOT NULL, hour INTEGER NOT NULL,
    inbound INTEGER NOT NULL, answered INTEGER NOT NULL, talk INTEGER NOT NULL, under30 INTEGER NOT NULL,
    wait_sum INTEGER NOT NULL, wait_n INTEGER NOT NULL, wait_min INTEGER, wait_max INTEGER,
    ring INTEGER NOT NULL, abandons INTEGER NOT NULL, abandons_u10 INTEGER NOT NULL,
    exit_timeout INTEGER NOT NULL, exit_key INTEGER NOT NULL, rna INTEGER NOT NULL, rna_ms INTEGER NOT NULL,
    cb_req INTEGER NOT NULL, cb_ok INTEGER NOT NULL, cb_fail INTEGER NOT NULL,
    PRIMARY KEY (queue_id, hour)
  ) WITHOUT ROWID`,
  `CREATE TABLE agent_talk_hour (
    queue_id INTEGER NOT NULL, hour INTEGER NOT NULL, agent INTEGER NOT NULL, talk INTEGER NOT NULL,
    PRIMARY KEY (queue_id, hour, agent)
  ) WITHOUT ROWID`,
  `CREATE TABLE queue_outbound_hour (
    queue_id INTEGER NOT NULL, hour INTEGER NOT NULL,
    total INTEGER NOT NULL, answered INTEGER NOT NULL, talk INTEGER NOT NULL,
    PRIMARY KEY (queue_id, hour)
  ) WITHOUT ROWID`,

  // A local day [day_start, day_end) of the tenant's timezone when it was computed; a report uses a row
  // only when it is exactly one of its days, so a changed timezone can make rows unused, never wrong.
  `CREATE TABLE queue_day_stats (
    queue_id INTEGER NOT NULL, day_start INTEGER NOT NULL, day_end INTEGER NOT NULL,
    inbound INTEGER, answered INTEGER, talk INTEGER, under30 INTEGER,
    wait_sum INTEGER, wait_n INTEGER, wait_min INTEGER, wait_max INTEGER,
    ring INTEGER, abandons INTEGER, abandons_u10 INTEGER,
    exit_timeout INTEGER, exit_key INTEGER, rna INTEGER, rna_ms INTEGER,
    cb_req INTEGER, cb_ok INTEGER, cb_fail INTEGER,
    ob_total INTEGER NOT NULL, ob_answered INTEGER NOT NULL, ob_talk INTEGER NOT NULL,
    PRIMARY KEY (queue_id, day_start)
  ) WITHOUT ROWID`,

  `CREATE TABLE agent_sessions (
    id INTEGER PRIMARY KEY, queue_id INTEGER NOT NULL, agent INTEGER NOT NULL,
    start_at INTEGER NOT NULL, end_at INTEGER
  )`,
  `CREATE INDEX agent_sessions_queue ON agent_sessions (queue_id, start_at)`,
  `CREATE INDEX agent_sessions_open ON agent_sessions (queue_id, agent) WHERE end_at IS NULL`,
  `CREATE TABLE agent_pauses (
    id INTEGER PRIMARY KEY, queue_id INTEGER NOT NULL, agent INTEGER NOT NULL,
    start_at INTEGER NOT NULL, end_at INTEGER, reason TEXT NOT NULL
  )`,
  `CREATE INDEX agent_pauses_queue ON agent_pauses (queue_id, start_at)`,
  `CREATE INDEX agent_pauses_open ON agent_pauses (queue_id, agent) WHERE end_at IS NULL`,

  // Per queue: the newest line time seen (a line older than that is late), and derived data waiting to be rebuilt.
  `CREATE TABLE queue_report_state (
    queue_id INTEGER PRIMARY KEY, max_time INTEGER NOT NULL DEFAULT 0,
    rebuild_from INTEGER, outbound_from INTEGER
  )`,
  `CREATE TABLE reporting_counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)`,

  `CREATE TABLE cdr_calls (
    id INTEGER PRIMARY KEY,
    tenant_id INTEGER NOT NULL,
    start_at INTEGER NOT NULL, answer_at INTEGER, end_at INTEGER NOT NULL,
    line_key INTEGER NOT NULL,
    unique_id TEXT NOT NULL,
    direction TEXT NOT NULL,
    outbound_r9 INTEGER NOT NULL,
    via_queue INTEGER NOT NULL,
    source TEXT NOT NULL, destination TEXT NOT NULL,
    source_digits TEXT NOT NULL, destination_digits TEXT NOT NULL,
    caller_name TEXT NOT NULL,
    src_agent INTEGER NOT NULL, dst_agent INTEGER NOT NULL,
    src_ext INTEGER, dst_ext INTEGER, extension INTEGER,
    queue_id INTEGER,
    duration INTEGER NOT NULL, billsec INTEGER NOT NULL, disposition TEXT NOT NULL
  )`,
  `CREATE UNIQUE INDEX cdr_calls_line ON cdr_calls (start_at, line_key)`,
  `CREATE INDEX cdr_calls_tenant_start ON cdr_calls (tenant_id, start_at)`,
  // Calls of an agent that did not pass through a queue: outbound calls (R9) and non-queue talk time (R11).
  // Queue legs, most of the rows, stay out of these two indexes.
  `CREATE INDEX cdr_calls_src_agent ON cdr_calls (tenant_id, src_agent, start_at) WHERE via_queue = 0`,
  `CREATE INDEX cdr_calls_dst_agent ON cdr_calls (tenant_id, dst_agent, start_at) WHERE via_queue = 0`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db);
}

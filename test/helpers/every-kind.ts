import type { Sqlite } from '../../src/db/database';

/*
 * A record of every kind a tenant can own, and who owns each row of every table, read from the schema itself (the
 * tenant deletion and upgrade tests, issue 32: a table added later is covered without being named here).
 */

let n = 0;

/** The ids of a tenant's rows made by fillEveryKind. */
export interface Filled {
  branch: number;
  extension: number;
  user: number;
  queue: number;
}

/**
 * Inserts one record of every kind for the tenant, with its children: a branch, an extension with aliases, a user with
 * an MFA enrolment, challenge, reset token and console session, a queue with a member, alert thresholds, a wallboard
 * link, stored lines and report rows of every bulk table and a sent call event, a phone number with a destination, an
 * E911 location with a notification group, a campaign with numbers and destinations, a webhook with a delivery and
 * its attempt, a saved filter with a report run, an import's record, CDR rows and a PBX start.
 */
export function fillEveryKind(s: Sqlite, tenant: number): Filled {
  const k = ++n;
  const id = (q: string, ...args: unknown[]) =>
    Number(
      s
        .prepare(`${q} RETURNING rowid AS id`)
        .pluck()
        .get(...args),
    );
  const branch = id("INSERT INTO branches (tenant_id, name, timezone) VALUES (?, ?, 'UTC')", tenant, `Branch ${k}`);
  const extension = id(
    `INSERT INTO extensions (tenant_id, ext_num, peer_name, agent_aliases, branch_id) VALUES (?, ?, ?, '["Agent ${k}"]', ?)`,
    tenant,
    9000 + k,
    `PJSIP/every-${k}`,
    branch,
  );
  const user = id(
    "INSERT INTO users (tenant_id, branch_id, email, password_hash, user_role, created_at) VALUES (?, ?, ?, 'x', 5, 'now')",
    tenant,
    branch,
    `every${k}@example.test`,
  );
  s.prepare("INSERT INTO mfa_enrolments (user_id, mode, expires_at) VALUES (?, 'app', 0)").run(user);
  s.prepare("INSERT INTO mfa_challenges (token_hash, user_id, mode, expires_at) VALUES (?, ?, 'app', 0)").run(`challenge-${k}`, user);
  s.prepare('INSERT INTO password_resets (token_hash, user_id, expires_at) VALUES (?, ?, 0)').run(`reset-${k}`, user);
  s.prepare(
    'INSERT INTO console_sessions (id_hash, user_id, token_version, created_at, last_seen_at, expires_at) VALUES (?, ?, 0, 0, 0, 0)',
  ).run(`session-${k}`, user);

  const queue = id(
    'INSERT INTO queues (tenant_id, name, log_name, branch_id, service_level_seconds) VALUES (?, ?, ?, ?, 20)',
    tenant,
    `Queue ${k}`,
    `every-${k}`,
    branch,
  );
  s.prepare('INSERT INTO queue_members (queue_id, extension_id) VALUES (?, ?)').run(queue, extension);
  s.prepare('INSERT INTO queue_alerts (queue_id, tenant_id, max_callers_waiting) VALUES (?, ?, 3)').run(queue, tenant);
  const link = id(
    'INSERT INTO wallboard_links (tenant_id, name, token_hash, created_by, created_at) VALUES (?, ?, ?, ?, 0)',
    tenant,
    `Board ${k}`,
    `board-${k}`,
    user,
  );
  s.prepare('INSERT INTO wallboard_link_queues (link_id, queue_id, position) VALUES (?, ?, 0)').run(link, queue);
  s.prepare("INSERT INTO call_events_sent (event_type, call_id, queue_id, sent_at) VALUES ('ENDCALL', ?, ?, 0)").run(`call-${k}`, queue);
  const at = 1_700_000_000_000 + k * 1000;
  s.prepare(
    'INSERT INTO queue_events (queue_id, anchor, time, line_key, seq, event, agent, wait_time, talk_time) VALUES (?, ?, ?, ?, 0, 0, 0, 0, 0)',
  ).run(queue, at, at, k);
  s.prepare(
    `INSERT INTO queue_hour_stats (queue_id, hour, inbound, answered, talk, under30, wait_sum, wait_n, ring, abandons, abandons_u10,
       exit_timeout, exit_key, rna, rna_ms, cb_req, cb_ok, cb_fail) VALUES (?, ?, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)`,
  ).run(queue, at);
  s.prepare('INSERT INTO agent_talk_hour (queue_id, hour, agent, talk) VALUES (?, ?, 0, 1)').run(queue, at);
  s.prepare('INSERT INTO queue_outbound_hour (queue_id, hour, total, answered, talk) VALUES (?, ?, 1, 1, 1)').run(queue, at);
  s.prepare('INSERT INTO queue_day_stats (queue_id, day_start, day_end, ob_total, ob_answered, ob_talk) VALUES (?, ?, ?, 0, 0, 0)').run(
    queue,
    at,
    at + 1,
  );
  s.prepare('INSERT INTO agent_sessions (queue_id, agent, start_at) VALUES (?, 0, ?)').run(queue, at);
  s.prepare("INSERT INTO agent_pauses (queue_id, agent, start_at, reason) VALUES (?, 0, ?, 'Lunch')").run(queue, at);
  s.prepare('INSERT INTO queue_report_state (queue_id) VALUES (?)').run(queue);
  s.prepare(
    `INSERT INTO cdr_calls (tenant_id, start_at, end_at, line_key, unique_id, direction, outbound_r9, via_queue, source, destination,
       source_digits, destination_digits, caller_name, src_agent, dst_agent, queue_id, duration, billsec, disposition)
     VALUES (?, ?, ?, ?, ?, 'inbound', 0, 1, '1', '2', '1', '2', '', 0, 0, ?, 1, 1, 'ANSWERED')`,
  ).run(tenant, at, at + 1, k, `u-${k}`, queue);
  s.prepare('INSERT INTO pbx_starts (tenant_id, time) VALUES (?, ?)').run(tenant, at);
  s.prepare(
    "INSERT INTO pbx_imports (tenant_id, source, kind, timezone, started_at, finished_at, summary) VALUES (?, 'http', 'queue_log', 'UTC', 0, 0, '{}')",
  ).run(tenant);

  const number = id(
    'INSERT INTO phone_numbers (tenant_id, branch_id, number, sms_ext_id) VALUES (?, ?, ?, ?)',
    tenant,
    branch,
    `+1555000${k}`,
    extension,
  );
  s.prepare(
    "INSERT INTO phone_number_destinations (phone_number_id, list, position, type_src, dest_type, dest_id, dest_order) VALUES (?, 'routing', 0, 'x', 'extension', ?, 0)",
  ).run(number, extension);
  const location = id(
    "INSERT INTO emergency_locations (tenant_id, name, city, state, street_num, postal_code, street_info) VALUES (?, ?, 'C', 'IL', '1', '60606', 'Main')",
    tenant,
    `HQ ${k}`,
  );
  s.prepare(
    "INSERT INTO notification_groups (location_id, position, name, number, email, peer_name) VALUES (?, 0, 'Desk', '1', 'd@x.test', 'PJSIP/1')",
  ).run(location);
  const campaign = id("INSERT INTO call_campaigns (tenant_id, name, type) VALUES (?, ?, 'SCHEDULED')", tenant, `Campaign ${k}`);
  s.prepare("INSERT INTO campaign_numbers (campaign_id, position, number) VALUES (?, 0, '+15550001')").run(campaign);
  s.prepare(
    "INSERT INTO campaign_destinations (campaign_id, list, position, type_src, dest_type, dest_id, dest_order) VALUES (?, 'destinations', 0, 'x', 'queue', ?, 0)",
  ).run(campaign, queue);
  const webhook = id(
    "INSERT INTO webhooks (tenant_id, type, url, secret, created_at) VALUES (?, 'ENDCALL', 'https://x.test', 'whsec_x', 'now')",
    tenant,
  );
  const delivery = id(
    "INSERT INTO webhook_deliveries (webhook_id, tenant_id, message_id, event_type, payload, status, next_attempt_at, created_at) VALUES (?, ?, ?, 'ENDCALL', '{}', 'pending', 0, 'now')",
    webhook,
    tenant,
    `msg-${k}`,
  );
  s.prepare("INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms) VALUES (?, 1, 'now', 5)").run(delivery);
  const filter = id(
    "INSERT INTO saved_filters (tenant_id, user_id, api_url, module, name, created_at) VALUES (?, ?, '/v2/queues/stats', 'queues', ?, 'now')",
    tenant,
    user,
    `Filter ${k}`,
  );
  s.prepare(
    "INSERT INTO report_runs (filter_id, tenant_id, kind, frequency, period_start, period_end, status, next_attempt_at, created_at) VALUES (?, ?, 'manual', 'daily', 'a', 'b', 'sent', 0, 'now')",
  ).run(filter, tenant);
  return { branch, extension, user, queue };
}

/** Every table of the database but SQLite's own. */
export function tables(s: Sqlite): string[] {
  return s
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
}

/**
 * Which rows of a table a tenant owns, as a WHERE clause with one parameter (the tenant's id), followed through the
 * schema: its `tenant_id`, else its `queue_id` (a queue's rows), else a foreign key to a table the tenant owns rows of.
 * Undefined for a table no tenant owns rows of (agents, counters, login failures, the migrations' own).
 */
export function ownerClause(s: Sqlite, table: string, seen: readonly string[] = []): string | undefined {
  if (table === 'tenants') return 'id = ?';
  const columns = (s.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map((c) => c.name);
  if (columns.includes('tenant_id')) return 'tenant_id = ?';
  if (columns.includes('queue_id')) return 'queue_id IN (SELECT id FROM queues WHERE tenant_id = ?)';
  for (const fk of s.prepare(`PRAGMA foreign_key_list("${table}")`).all() as { table: string; from: string; to: string }[]) {
    if (seen.includes(fk.table) || fk.table === table) continue;
    const parent = ownerClause(s, fk.table, [...seen, table]);
    if (parent) return `"${fk.from}" IN (SELECT "${fk.to}" FROM "${fk.table}" WHERE ${parent})`;
  }
  return undefined;
}

/** Rows per table: all of them and those of each tenant given (tables no tenant owns count all rows only). */
export function census(s: Sqlite, tenants: readonly number[]): Record<string, { all: number; of: number[] }> {
  const out: Record<string, { all: number; of: number[] }> = {};
  for (const table of tables(s)) {
    const clause = ownerClause(s, table);
    const count = (where: string, ...args: unknown[]) =>
      Number(
        s
          .prepare(`SELECT count(*) FROM "${table}" WHERE ${where}`)
          .pluck()
          .get(...args),
      );
    out[table] = { all: count('1'), of: clause ? tenants.map((t) => count(clause, t)) : [] };
  }
  return out;
}

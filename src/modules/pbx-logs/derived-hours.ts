import type { Sqlite } from '../../db/database';
import { COUNTED_EVENTS, EVENT_AGGREGATES, STATS_COLUMNS } from './stats-sql';

/**
 * The per-hour tables derived from stored rows. They are never added to: every change recomputes the
 * touched hours from the rows themselves, so what is derived is always a function of what is stored,
 * whatever order lines arrived in.
 */
const statements = new WeakMap<Sqlite, ReturnType<typeof prepare>>();

function prepare(sqlite: Sqlite) {
  const cols = STATS_COLUMNS.join(', ');
  return {
    deleteStats: sqlite.prepare('DELETE FROM queue_hour_stats WHERE queue_id = ? AND hour BETWEEN ? AND ?'),
    insertStats: sqlite.prepare(
      `INSERT INTO queue_hour_stats (queue_id, hour, ${cols})
       SELECT queue_id, anchor / 3600, ${EVENT_AGGREGATES} FROM queue_events
       WHERE queue_id = ? AND anchor >= ? AND anchor < ? AND ${COUNTED_EVENTS} GROUP BY anchor / 3600`,
    ),
    deleteTalk: sqlite.prepare('DELETE FROM agent_talk_hour WHERE queue_id = ? AND hour BETWEEN ? AND ?'),
    insertTalk: sqlite.prepare(
      `INSERT INTO agent_talk_hour (queue_id, hour, agent, talk)
       SELECT queue_id, anchor / 3600, agent, sum(b) FROM queue_events
       WHERE queue_id = ? AND anchor >= ? AND anchor < ? AND event BETWEEN 3 AND 6 AND agent != 0
       GROUP BY anchor / 3600, agent`,
    ),
    deleteOutbound: sqlite.prepare('DELETE FROM queue_outbound_hour WHERE queue_id = ? AND hour >= ?'),
    // reporting.md R9: an outbound call of a member of the queue at the call's start. Sessions of one
    // (queue, agent) never overlap, so each call counts at most once per queue.
    insertOutbound: sqlite.prepare(
      `INSERT INTO queue_outbound_hour (queue_id, hour, total, answered, talk)
       SELECT s.queue_id, c.start_at / 3600, count(*), sum(c.disposition = 'ANSWERED'),
              sum(CASE WHEN c.disposition = 'ANSWERED' THEN c.billsec ELSE 0 END)
       FROM agent_sessions s
       JOIN cdr_calls c ON c.tenant_id = :tenant AND c.src_agent = s.agent AND c.outbound_r9 = 1
        AND c.start_at >= max(s.start_at, :from) AND (s.end_at IS NULL OR c.start_at < s.end_at)
       WHERE s.queue_id = :queue AND (s.end_at IS NULL OR s.end_at > :from)
       GROUP BY c.start_at / 3600`,
    ),
  };
}

function stmts(sqlite: Sqlite) {
  let s = statements.get(sqlite);
  if (!s) {
    s = prepare(sqlite);
    statements.set(sqlite, s);
  }
  return s;
}

/** Recomputes queue_hour_stats and agent_talk_hour of these hours of a queue (any order, repeats allowed). */
export function recomputeHours(sqlite: Sqlite, queueId: number, hours: Iterable<number>): void {
  const s = stmts(sqlite);
  for (const [first, last] of runsOf(hours)) {
    s.deleteStats.run(queueId, first, last);
    s.insertStats.run(queueId, first * 3600, (last + 1) * 3600);
    s.deleteTalk.run(queueId, first, last);
    s.insertTalk.run(queueId, first * 3600, (last + 1) * 3600);
  }
}

/** Recomputes a queue's outbound figures from the hour of `fromTime` on. */
export function recomputeOutbound(sqlite: Sqlite, queueId: number, tenantId: number, fromTime: number): void {
  const s = stmts(sqlite);
  const fromHour = Math.floor(Math.max(0, fromTime) / 3600);
  s.deleteOutbound.run(queueId, fromHour);
  s.insertOutbound.run({ queue: queueId, tenant: tenantId, from: fromHour * 3600 });
}

/** Sorted runs of consecutive hours, [first, last] inclusive. */
export function runsOf(hours: Iterable<number>): [number, number][] {
  const sorted = [...new Set(hours)].sort((a, b) => a - b);
  const runs: [number, number][] = [];
  for (const h of sorted) {
    const last = runs[runs.length - 1];
    if (last && h === last[1] + 1) last[1] = h;
    else runs.push([h, h]);
  }
  return runs;
}

import type { Sqlite } from '../../db/database';
import { enterStatement, type EnterRef } from './anchors';
import { recomputeHours, recomputeOutbound } from './derived-hours';
import { replayIntervals } from './intervals';

/**
 * Derived data that an import marked stale in queue_report_state, brought up to date: after every import
 * (CLI run, follow batch, ingest request), and by the next import when one was killed before it finished.
 * One transaction per queue and step, so other writers wait at most that long.
 */
export function processPending(sqlite: Sqlite): void {
  const marked = sqlite.prepare('SELECT queue_id FROM queue_report_state WHERE rebuild_from IS NOT NULL OR outbound_from IS NOT NULL').pluck().all() as number[];
  const readMarks = sqlite.prepare('SELECT rebuild_from, outbound_from FROM queue_report_state WHERE queue_id = ?');
  const tenantOf = sqlite.prepare('SELECT tenant_id FROM queues WHERE id = ?').pluck();
  for (const queueId of marked) {
    sqlite
      .transaction(() => {
        const marks = readMarks.get(queueId) as { rebuild_from: number | null; outbound_from: number | null } | undefined;
        if (!marks) return;
        if (marks.rebuild_from !== null) rebuildQueue(sqlite, queueId, marks.rebuild_from);
        // Replayed intervals differ from the old ones only from the first late line on.
        const outboundFrom = Math.min(marks.rebuild_from ?? Infinity, marks.outbound_from ?? Infinity);
        const tenantId = tenantOf.get(queueId) as number | undefined;
        if (outboundFrom !== Infinity && tenantId !== undefined) recomputeOutbound(sqlite, queueId, tenantId, outboundFrom);
        sqlite.prepare('UPDATE queue_report_state SET rebuild_from = NULL, outbound_from = NULL WHERE queue_id = ?').run(queueId);
      })
      .immediate();
  }
}

interface EventRow {
  anchor: number;
  time: number;
  line_key: number;
  seq: number;
  event: number;
  callid: string | null;
}

/**
 * After lines older than a queue's newest one arrived (an older file imported later, a line out of
 * order): every call event from `from` on gets its anchor again (R3, in the order time then import
 * order), the hours whose sums changed are recomputed, and the queue's intervals are replayed from its
 * membership events.
 */
function rebuildQueue(sqlite: Sqlite, queueId: number, from: number): void {
  const rows = sqlite
    .prepare('SELECT anchor, time, line_key, seq, event, callid FROM queue_events WHERE time >= ? AND queue_id = ? AND event < 20 ORDER BY time, seq')
    .all(from, queueId) as EventRow[];
  const lookup = enterStatement(sqlite);
  const update = sqlite.prepare('UPDATE queue_events SET anchor = ? WHERE queue_id = ? AND anchor = ? AND time = ? AND line_key = ?');
  const enters = new Map<string, EnterRef | null>();
  const touched = new Set<number>();
  for (const row of rows) {
    const callid = row.callid ?? '';
    if (row.event === 1) {
      enters.set(callid, row);
      continue;
    }
    let enter = enters.get(callid);
    if (enter === undefined) enters.set(callid, (enter = lookup(queueId, callid, from - 1)));
    const anchor = enter ? enter.time : row.time;
    if (anchor === row.anchor) continue;
    update.run(anchor, queueId, row.anchor, row.time, row.line_key);
    touched.add(Math.floor(row.anchor / 3600)).add(Math.floor(anchor / 3600));
  }
  recomputeHours(sqlite, queueId, touched);
  rebuildIntervals(sqlite, queueId);
}

function rebuildIntervals(sqlite: Sqlite, queueId: number): void {
  const events = sqlite
    .prepare('SELECT agent, event, time, a, reason FROM queue_events WHERE queue_id = ? AND event >= 20 ORDER BY time, seq')
    .all(queueId) as { agent: number; event: number; time: number; a: number; reason: string | null }[];
  const { sessions, pauses } = replayIntervals(events);
  sqlite.prepare('DELETE FROM agent_sessions WHERE queue_id = ?').run(queueId);
  sqlite.prepare('DELETE FROM agent_pauses WHERE queue_id = ?').run(queueId);
  const insertSession = sqlite.prepare('INSERT INTO agent_sessions (queue_id, agent, start_at, end_at) VALUES (?, ?, ?, ?)');
  const insertPause = sqlite.prepare('INSERT INTO agent_pauses (queue_id, agent, start_at, end_at, reason) VALUES (?, ?, ?, ?, ?)');
  for (const s of sessions) insertSession.run(queueId, s.agent, s.start, s.end);
  for (const p of pauses) insertPause.run(queueId, p.agent, p.start, p.end, p.reason);
}

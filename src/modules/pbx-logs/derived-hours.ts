import { perConnection, type Sqlite } from '../../db/database';
import { recomputeDays } from './derived-days';
import { addEvent, COUNTED_EVENTS, emptyVector, EVENT_AGGREGATES, STATS_COLUMNS, UPSERT_HOUR_STATS, vectorParams } from './stats-sql';

/**
 * The per-hour tables derived from stored rows: queue_hour_stats and agent_talk_hour (sums of call lines
 * by the hour of their anchor), queue_outbound_hour (R9 outbound calls by the hour of their start). New
 * lines are added to them as they are stored (HourAccumulator); anything else (a rebuild after late lines,
 * a change of membership) recomputes the hours concerned from the stored rows.
 */
const stmts = perConnection((sqlite: Sqlite) => {
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
    upsertStats: sqlite.prepare(UPSERT_HOUR_STATS),
    upsertTalk: sqlite.prepare(
      'INSERT INTO agent_talk_hour (queue_id, hour, agent, talk) VALUES (?, ?, ?, ?) ON CONFLICT (queue_id, hour, agent) DO UPDATE SET talk = talk + excluded.talk',
    ),
    deleteOutbound: sqlite.prepare('DELETE FROM queue_outbound_hour WHERE queue_id = ? AND hour >= ?'),
    outboundHours: sqlite.prepare('SELECT hour FROM queue_outbound_hour WHERE queue_id = ? AND hour >= ?').pluck(),
    // reporting.md R9: an outbound call of a member of the queue at the call's start. Sessions of one
    // (queue, agent) never overlap, so each call counts at most once per queue.
    insertOutbound: sqlite.prepare(
      `INSERT INTO queue_outbound_hour (queue_id, hour, total, answered, talk)
       SELECT s.queue_id, c.start_at / 3600, count(*), sum(c.disposition = 'ANSWERED'),
              sum(CASE WHEN c.disposition = 'ANSWERED' THEN c.billsec ELSE 0 END)
       FROM agent_sessions s
       JOIN cdr_calls c ON c.tenant_id = :tenant AND c.src_agent = s.agent AND c.via_queue = 0 AND c.outbound_r9 = 1
        AND c.start_at >= max(s.start_at, :from) AND (s.end_at IS NULL OR c.start_at < s.end_at)
       WHERE s.queue_id = :queue AND (s.end_at IS NULL OR s.end_at > :from)
       GROUP BY c.start_at / 3600`,
    ),
  };
});

const HOUR_KEY = 2 ** 21; // hours since 1970 stay below 2^21 until the year 2209

/** Sums of one chunk's new call lines per (queue, hour), added to the per-hour tables at the end of the chunk. */
export class HourAccumulator {
  private readonly stats = new Map<number, Float64Array>();
  private readonly talk = new Map<number, Map<number, number>>();

  add(queueId: number, anchor: number, event: number, agent: number, a: number, b: number): void {
    if (event >= 20) return; // membership lines count in no sum
    const key = queueId * HOUR_KEY + Math.floor(anchor / 3600);
    let v = this.stats.get(key);
    if (!v) this.stats.set(key, (v = emptyVector()));
    addEvent(v, event, a, b);
    if (event >= 3 && event <= 6 && agent !== 0) {
      let byAgent = this.talk.get(key);
      if (!byAgent) this.talk.set(key, (byAgent = new Map()));
      byAgent.set(agent, (byAgent.get(agent) ?? 0) + b);
    }
  }

  flush(sqlite: Sqlite): void {
    const s = stmts(sqlite);
    const split = (key: number) => [Math.floor(key / HOUR_KEY), key % HOUR_KEY] as const;
    const touched = new Map<number, number[]>();
    for (const [key, v] of this.stats) {
      const [queueId, hour] = split(key);
      s.upsertStats.run(queueId, hour, ...vectorParams(v));
      const hours = touched.get(queueId);
      if (hours) hours.push(hour);
      else touched.set(queueId, [hour]);
    }
    for (const [key, byAgent] of this.talk) for (const [agent, talk] of byAgent) s.upsertTalk.run(...split(key), agent, talk);
    for (const [queueId, hours] of touched) recomputeDays(sqlite, queueId, hours);
    this.stats.clear();
    this.talk.clear();
  }
}

/** Recomputes queue_hour_stats and agent_talk_hour of these hours of a queue (any order, repeats allowed). */
export function recomputeHours(sqlite: Sqlite, queueId: number, hours: Iterable<number>): void {
  const s = stmts(sqlite);
  const list = [...hours];
  for (const [first, last] of runsOf(list)) {
    s.deleteStats.run(queueId, first, last);
    s.insertStats.run(queueId, first * 3600, (last + 1) * 3600);
    s.deleteTalk.run(queueId, first, last);
    s.insertTalk.run(queueId, first * 3600, (last + 1) * 3600);
  }
  recomputeDays(sqlite, queueId, list);
}

/** Recomputes a queue's outbound figures from the hour of `fromTime` on. */
export function recomputeOutbound(sqlite: Sqlite, queueId: number, tenantId: number, fromTime: number): void {
  const s = stmts(sqlite);
  const fromHour = Math.floor(Math.max(0, fromTime) / 3600);
  const before = s.outboundHours.all(queueId, fromHour) as number[];
  s.deleteOutbound.run(queueId, fromHour);
  s.insertOutbound.run({ queue: queueId, tenant: tenantId, from: fromHour * 3600 });
  recomputeDays(sqlite, queueId, [...before, ...(s.outboundHours.all(queueId, fromHour) as number[])]);
}

/** Sorted runs of consecutive hours, [first, last] inclusive. */
function runsOf(hours: Iterable<number>): [number, number][] {
  const sorted = [...new Set(hours)].sort((a, b) => a - b);
  const runs: [number, number][] = [];
  for (const h of sorted) {
    const last = runs[runs.length - 1];
    if (last && h === last[1] + 1) last[1] = h;
    else runs.push([h, h]);
  }
  return runs;
}

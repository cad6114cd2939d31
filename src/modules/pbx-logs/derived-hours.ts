import { recomputeDays } from './derived-days';
import type { ImportStore, QueueEventRow } from './import-store';
import { isAnswered, isMemberEvent } from './queue-log-line';
import { addEvent, emptyVector } from './stats.repository';

/**
 * The per-hour tables derived from stored rows: queue_hour_stats and agent_talk_hour (sums of call lines
 * by the hour of their anchor), queue_outbound_hour (R9 outbound calls by the hour of their start). New
 * lines are added to them as they are stored (HourAccumulator); anything else (a rebuild after late lines,
 * a change of membership) recomputes the hours concerned from the stored rows.
 */
const HOUR_KEY = 2 ** 21; // hours since 1970 stay below 2^21 until the year 2209

/** Sums of one chunk's new call lines per (queue, hour), added to the per-hour tables at the end of the chunk. */
export class HourAccumulator {
  private readonly stats = new Map<number, Float64Array>();
  private readonly talk = new Map<number, Map<number, number>>();

  add(row: QueueEventRow): void {
    if (isMemberEvent(row.event)) return; // membership lines count in no sum
    const key = row.queueId * HOUR_KEY + Math.floor(row.anchor / 3600);
    let v = this.stats.get(key);
    if (!v) this.stats.set(key, (v = emptyVector()));
    addEvent(v, row);
    if (isAnswered(row.event) && row.agent !== 0) {
      let byAgent = this.talk.get(key);
      if (!byAgent) this.talk.set(key, (byAgent = new Map()));
      byAgent.set(row.agent, (byAgent.get(row.agent) ?? 0) + row.talkTime);
    }
  }

  async flush(store: ImportStore): Promise<void> {
    const split = (key: number) => ({ queue: Math.floor(key / HOUR_KEY), hour: key % HOUR_KEY });
    const touched = new Map<number, number[]>();
    for (const [key, v] of this.stats) {
      const at = split(key);
      await store.addHourStats(at.queue, at.hour, v);
      const hours = touched.get(at.queue);
      if (hours) hours.push(at.hour);
      else touched.set(at.queue, [at.hour]);
    }
    for (const [key, byAgent] of this.talk) {
      const { queue, hour } = split(key);
      for (const [agent, talk] of byAgent) await store.addHourTalk({ queue, hour, agent, talk });
    }
    for (const [queueId, hours] of touched) await recomputeDays(store, queueId, hours);
    this.stats.clear();
    this.talk.clear();
  }
}

/** Recomputes queue_hour_stats and agent_talk_hour of these hours of a queue (any order, repeats allowed). */
export async function recomputeHours(store: ImportStore, queueId: number, hours: Iterable<number>): Promise<void> {
  const list = [...hours];
  for (const [first, last] of runsOf(list)) await store.recomputeHourRun({ queue: queueId, first, last });
  await recomputeDays(store, queueId, list);
}

/** Recomputes a queue's outbound figures from the hour of `fromTime` on. */
export async function recomputeOutbound(store: ImportStore, queueId: number, tenantId: number, fromTime: number): Promise<void> {
  const fromHour = Math.floor(Math.max(0, fromTime) / 3600);
  const before = await store.outboundHours(queueId, fromHour);
  await store.replaceOutbound(queueId, tenantId, fromHour);
  await recomputeDays(store, queueId, [...before, ...(await store.outboundHours(queueId, fromHour))]);
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

import { latestEnter, type EnterRef } from './anchors';
import { recomputeHours, recomputeOutbound } from './derived-hours';
import type { ImportStore } from './import-store';
import { replayIntervals } from './intervals';
import { PbxStarts } from './pbx-starts';
import { EV } from './queue-log-line';

/**
 * Derived data that an import marked stale in queue_report_state, brought up to date: after every import
 * (CLI run, follow batch, ingest request), and by the next import when one was killed before it finished.
 * One transaction per queue and step, so other writers wait at most that long.
 */
export async function processPending(store: ImportStore): Promise<void> {
  const starts = new PbxStarts(store); // read once: the rebuilds below only read them
  await starts.reload();
  for (const queueId of await store.markedQueues()) {
    await store.transact(async () => {
      await store.othersWrote(); // (PostgreSQL: this step advances the import epoch, so importers drop their caches)
      const marks = await store.marks(queueId);
      if (!marks) return;
      if (marks.rebuildFrom !== null) await rebuildQueue(store, starts, queueId, marks.rebuildFrom);
      // Replayed intervals differ from the old ones only from the first late line on.
      const outboundFrom = Math.min(marks.rebuildFrom ?? Infinity, marks.outboundFrom ?? Infinity);
      const tenantId = await store.tenantOfQueue(queueId);
      if (outboundFrom !== Infinity && tenantId !== undefined) await recomputeOutbound(store, queueId, tenantId, outboundFrom);
      await store.clearMarks(queueId);
    });
  }
}

/**
 * After lines older than a queue's newest one arrived (an older file imported later, a line out of
 * order): every call event from `from` on gets its anchor again (R3, in the order time then import
 * order), the hours whose sums changed are recomputed, and the queue's intervals are replayed from its
 * membership events.
 */
async function rebuildQueue(store: ImportStore, starts: PbxStarts, queueId: number, from: number): Promise<void> {
  const enters = new Map<string, EnterRef | null>();
  const touched = new Set<number>();
  for (const row of await store.callEventsFrom(queueId, from)) {
    const callid = row.callid ?? '';
    if (row.event === EV.ENTERQUEUE) {
      enters.set(callid, row);
      continue;
    }
    let enter = enters.get(callid);
    if (enter === undefined) enters.set(callid, (enter = await latestEnter(store, queueId, callid, from - 1)));
    const anchor = enter ? enter.time : row.time;
    if (anchor === row.anchor) continue;
    await store.setAnchor({ queue: queueId, anchor, was: row.anchor, time: row.time, lineKey: row.lineKey });
    touched.add(Math.floor(row.anchor / 3600)).add(Math.floor(anchor / 3600));
  }
  await recomputeHours(store, queueId, touched);
  await rebuildIntervals(store, starts, queueId);
}

async function rebuildIntervals(store: ImportStore, starts: PbxStarts, queueId: number): Promise<void> {
  const tenantId = await store.tenantOfQueue(queueId);
  const latestStart = (time: number) => (tenantId === undefined ? undefined : starts.latest(tenantId, time));
  const events = await store.memberEvents(queueId);
  const staticAgents = new Set(await store.staticAgents(queueId));
  const { sessions, pauses } = replayIntervals(events, latestStart, staticAgents);
  await store.replaceIntervals(queueId, sessions, pauses);
}

import type { Sqlite } from '../../db/database';
import { latestEnter, type EnterRef } from './anchors';
import { recomputeHours, recomputeOutbound } from './derived-hours';
import { replayIntervals } from './intervals';
import { pbxLogs, type PbxLogs } from './pbx-logs.repository';
import { PbxStarts } from './pbx-starts';
import { EV } from './queue-log-line';

/**
 * Derived data that an import marked stale in queue_report_state, brought up to date: after every import
 * (CLI run, follow batch, ingest request), and by the next import when one was killed before it finished.
 * One transaction per queue and step, so other writers wait at most that long.
 */
export function processPending(sqlite: Sqlite): void {
  const repo = pbxLogs(sqlite);
  const starts = new PbxStarts(sqlite); // read once: the rebuilds below only read them
  for (const { queue: queueId } of repo.markedQueues.all()) {
    sqlite
      .transaction(() => {
        const marks = repo.marks.get({ queue: queueId });
        if (!marks) return;
        if (marks.rebuildFrom !== null) rebuildQueue(sqlite, starts, queueId, marks.rebuildFrom);
        // Replayed intervals differ from the old ones only from the first late line on.
        const outboundFrom = Math.min(marks.rebuildFrom ?? Infinity, marks.outboundFrom ?? Infinity);
        const tenantId = repo.tenantOfQueue.get({ queue: queueId })?.tenantId;
        if (outboundFrom !== Infinity && tenantId !== undefined) recomputeOutbound(sqlite, queueId, tenantId, outboundFrom);
        repo.clearMarks.run({ queue: queueId });
      })
      .immediate();
  }
}

/**
 * After lines older than a queue's newest one arrived (an older file imported later, a line out of
 * order): every call event from `from` on gets its anchor again (R3, in the order time then import
 * order), the hours whose sums changed are recomputed, and the queue's intervals are replayed from its
 * membership events.
 */
function rebuildQueue(sqlite: Sqlite, starts: PbxStarts, queueId: number, from: number): void {
  const repo = pbxLogs(sqlite);
  const enters = new Map<string, EnterRef | null>();
  const touched = new Set<number>();
  for (const row of repo.callEventsFrom.all({ queue: queueId, from })) {
    const callid = row.callid ?? '';
    if (row.event === EV.ENTERQUEUE) {
      enters.set(callid, row);
      continue;
    }
    let enter = enters.get(callid);
    if (enter === undefined) enters.set(callid, (enter = latestEnter(repo, queueId, callid, from - 1)));
    const anchor = enter ? enter.time : row.time;
    if (anchor === row.anchor) continue;
    repo.setAnchor.run({ queue: queueId, anchor, was: row.anchor, time: row.time, lineKey: row.lineKey });
    touched.add(Math.floor(row.anchor / 3600)).add(Math.floor(anchor / 3600));
  }
  recomputeHours(sqlite, queueId, touched);
  rebuildIntervals(repo, starts, queueId);
}

function rebuildIntervals(repo: PbxLogs, starts: PbxStarts, queueId: number): void {
  const tenantId = repo.tenantOfQueue.get({ queue: queueId })?.tenantId;
  const latestStart = (time: number) => (tenantId === undefined ? undefined : starts.latest(tenantId, time));
  const events = repo.memberEvents.all({ queue: queueId }).map((e) => ({ ...e, needsLogin: e.needsLogin === 1 }));
  const staticAgents = new Set(repo.staticAgents.all({ queue: queueId }).map((r) => r.agent));
  const { sessions, pauses } = replayIntervals(events, latestStart, staticAgents);
  repo.deleteSessions.run({ queue: queueId });
  repo.deletePauses.run({ queue: queueId });
  for (const s of sessions) repo.insertSession({ queue: queueId, ...s });
  for (const p of pauses) repo.insertPause({ queue: queueId, ...p });
}

import type { Sqlite } from '../../db/database';
import { memberStep, type IntervalChange, type PairState } from './member-state';
import type { PbxStarts } from './pbx-starts';
import { isMemberEvent } from './queue-log-line';
import { pbxLogs, type PbxLogs, type StoredMemberEvent } from './pbx-logs.repository';

interface OpenRows {
  session: number | null;
  pause: number | null;
}

/** A membership event of a queue, as the importer applies it. */
export interface MemberEvent extends StoredMemberEvent {
  readonly queueId: number;
}

/**
 * Writes membership and pause intervals (agent_sessions, agent_pauses) as membership events arrive in
 * time order. The open rows of each (queue, agent) pair are the state of reporting.md R10; they are read
 * once per pair and then kept in memory until `forget()` (another process wrote to the database).
 */
export class IntervalWriter {
  private readonly pairs = new Map<number, OpenRows>();
  private readonly tenants = new Map<number, number | undefined>();
  private readonly repo: PbxLogs;

  constructor(
    sqlite: Sqlite,
    private readonly starts: PbxStarts,
  ) {
    this.repo = pbxLogs(sqlite);
  }

  forget(): void {
    this.pairs.clear();
    this.tenants.clear();
  }

  /** Applies one membership event; returns whether the membership itself (not only a pause) changed. */
  apply(e: MemberEvent): boolean {
    if (e.agent === 0) return false; // NONE or empty changes no state (R10)
    const rows = this.rowsOf(e.queueId, e.agent);
    if (rows.session !== null && !isMemberEvent(e.event)) return false; // a member's call line changes nothing
    const state: PairState = { member: rows.session !== null, paused: rows.pause !== null };
    let membership = false;
    for (const change of memberStep(state, e.event, e.time, { pauseReason: e.pauseReason, staticSince: () => this.staticSince(e) })) {
      this.write(rows, e, change);
      membership ||= change.kind === 'openSession' || change.kind === 'closeSession';
    }
    return membership;
  }

  /** R15: the latest start of the queue's PBX before the line, unless the pair's membership ended after it. */
  private staticSince(e: MemberEvent): number {
    if (!this.tenants.has(e.queueId)) this.tenants.set(e.queueId, this.repo.tenantOfQueue.get({ queue: e.queueId })?.tenantId);
    const tenantId = this.tenants.get(e.queueId);
    const start = tenantId === undefined ? undefined : this.starts.latest(tenantId, e.time);
    return staticSince(start, this.repo.lastSessionEnd.get({ queue: e.queueId, agent: e.agent })?.end ?? null, e.time);
  }

  private rowsOf(queueId: number, agent: number): OpenRows {
    const key = queueId * 0x100000000 + agent; // a number, not a string: this runs for most lines
    let rows = this.pairs.get(key);
    if (!rows) {
      const pair = { queue: queueId, agent };
      rows = { session: this.repo.openSession.get(pair)?.id ?? null, pause: this.repo.openPause.get(pair)?.id ?? null };
      this.pairs.set(key, rows);
    }
    return rows;
  }

  private write(rows: OpenRows, e: MemberEvent, change: IntervalChange): void {
    const open = { queue: e.queueId, agent: e.agent, start: change.time, end: null };
    switch (change.kind) {
      case 'openSession':
        rows.session = Number(this.repo.insertSession(open).lastInsertRowid);
        break;
      case 'openPause':
        rows.pause = Number(this.repo.insertPause({ ...open, reason: change.reason }).lastInsertRowid);
        break;
      case 'closeSession':
        if (rows.session !== null) this.repo.closeSession({ id: rows.session, end: change.time });
        rows.session = null;
        break;
      case 'closePause':
        if (rows.pause !== null) this.repo.closePause({ id: rows.pause, end: change.time });
        rows.pause = null;
        break;
    }
  }
}

/**
 * When a static member's membership opens (R15): at the latest start of the PBX before its line; at the line
 * itself when the log has no start before it, or when the pair's membership ended after that start (the agent
 * was removed or logged off: only its line shows it is back).
 */
function staticSince(start: number | undefined, lastEnd: number | null, time: number): number {
  return start === undefined || (lastEnd !== null && lastEnd >= start) ? time : start;
}

/**
 * The intervals of a queue replayed from all the lines that show membership (in time order), for a rebuild.
 * `latestStart`: the latest start of the queue's PBX at or before a time (R15); `staticAgents`: the agents
 * configured as the queue's static members (queue_members), whom a login of queue NONE makes available.
 */
export function replayIntervals(
  events: Iterable<StoredMemberEvent & { readonly needsLogin?: boolean }>,
  latestStart: (time: number) => number | undefined,
  staticAgents: ReadonlySet<number> = new Set(),
) {
  const sessions: { agent: number; start: number; end: number | null }[] = [];
  const pauses: { agent: number; start: number; end: number | null; reason: string }[] = [];
  const open = new Map<number, { state: PairState; session?: (typeof sessions)[number]; pause?: (typeof pauses)[number] }>();
  for (const e of events) {
    if (e.agent === 0) continue;
    let pair = open.get(e.agent);
    if (!pair) open.set(e.agent, (pair = { state: { member: false, paused: false, listed: staticAgents.has(e.agent) } }));
    const p = pair;
    const since = () => staticSince(latestStart(e.time), p.session?.end ?? null, e.time);
    for (const c of memberStep(pair.state, e.event, e.time, { pauseReason: e.pauseReason, staticSince: since, needsLogin: e.needsLogin })) {
      if (c.kind === 'openSession') sessions.push((pair.session = { agent: e.agent, start: c.time, end: null }));
      else if (c.kind === 'openPause') pauses.push((pair.pause = { agent: e.agent, start: c.time, end: null, reason: c.reason }));
      else if (c.kind === 'closeSession' && pair.session) pair.session.end = c.time;
      else if (c.kind === 'closePause' && pair.pause) pair.pause.end = c.time;
    }
  }
  return { sessions, pauses };
}

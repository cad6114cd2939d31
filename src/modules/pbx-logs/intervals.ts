import type { ImportStore, StoredMemberEvent } from './import-store';
import { MEMBER_CHANGES, memberStep, type IntervalChange, type PairState } from './member-state';
import type { PbxStarts } from './pbx-starts';
import { isMemberEvent, showsMembership } from './queue-log-line';

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

  constructor(
    private readonly store: ImportStore,
    private readonly starts: PbxStarts,
  ) {}

  forget(): void {
    this.pairs.clear();
    this.tenants.clear();
  }

  /**
   * Applies one membership event; returns (at once when nothing needs reading or writing: a member's call line)
   * whether the membership itself (not only a pause) changed.
   */
  apply(e: MemberEvent): boolean | Promise<boolean> {
    if (e.agent === 0) return false; // NONE or empty changes no state (R10)
    const rows = this.pairs.get(pairKey(e.queueId, e.agent));
    if (rows && rows.session !== null && !isMemberEvent(e.event)) return false; // a member's call line changes nothing
    return this.step(e, rows);
  }

  private async step(e: MemberEvent, known: OpenRows | undefined): Promise<boolean> {
    const rows = known ?? (await this.rowsOf(e.queueId, e.agent));
    if (rows.session !== null && !isMemberEvent(e.event)) return false;
    const state: PairState = { member: rows.session !== null, paused: rows.pause !== null };
    // memberStep asks for the time a static member's membership opens only for a line that opens one (R15)
    const since = !state.member && !MEMBER_CHANGES.has(e.event) && showsMembership(e.event) ? await this.staticSince(e) : e.time;
    let membership = false;
    for (const change of memberStep(state, e.event, e.time, { pauseReason: e.pauseReason, staticSince: () => since })) {
      await this.write(rows, e, change);
      membership ||= change.kind === 'openSession' || change.kind === 'closeSession';
    }
    return membership;
  }

  /** R15: the latest start of the queue's PBX before the line, unless the pair's membership ended after it. */
  private async staticSince(e: MemberEvent): Promise<number> {
    if (!this.tenants.has(e.queueId)) this.tenants.set(e.queueId, await this.store.tenantOfQueue(e.queueId));
    const tenantId = this.tenants.get(e.queueId);
    const start = tenantId === undefined ? undefined : this.starts.latest(tenantId, e.time);
    return staticSince(start, await this.store.lastSessionEnd(e.queueId, e.agent), e.time);
  }

  private async rowsOf(queueId: number, agent: number): Promise<OpenRows> {
    const key = pairKey(queueId, agent);
    let rows = this.pairs.get(key);
    if (!rows) {
      rows = { session: await this.store.openSession(queueId, agent), pause: await this.store.openPause(queueId, agent) };
      this.pairs.set(key, rows);
    }
    return rows;
  }

  private async write(rows: OpenRows, e: MemberEvent, change: IntervalChange): Promise<void> {
    const open = { queue: e.queueId, agent: e.agent, start: change.time, end: null };
    switch (change.kind) {
      case 'openSession':
        rows.session = await this.store.insertSession(open);
        break;
      case 'openPause':
        rows.pause = await this.store.insertPause({ ...open, reason: change.reason });
        break;
      case 'closeSession':
        if (rows.session !== null) await this.store.closeSession(rows.session, change.time);
        rows.session = null;
        break;
      case 'closePause':
        if (rows.pause !== null) await this.store.closePause(rows.pause, change.time);
        rows.pause = null;
        break;
    }
  }
}

/** A (queue, agent) pair as a number, not a string: this runs for most lines. */
const pairKey = (queueId: number, agent: number) => queueId * 0x100000000 + agent;

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

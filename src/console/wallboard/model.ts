import { batch, signal, type Signal } from '@preact/signals';
import { openStream, type StreamState } from '../sse';
import { learnServerTime } from '../time';
import type { LiveMember, LiveQueue, LiveState } from '../types';

/** A queue as last received, and when (the client's clock: waits grow from there on their own). */
export interface QueueEntry {
  readonly queue: LiveQueue;
  readonly receivedAt: number;
}

/**
 * The live state of a wallboard, kept from the stream: the whole state (`state` events), each queue replaced
 * whole by its `queue` event. Everything shown comes from what TARS sent; nothing is counted here but the
 * seconds since. Each queue has its own signal, and the members and callers of all queues a version each, so
 * that an event redraws only what it changed: a caller joining redraws its queue's tile and the callers, not
 * the agents (the benchmark of docs/performance.md runs 50 wallboards on one machine).
 */
export class LiveModel {
  readonly state = signal<LiveState | null>(null);
  /** The queues' ids, in the order of the state. */
  readonly order = signal<readonly number[]>([]);
  /** Bumped when some queue's members changed, or its callers. */
  readonly membersVersion = signal(0);
  readonly callersVersion = signal(0);
  readonly connection = signal<StreamState>('connecting');
  readonly refused = signal<string | null>(null);
  private readonly byId = new Map<number, Signal<QueueEntry>>();
  private close: (() => void) | undefined;

  /** A queue's signal (its tile reads it). */
  queue(id: number): Signal<QueueEntry> | undefined {
    return this.byId.get(id);
  }

  /** Every queue as last received, in order; read without subscribing (the tables subscribe to the versions). */
  entries(): QueueEntry[] {
    return this.order.peek().flatMap((id) => this.byId.get(id)?.peek() ?? []);
  }

  apply(event: string, data: string): void {
    if (event === 'state') {
      const state = JSON.parse(data) as LiveState;
      learnServerTime(state.generatedAt);
      const at = Date.now();
      batch(() => {
        this.state.value = state;
        for (const queue of state.queues) this.put(queue, at);
        this.order.value = state.queues.map((q) => q.queueId);
        this.membersVersion.value++;
        this.callersVersion.value++;
      });
    } else if (event === 'queue') {
      const queue = JSON.parse(data) as LiveQueue;
      const before = this.byId.get(queue.queueId)?.peek().queue;
      batch(() => {
        this.put(queue, Date.now());
        if (!before || !sameList(before.members, queue.members)) this.membersVersion.value++;
        if (!before || !sameList(before.callers, queue.callers)) this.callersVersion.value++;
      });
    }
  }

  private put(queue: LiveQueue, receivedAt: number): void {
    const entry = { queue, receivedAt };
    const s = this.byId.get(queue.queueId);
    if (s) s.value = entry;
    else this.byId.set(queue.queueId, signal(entry));
  }

  open(url: string, headers: Record<string, string> = {}): void {
    this.stop();
    this.refused.value = null;
    this.close = openStream(url, headers, {
      onEvent: (e, d) => this.apply(e, d),
      onState: (s, message) => {
        this.connection.value = s;
        if (s === 'refused') this.refused.value = message ?? 'refused';
      },
    });
  }

  stop(): void {
    this.close?.();
    this.close = undefined;
  }
}

/**
 * Whether two lists of members (or callers) say the same, but for the seconds TARS counted (waitSeconds). Their
 * fields are strings, numbers, booleans and nulls: compared one by one (a JSON text of each list, with a replacer,
 * was a share of each event's script in 50 open wallboards).
 */
function sameList(a: readonly object[], b: readonly object[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as Record<string, unknown>;
    const y = b[i] as Record<string, unknown>;
    const keys = Object.keys(x);
    if (keys.length !== Object.keys(y).length) return false;
    for (const k of keys) if (k !== 'waitSeconds' && x[k] !== y[k]) return false;
  }
  return true;
}

export type Level = 'none' | 'ok' | 'warn' | 'alert';

/** How near a figure is to its threshold: past it (the alert the server raises), within 80 % of it, or fine. */
function againstMax(value: number, max: number | null): Level {
  if (max === null) return 'none';
  if (value > max) return 'alert';
  return value > 0 && value >= max * 0.8 ? 'warn' : 'ok';
}

export interface QueueLevels {
  readonly callersWaiting: Level;
  readonly longestWait: Level;
  readonly serviceLevel: Level;
  readonly agentsAvailable: Level;
}

/**
 * The colour of each figure of a queue by its thresholds, by the server's own rules (docs/live-queues.md,
 * Alerts): alert when crossed; warn at 80 % of a maximum, or within 5 points above the minimum service level.
 */
export function levelsOf(q: LiveQueue, longestWait: number): QueueLevels {
  const a = q.alerts;
  const sl = q.today.serviceLevelPercent;
  const min = a?.minServiceLevelPercent ?? null;
  return {
    callersWaiting: againstMax(q.callersWaiting, a?.maxCallersWaiting ?? null),
    longestWait: longestWaitLevel(q, longestWait),
    serviceLevel: min === null || sl === null ? 'none' : sl < min ? 'alert' : sl < min + 5 ? 'warn' : 'ok',
    agentsAvailable: !a?.noAgentAvailable ? 'none' : q.live && q.agentsAvailable === 0 ? 'alert' : 'ok',
  };
}

/** The colour of a queue's longest wait (it changes as the wait grows, between events). */
export const longestWaitLevel = (q: LiveQueue, longestWait: number): Level =>
  againstMax(longestWait, q.alerts?.maxLongestWaitSeconds ?? null);

/** The longest wait of a queue now: its callers' waits as TARS counted them when it was sent, plus the seconds since. */
export const longestWaitNow = (entry: QueueEntry, now: number): number =>
  entry.queue.callers.reduce((max, c) => Math.max(max, waitNow(c.waitSeconds, entry.receivedAt, now)), 0);

/** The worst of some levels (the tile's own colour). */
export function worst(levels: readonly Level[]): Level {
  for (const l of ['alert', 'warn', 'ok'] as const) if (levels.includes(l)) return l;
  return 'none';
}

/** A caller's wait now: what TARS counted when the queue was sent, plus the seconds since. */
export const waitNow = (seconds: number, receivedAt: number, now: number) => seconds + Math.max(0, Math.floor((now - receivedAt) / 1000));

export type AgentState = LiveMember['state'];

/** An agent across the queues it is in: its state where it matters most, each queue's own detail. */
export interface AgentRow {
  readonly key: string;
  readonly name: string;
  readonly extNum: number | null;
  readonly extensionId: number | null;
  readonly peerName: string | null;
  readonly state: AgentState;
  readonly stateSince: string | null;
  readonly pauseReason: string;
  readonly queues: readonly { queueId: number; queueName: string; member: LiveMember }[];
}

const PRECEDENCE: readonly AgentState[] = ['inCall', 'ringing', 'available', 'paused', 'unavailable', 'loggedOut'];

export const STATE_WORDS: Record<AgentState, string> = {
  inCall: 'On a call',
  ringing: 'Ringing',
  available: 'Available',
  paused: 'Paused',
  unavailable: 'Unavailable',
  loggedOut: 'Logged out',
};

/** The agents of the queues, one row each (by extension, else by interface), busiest first, then by name. */
export function agentsOf(entries: readonly QueueEntry[]): AgentRow[] {
  const byKey = new Map<string, { name: string; first: LiveMember; queues: AgentRow['queues'][number][] }>();
  for (const { queue } of entries)
    for (const m of queue.members) {
      const key = m.extensionId !== null ? `ext:${m.extensionId}` : `if:${m.interface || m.name}`;
      let row = byKey.get(key);
      if (!row) byKey.set(key, (row = { name: m.name, first: m, queues: [] }));
      row.queues.push({ queueId: queue.queueId, queueName: queue.name, member: m });
    }
  const rows = [...byKey].map(([key, r]): AgentRow => {
    const state = PRECEDENCE.find((s) => r.queues.some((q) => q.member.state === s)) ?? 'loggedOut';
    const since = r.queues
      .filter((q) => q.member.state === state && q.member.stateSince)
      .map((q) => q.member.stateSince as string)
      .sort()[0];
    const paused = r.queues.map((q) => q.member).filter((m) => m.paused);
    const reason = paused.find((m) => m.pauseReason !== 'DND')?.pauseReason ?? paused[0]?.pauseReason ?? '';
    return {
      key,
      name: r.name,
      extNum: r.first.extNum,
      extensionId: r.first.extensionId,
      peerName: r.first.peerName,
      state,
      stateSince: since ?? null,
      pauseReason: reason,
      queues: r.queues,
    };
  });
  return rows.sort((a, b) => PRECEDENCE.indexOf(a.state) - PRECEDENCE.indexOf(b.state) || a.name.localeCompare(b.name));
}

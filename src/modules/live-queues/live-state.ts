import type { AmiMessage } from '../../ami/ami-protocol';
import { pbxNameKey } from '../../pbx-name';

/** Asterisk's device states (include/asterisk/devicestate.h, enum ast_device_state), as QueueMember's Status. */
export const DEVICE = {
  unknown: 0,
  notInUse: 1,
  inUse: 2,
  busy: 3,
  invalid: 4,
  unavailable: 5,
  ringing: 6,
  ringInUse: 7,
  onHold: 8,
} as const;

/** What a member is doing, as a wallboard shows it. */
export type MemberState = 'available' | 'ringing' | 'inCall' | 'paused' | 'unavailable';

export interface LiveMember {
  /** The member's interface (`Location` in QueueStatus, `Interface` in events): its key in the queue. */
  readonly interface: string;
  readonly name: string;
  readonly stateInterface: string;
  readonly membership: string;
  readonly penalty: number;
  readonly callsTaken: number;
  /** Epoch seconds; 0 when never. */
  readonly lastCall: number;
  readonly lastPause: number;
  readonly loginTime: number;
  readonly inCall: boolean;
  /** A DEVICE code. */
  readonly status: number;
  readonly paused: boolean;
  readonly pausedReason: string;
  /**
   * Since when the member has been in its present state (memberState), and paused, on TARS's own clock: when
   * TARS learned it (the event's arrival; for a member first seen in a QueueStatus answer, that answer's).
   * Never the PBX's timestamps, which a PBX clock that is off (or a replayed recording) would make wrong.
   */
  readonly stateSince: Date;
  readonly pausedSince: Date | undefined;
}

export interface LiveCaller {
  readonly uniqueid: string;
  readonly channel: string;
  readonly callerIdNum: string;
  readonly callerIdName: string;
  readonly position: number;
  /**
   * When the caller joined the queue, on TARS's clock: the QueueCallerJoin's arrival, or a QueueStatus answer's
   * arrival less the `Wait` seconds Asterisk counted (never the event's own Timestamp).
   */
  readonly since: Date;
}

export interface LiveQueue {
  readonly name: string;
  readonly strategy: string;
  /** The queue's `servicelevel` in seconds (0: not set). */
  readonly serviceLevel: number;
  readonly members: ReadonlyMap<string, LiveMember>;
  readonly callers: ReadonlyMap<string, LiveCaller>;
}

interface Queue {
  name: string;
  strategy: string;
  serviceLevel: number;
  members: Map<string, LiveMember>;
  callers: Map<string, LiveCaller>;
}

/** Asterisk's "unknown" caller id, as an empty string. */
export const callerId = (text: string | undefined): string => (text === undefined || text === '<unknown>' ? '' : text);
const int = (text: string | undefined): number => {
  const n = Number(text);
  return Number.isFinite(n) ? Math.trunc(n) : 0;
};

/** The state a wallboard shows for a member: not reachable first, then a call, ringing, a pause. */
export function memberState(m: Pick<LiveMember, 'status' | 'inCall' | 'paused'>): MemberState {
  if (m.status === DEVICE.invalid || m.status === DEVICE.unavailable) return 'unavailable';
  if (m.inCall || m.status === DEVICE.inUse || m.status === DEVICE.busy || m.status === DEVICE.onHold) return 'inCall';
  if (m.status === DEVICE.ringing || m.status === DEVICE.ringInUse) return 'ringing';
  if (m.paused) return 'paused';
  return 'available';
}

/** A member as QueueStatus's QueueMember or a QueueMember* event describes it (every such message has all fields). */
function readMember(m: AmiMessage): Omit<LiveMember, 'stateSince' | 'pausedSince'> {
  return {
    interface: m.Interface ?? m.Location ?? '',
    name: m.MemberName ?? m.Name ?? '',
    stateInterface: m.StateInterface ?? '',
    membership: m.Membership ?? '',
    penalty: int(m.Penalty),
    callsTaken: int(m.CallsTaken),
    lastCall: int(m.LastCall),
    lastPause: int(m.LastPause),
    loginTime: int(m.LoginTime),
    inCall: m.InCall === '1',
    status: int(m.Status),
    paused: m.Paused === '1',
    pausedReason: m.PausedReason ?? '',
  };
}

/**
 * The member `next` learned at `at`, with the times of the one it replaces (`before`, if known): its state and
 * its pause keep their beginnings while they last, else they begin at `at`.
 */
function since(next: Omit<LiveMember, 'stateSince' | 'pausedSince'>, before: LiveMember | undefined, at: Date): LiveMember {
  const sameState = before !== undefined && memberState(before) === memberState(next);
  return {
    ...next,
    stateSince: sameState ? before.stateSince : at,
    pausedSince: next.paused ? (before?.paused ? before.pausedSince : at) : undefined,
  };
}

/** When an event happened: its Timestamp (manager.conf `timestampevents = yes`), else when it arrived. */
export function eventTime(m: AmiMessage, arrived: Date): Date {
  const t = Number(m.Timestamp);
  return m.Timestamp !== undefined && Number.isFinite(t) && t > 0 ? new Date(Math.round(t * 1000)) : arrived;
}

/**
 * The queues of one PBX as its manager interface describes them: rebuilt whole from a QueueStatus answer
 * (`snapshot`), then kept by the events (`apply`), the way app_queue.c changes its own state: a caller joining at
 * position p moves those at p and behind one back, a caller leaving moves those behind it one forward; the
 * QueueMember* events carry every field of the member they are about.
 */
export class LiveState {
  /** By name without case, as Asterisk and the importer match queue names (reporting.md R2). */
  private readonly byName = new Map<string, Queue>();

  /** The queues, keyed by their name in lower case (each keeps its own spelling in `name`). */
  get queues(): ReadonlyMap<string, LiveQueue> {
    return this.byName;
  }

  /** Replaces everything with a QueueStatus answer (its QueueParams, QueueMember and QueueEntry events), taken at `at`. */
  snapshot(events: readonly AmiMessage[], at: Date): void {
    const before = new Map([...this.byName].map(([key, q]) => [key, q.members]));
    this.byName.clear();
    for (const m of events) {
      const name = m.Queue;
      if (name === undefined) continue;
      if (m.Event === 'QueueParams') this.queue(name, m);
      else if (m.Event === 'QueueMember') {
        const read = readMember(m);
        const member = since(read, before.get(pbxNameKey(name))?.get(read.interface), at);
        this.queue(name).members.set(member.interface, member);
      } else if (m.Event === 'QueueEntry') {
        const caller = readCaller(m, new Date(at.getTime() - int(m.Wait) * 1000));
        this.queue(name).callers.set(caller.uniqueid, caller);
      }
    }
  }

  /** Replaces everything with queues another instance published (./live-share.ts), taken as they are. */
  replace(queues: ReadonlyMap<string, LiveQueue>): void {
    this.byName.clear();
    for (const [key, q] of queues) this.byName.set(key, { ...q, members: new Map(q.members), callers: new Map(q.callers) });
  }

  /** Applies one event; returns the name of the queue it changed, or undefined when it changed nothing. */
  apply(m: AmiMessage, arrived: Date): string | undefined {
    const name = m.Queue;
    if (name === undefined) return undefined;
    switch (m.Event) {
      case 'QueueCallerJoin': {
        const q = this.queue(name);
        const caller = readCaller(m, arrived);
        for (const [id, c] of q.callers) if (c.position >= caller.position) q.callers.set(id, { ...c, position: c.position + 1 });
        q.callers.set(caller.uniqueid, caller);
        return name;
      }
      case 'QueueCallerLeave': {
        const q = this.byName.get(pbxNameKey(name));
        const left = q?.callers.get(m.Uniqueid ?? '');
        if (!q || !left) return undefined;
        q.callers.delete(left.uniqueid);
        for (const [id, c] of q.callers) if (c.position > left.position) q.callers.set(id, { ...c, position: c.position - 1 });
        return name;
      }
      case 'QueueMemberAdded':
      case 'QueueMemberStatus':
      case 'QueueMemberPause':
      case 'QueueMemberPenalty':
      case 'QueueMemberRinginuse': {
        const q = this.queue(name);
        const read = readMember(m);
        q.members.set(read.interface, since(read, q.members.get(read.interface), arrived));
        return name;
      }
      case 'QueueMemberRemoved':
        return this.byName.get(pbxNameKey(name))?.members.delete(m.Interface ?? '') ? name : undefined;
      case 'AgentConnect':
        return this.setInCall(name, m.Interface, true, arrived);
      case 'AgentComplete':
        return this.setInCall(name, m.Interface, false, arrived);
      default:
        // AgentCalled, AgentRingNoAnswer and QueueCallerAbandon: the member's device state comes with the
        // QueueMemberStatus that follows, the caller's leaving with QueueCallerLeave.
        return undefined;
    }
  }

  /** A member's call in this queue began or ended (app_queue.c sets and clears its `starttime`: InCall). */
  private setInCall(name: string, iface: string | undefined, inCall: boolean, at: Date): string | undefined {
    const q = this.byName.get(pbxNameKey(name));
    const member = q?.members.get(iface ?? '');
    if (!q || !member || member.inCall === inCall) return undefined;
    q.members.set(member.interface, since({ ...member, inCall }, member, at));
    return name;
  }

  private queue(name: string, params?: AmiMessage): Queue {
    let q = this.byName.get(pbxNameKey(name));
    if (!q) this.byName.set(pbxNameKey(name), (q = { name, strategy: '', serviceLevel: 0, members: new Map(), callers: new Map() }));
    if (params) {
      q.strategy = params.Strategy ?? '';
      q.serviceLevel = int(params.ServiceLevel);
    }
    return q;
  }
}

function readCaller(m: AmiMessage, since: Date): LiveCaller {
  return {
    uniqueid: m.Uniqueid ?? '',
    channel: m.Channel ?? '',
    callerIdNum: callerId(m.CallerIDNum),
    callerIdName: callerId(m.CallerIDName),
    position: int(m.Position),
    since,
  };
}

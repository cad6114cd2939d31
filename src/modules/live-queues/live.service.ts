import type { Caller } from '../../access/caller';
import { requireTenant, type TenantScope } from '../../access/scope';
import type { Clock } from '../../clock';
import type { Db } from '../../db/database';
import { badRequest } from '../../errors';
import { periodsOf } from '../../time/report-range';
import { formatDay, localDay, startOfDay } from '../../time/zone';
import { extensionsOfTenant, type ExtensionRow } from '../extensions/extensions.repository';
import { AgentNames } from '../pbx-logs/pbx-logs.service';
import { queuePeriodSums } from '../queue-reports/queue-stats.service';
import { answeredWithin } from '../queue-reports/queue-stats.repository';
import { findQueues, membersOf, type QueueDetailRow } from '../queues/queues.repository';
import { timezoneOfTenant } from '../tenants/tenants.repository';
import { queueAlertsIn, type QueueAlertRow } from './alerts.repository';
import type { LivePbx, LiveQueues } from './live-queues';
import { memberState, type LiveCaller, type LiveMember, type LiveQueue } from './live-state';
import { pbxNameKey } from '../../pbx-name';

const iso = (d: Date | undefined): string | null => (d ? d.toISOString() : null);
const fromEpoch = (s: number): string | null => (s > 0 ? new Date(s * 1000).toISOString() : null);

/** The tenant of a live request: the one named, else the caller's only tenant. */
export function liveTenant(scope: TenantScope, tenantId: number | undefined): { tenantId: number; scope: TenantScope } {
  if (tenantId === undefined) {
    if (scope.all || scope.tenantIds.length !== 1) throw badRequest('tenantId is required: the caller may see several tenants');
    tenantId = scope.tenantIds[0] as number;
  }
  return { tenantId, scope: requireTenant(scope, tenantId) };
}

/** The live queue of a PBX that a stored queue names (its queue_log name, without case: reporting.md R2), with its PBX. */
export function liveQueueOf(pbxs: readonly LivePbx[], logName: string): { pbx: LivePbx; queue: LiveQueue } | undefined {
  const wanted = pbxNameKey(logName);
  for (const pbx of pbxs) {
    const queue = pbx.queues.get(wanted);
    if (queue) return { pbx, queue };
  }
  return undefined;
}

/** liveQueueOf, when that PBX's link is up: what the PBX reports now (a queue of a PBX that is down is not live). */
function connectedQueueOf(pbxs: readonly LivePbx[], logName: string): { pbx: LivePbx; queue: LiveQueue } | undefined {
  const found = liveQueueOf(pbxs, logName);
  return found?.pbx.status.state === 'connected' ? found : undefined;
}

function callerView(c: LiveCaller, now: Date) {
  return {
    position: c.position,
    callerIdNum: c.callerIdNum,
    callerIdName: c.callerIdName,
    channel: c.channel,
    waitingSince: c.since.toISOString(),
    waitSeconds: Math.max(0, Math.floor((now.getTime() - c.since.getTime()) / 1000)),
  };
}

function memberView(m: LiveMember, ext: ExtensionRow | undefined) {
  return {
    extensionId: ext?.id ?? null,
    extNum: ext?.ext_num ?? null,
    peerName: ext?.peer_name ?? null,
    name: m.name,
    interface: m.interface,
    membership: m.membership,
    state: memberState(m),
    stateSince: m.stateSince.toISOString(),
    paused: m.paused,
    pauseReason: m.paused ? m.pausedReason : '',
    pausedSince: iso(m.pausedSince),
    inCall: m.inCall,
    penalty: m.penalty,
    callsTaken: m.callsTaken,
    lastCallAt: fromEpoch(m.lastCall),
    loggedInSince: fromEpoch(m.loginTime),
  };
}

/** A configured member (the directory's queue members) that the PBX does not list: logged out. */
function loggedOutView(ext: ExtensionRow) {
  return {
    extensionId: ext.id,
    extNum: ext.ext_num,
    peerName: ext.peer_name,
    name: ext.ext_name,
    interface: '',
    membership: '',
    state: 'loggedOut',
    stateSince: null,
    paused: false,
    pauseReason: '',
    pausedSince: null,
    inCall: false,
    penalty: 0,
    callsTaken: 0,
    lastCallAt: null,
    loggedInSince: null,
  };
}

/** What the live layer uses (docs/architecture.md, "The service shape"): the PBXs' live state among them. */
export interface LiveDeps {
  readonly db: Db;
  readonly live: LiveQueues;
  readonly clock: Clock;
}

const nowOf = (deps: LiveDeps): Date => new Date(deps.clock.now());

type TodayCounters = Awaited<ReturnType<typeof todayCounters>>;

/** Which part of a tenant's view to load, and how to word it. */
export interface ViewOptions {
  /** Without today's counters (the agent routes never show a queue whole). */
  readonly counters?: boolean;
  /** Only these queues, in this order (a wallboard link's). */
  readonly queueIds?: readonly number[];
  /** The PBXs as `PBX 1`, `PBX 2` … without their reasons: a wall screen learns no address (a wallboard link's). */
  readonly anonymousPbx?: boolean;
}

/**
 * What a tenant's live view needs from the database, read at once: its queues, extensions (to resolve members,
 * reporting.md R14), configured members, and today's counters. The JSON route reads it for every request;
 * the stream keeps one per tenant and reads it again every few seconds, so an AMI event costs no query. The
 * agent routes read it without the counters (`counters: false`): they never show a queue whole.
 */
export class TenantView {
  private readonly byLogName: Map<string, QueueDetailRow>;

  private constructor(
    readonly tenantId: number,
    readonly queues: readonly QueueDetailRow[],
    private readonly names: AgentNames,
    private readonly byNumber: ReadonlyMap<number, ExtensionRow>,
    private readonly byId: ReadonlyMap<number, ExtensionRow>,
    private readonly configured: ReadonlyMap<number, number[]>,
    private readonly today: TodayCounters | undefined,
    private readonly anonymousPbx: boolean,
    private readonly alerts: ReadonlyMap<number, QueueAlertRow>,
  ) {
    this.byLogName = new Map(queues.map((q) => [pbxNameKey(q.log_name), q]));
  }

  static async load(deps: LiveDeps, caller: Caller, tenantId: number, options: ViewOptions = {}): Promise<TenantView> {
    const { db, live } = deps;
    const { counters = true, queueIds, anonymousPbx = false } = options;
    const scope = requireTenant(caller.scope, tenantId);
    const all = await findQueues(db, scope);
    const queues = queueIds ? queueIds.flatMap((id) => all.filter((q) => q.id === id)) : all;
    const extensions = await extensionsOfTenant(db, scope, tenantId);
    const names = new AgentNames(
      extensions.map((e) => ({ extNum: e.ext_num, peer: e.peer_name, extName: e.ext_name, aliases: e.agent_aliases })),
    );
    const configured = await membersOf(
      db,
      queues.map((q) => q.id),
    );
    const today = counters
      ? await todayCounters(deps, caller, scope, queues, (q) => liveQueueOf(live.pbxs, q.log_name)?.queue.serviceLevel)
      : undefined;
    return new TenantView(
      tenantId,
      queues,
      names,
      new Map(extensions.map((e) => [e.ext_num, e])),
      new Map(extensions.map((e) => [e.id, e])),
      configured,
      today,
      anonymousPbx,
      new Map(counters ? (await queueAlertsIn(db, scope)).map((a) => [a.queue_id, a]) : []),
    );
  }

  /** The tenant's queue that a PBX queue name is (its queue_log name, without case), if any. */
  queueNamed(name: string): QueueDetailRow | undefined {
    return this.byLogName.get(pbxNameKey(name));
  }

  /** The whole view: GET /v2/reporting/queues/live, and the stream's first event. */
  body(live: LiveQueues, now: Date) {
    return {
      tenantId: this.tenantId,
      generatedAt: now.toISOString(),
      configured: live.configured,
      connected: live.configured && live.pbxs.every((p) => p.status.state === 'connected'),
      lastEventAt: iso(latest(live.pbxs.map((p) => p.lastEventAt))),
      pbx: live.pbxs.map((p, i) => ({
        label: this.anonymousPbx ? `PBX ${i + 1}` : p.label,
        state: p.status.state,
        since: p.status.since.toISOString(),
        reason: this.anonymousPbx ? null : (p.status.reason ?? null),
        lastEventAt: iso(p.lastEventAt),
        snapshotAt: iso(p.snapshotAt),
      })),
      queues: this.queues.map((q) => this.queueBody(live, q, now)),
    };
  }

  /** One queue now: the stream's change events. */
  queueBody(live: LiveQueues, q: QueueDetailRow, now: Date) {
    const current = connectedQueueOf(live.pbxs, q.log_name)?.queue;
    const members = [...(current?.members.values() ?? [])].map((m) => memberView(m, this.extensionOf(m)));
    const present = new Set(members.map((m) => m.extensionId));
    const absent = (this.configured.get(q.id) ?? []).filter((id) => !present.has(id)).flatMap((id) => this.byId.get(id) ?? []);
    const callers = [...(current?.callers.values() ?? [])].sort((a, b) => a.position - b.position).map((c) => callerView(c, now));
    return {
      queueId: q.id,
      name: q.name,
      logName: q.log_name,
      live: current !== undefined,
      serviceLevelSeconds: serviceLevelOf(current?.serviceLevel, q),
      callersWaiting: callers.length,
      longestWaitSeconds: Math.max(0, ...callers.map((c) => c.waitSeconds)),
      agentsLoggedIn: members.length,
      agentsAvailable: members.filter((m) => m.state === 'available').length,
      callers,
      members: [...members, ...absent.map(loggedOutView)],
      today: this.todayOf(q.id),
      alerts: alertsView(this.alerts.get(q.id)),
    };
  }

  private todayOf(queueId: number): ReturnType<TodayCounters> {
    if (!this.today) throw new Error("this live view was loaded without today's counters");
    return this.today(queueId);
  }

  /** The extension a live member is (reporting.md R14: its member name, else its interface), if any. */
  extensionOf(m: LiveMember): ExtensionRow | undefined {
    const ref = this.names.resolve(m.name) ?? this.names.resolve(m.interface);
    return ref ? this.byNumber.get(ref.extNum) : undefined;
  }

  /**
   * Where an extension's agent stands in each queue of the tenant it is configured in or a member of now: its
   * live membership (with the PBX that has the queue, to act through) and whether it is a configured member.
   */
  placesOf(live: LiveQueues, extensionId: number): AgentPlace[] {
    return this.queues.flatMap((queue) => {
      const connected = connectedQueueOf(live.pbxs, queue.log_name);
      const member = [...(connected?.queue.members.values() ?? [])].find((m) => this.extensionOf(m)?.id === extensionId);
      const configured = (this.configured.get(queue.id) ?? []).includes(extensionId);
      return member || configured ? [{ queue, pbx: connected?.pbx, member, configured }] : [];
    });
  }
}

/** An agent in one queue: see TenantView.placesOf. */
export interface AgentPlace {
  readonly queue: QueueDetailRow;
  /** The connected PBX that has the queue. */
  readonly pbx: LivePbx | undefined;
  readonly member: LiveMember | undefined;
  readonly configured: boolean;
}

export type LiveBody = ReturnType<TenantView['body']>;

/**
 * GET /v2/reporting/queues/live (docs/live-queues.md): every queue of a tenant as the PBX shows it now (callers
 * waiting, members and their state) and today's counters from the stored queue_log lines, in the tenant's
 * timezone (not Asterisk's own counters, which a reload resets).
 */
export async function liveQueuesOf(deps: LiveDeps, caller: Caller, query: { tenantId?: number }): Promise<LiveBody> {
  const { tenantId } = liveTenant(caller.scope, query.tenantId);
  const view = await TenantView.load(deps, caller, tenantId);
  return view.body(deps.live, nowOf(deps));
}

/** A queue's thresholds as a wallboard colours its figures by them (docs/live-queues.md, Alerts); null: none set. */
function alertsView(r: QueueAlertRow | undefined) {
  if (!r) return null;
  return {
    maxCallersWaiting: r.max_callers_waiting,
    maxLongestWaitSeconds: r.max_longest_wait_seconds,
    minServiceLevelPercent: r.min_service_level_percent,
    noAgentAvailable: r.no_agent_available === 1,
  };
}

/** The PBX's `servicelevel` as AMI reports it; when it has none (0), the queue's own threshold in TARS (reporting.md R19). */
const serviceLevelOf = (seconds: number | undefined, q: QueueDetailRow) => (seconds && seconds > 0 ? seconds : q.service_level_seconds);

function latest(dates: readonly (Date | undefined)[]): Date | undefined {
  return dates.reduce<Date | undefined>((a, d) => (d && (!a || d > a) ? d : a), undefined);
}

/** Today's counters of each queue, from the stored lines, in the tenant's timezone. */
async function todayCounters(
  deps: LiveDeps,
  caller: Caller,
  scope: TenantScope,
  queues: readonly QueueDetailRow[],
  liveServiceLevel: (q: QueueDetailRow) => number | undefined,
) {
  const { db } = deps;
  const now = nowOf(deps);
  const tz = await timezoneOfTenant(db, scope);
  const day = localDay(tz, Math.floor(now.getTime() / 1000));
  const range = { start: startOfDay(tz, day), end: startOfDay(tz, day + 1) };
  const sums = await queuePeriodSums(deps, caller, queues, tz, range, periodsOf(tz, range, 'totals'));
  // One count per service level in use, over the queues judged at it.
  const byLevel = new Map<number, number[]>();
  for (const q of queues) {
    const seconds = serviceLevelOf(liveServiceLevel(q), q);
    const ids = byLevel.get(seconds);
    if (ids) ids.push(q.id);
    else byLevel.set(seconds, [q.id]);
  }
  const within = new Map<number, number>();
  for (const [seconds, ids] of byLevel)
    for (const [id, n] of await answeredWithin(db, scope, ids, { from: range.start, to: range.end }, seconds)) within.set(id, n);
  return (queueId: number) => {
    const s = sums.get(queueId)?.[0];
    const answered = s?.answered ?? 0;
    const inSl = within.get(queueId) ?? 0;
    return {
      date: formatDay(day),
      timezone: tz,
      offered: s?.inbound ?? 0,
      answered,
      abandoned: s?.abandons ?? 0,
      timedOut: s?.exit_timeout ?? 0,
      answeredWithinServiceLevel: inSl,
      serviceLevelPercent: answered > 0 ? Math.round((inSl / answered) * 1000) / 10 : null,
    };
  };
}

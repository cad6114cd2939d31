import type { OpenDatabase } from '../../db/database';
import type { Logger } from '../../log';
import type { Mailer } from '../../mail/mailer';
import { OPERATOR } from '../../access/caller';
import { raiseEvent } from '../webhooks/events.service';
import { allQueueAlerts, type QueueAlertRow } from './alerts.repository';
import { liveQueueOf, TenantView, type LiveDeps } from './live.service';

/** What the watcher uses: the live view's deps, the connection its events are written through, the mailer and the log. */
export interface AlertDeps extends LiveDeps {
  readonly database: OpenDatabase;
  readonly mailer: Mailer;
  readonly log: Logger;
}

/** The alerts a queue can raise, each from one figure of its live view. */
export const ALERTS = ['callersWaiting', 'longestWait', 'serviceLevel', 'noAgentAvailable'] as const;
export type AlertName = (typeof ALERTS)[number];

type QueueBody = ReturnType<TenantView['queueBody']>;

/** Whether an alert holds for a queue now: its figure and the threshold it crossed; undefined when off or not crossed. */
function check(name: AlertName, row: QueueAlertRow, q: QueueBody): { value: number; threshold: number } | undefined {
  switch (name) {
    case 'callersWaiting':
      return row.max_callers_waiting !== null && q.callersWaiting > row.max_callers_waiting
        ? { value: q.callersWaiting, threshold: row.max_callers_waiting }
        : undefined;
    case 'longestWait':
      return row.max_longest_wait_seconds !== null && q.longestWaitSeconds > row.max_longest_wait_seconds
        ? { value: q.longestWaitSeconds, threshold: row.max_longest_wait_seconds }
        : undefined;
    case 'serviceLevel': {
      const sl = q.today.serviceLevelPercent;
      return row.min_service_level_percent !== null && sl !== null && sl < row.min_service_level_percent
        ? { value: sl, threshold: row.min_service_level_percent }
        : undefined;
    }
    case 'noAgentAvailable':
      return row.no_agent_available === 1 && q.agentsAvailable === 0 ? { value: 0, threshold: 1 } : undefined;
  }
}

const WORDS: Record<AlertName, (v: number, t: number) => string> = {
  callersWaiting: (v, t) => `${v} callers waiting (more than ${t})`,
  longestWait: (v, t) => `a caller waiting ${v} s (longer than ${t} s)`,
  serviceLevel: (v, t) => `today's service level ${v} % (below ${t} %)`,
  noAgentAvailable: () => 'no agent available',
};

interface AlertState {
  raised: boolean;
  lastRaisedAt: number;
}

/**
 * Watches the live view of every queue that has thresholds (queue_alerts) and raises a QUEUEALERT webhook
 * event (signed, kept in the outbox and retried like every other, src/modules/webhooks) and, when the queue has
 * an `email`, an e-mail, when one is crossed; QUEUEALERTCLEARED when it no longer is. An alert that ended is
 * not raised again within its queue's cool-down. Only a queue its PBX reports now (live) is judged: a PBX that
 * is down raises nothing and clears nothing. Whether an alert is raised is kept in memory: after a restart a
 * condition that still holds is raised again.
 */
export class AlertWatcher {
  private readonly state = new Map<string, AlertState>();
  private timer: NodeJS.Timeout | undefined;
  private soon: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  constructor(
    private readonly deps: AlertDeps,
    private readonly tickMs = 5000,
  ) {}

  /** Without a PBX there is nothing to watch. */
  start(): void {
    if (!this.deps.live.configured) return;
    this.deps.live.on('change', this.onChange);
    this.timer = setInterval(() => void this.evaluate(), this.tickMs);
    this.timer.unref();
  }

  stop(): void {
    this.deps.live.off('change', this.onChange);
    clearInterval(this.timer);
    clearTimeout(this.soon);
  }

  /** A change is judged within a quarter of a second (a burst of events once); the ticks catch waits that grow. */
  private readonly onChange = (): void => {
    if (this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      void this.evaluate();
    }, 250);
    this.soon.unref();
  };

  /** Judges every queue with thresholds now (one run at a time); resolves when its events are in the outbox. */
  evaluate(): Promise<void> {
    this.running ??= this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  private async run(): Promise<void> {
    try {
      const rows = await allQueueAlerts(this.deps.db);
      const byTenant = new Map<number, QueueAlertRow[]>();
      for (const r of rows) {
        const ofTenant = byTenant.get(r.tenant_id);
        if (ofTenant) ofTenant.push(r);
        else byTenant.set(r.tenant_id, [r]);
      }
      for (const [tenantId, ofTenant] of byTenant) {
        const view = await TenantView.load(this.deps, OPERATOR, tenantId);
        const now = new Date(this.deps.clock.now());
        for (const row of ofTenant) {
          const queue = view.queues.find((q) => q.id === row.queue_id);
          if (!queue) continue;
          // Judged by the instance holding the queue's PBX link (on SQLite: this one): one alert, not one per instance.
          if (!liveQueueOf(this.deps.live.pbxs, queue.log_name)?.pbx.holdsLink) continue;
          const body = view.queueBody(this.deps.live, queue, now);
          if (!body.live) continue;
          for (const name of ALERTS) this.judge(tenantId, row, body, name, now);
        }
      }
    } catch (err) {
      this.deps.log.warn({ err: (err as Error).message }, 'queue alerts could not be judged');
    }
  }

  private judge(tenantId: number, row: QueueAlertRow, q: QueueBody, name: AlertName, now: Date): void {
    const key = `${row.queue_id}:${name}`;
    const s = this.state.get(key) ?? { raised: false, lastRaisedAt: -Infinity };
    const crossed = check(name, row, q);
    if (crossed && !s.raised && now.getTime() - s.lastRaisedAt >= row.cooldown_seconds * 1000) {
      this.state.set(key, { raised: true, lastRaisedAt: now.getTime() });
      this.tell(tenantId, row, q, name, 'raised', crossed, now);
    } else if (!crossed && s.raised) {
      this.state.set(key, { ...s, raised: false });
      this.tell(tenantId, row, q, name, 'cleared', undefined, now);
    }
  }

  private tell(
    tenantId: number,
    row: QueueAlertRow,
    q: QueueBody,
    alert: AlertName,
    state: 'raised' | 'cleared',
    crossed: { value: number; threshold: number } | undefined,
    now: Date,
  ): void {
    const data = {
      queueId: q.queueId,
      queueName: q.name,
      alert,
      state,
      value: crossed?.value ?? null,
      threshold: crossed?.threshold ?? null,
    };
    const type = state === 'raised' ? 'QUEUEALERT' : 'QUEUEALERTCLEARED';
    raiseEvent({ sqlite: this.deps.database.sqlite, clock: { now: () => now.getTime() } }, OPERATOR, {
      tenantId,
      type,
      occurredAt: now.toISOString(),
      data,
    });
    if (row.email === '' || !this.deps.mailer.configured) return;
    const what = crossed ? WORDS[alert](crossed.value, crossed.threshold) : `${alert}: back within its threshold`;
    const subject = `${state === 'raised' ? 'Queue alert' : 'Queue alert cleared'}: ${q.name}: ${what}`;
    this.deps.mailer
      .send({ to: row.email, subject, text: `${subject}\n\nQueue ${q.name} (${q.logName}), ${now.toISOString()}.\n` })
      .catch((err: Error) => this.deps.log.warn({ err: err.message, queueId: q.queueId }, 'queue alert e-mail not sent'));
  }
}

import type { Sqlite } from '../../db/database';
import type { Logger } from '../../log';
import { pbxLogs } from '../pbx-logs/pbx-logs.repository';
import { claimCallEvent, enqueueEvent } from '../webhooks/outbox';
import type { AmiMessage } from './ami-protocol';
import type { LivePbx, LiveQueues } from './live-queues';
import { eventTime } from './live-state';

interface QueueRef {
  readonly id: number;
  readonly tenantId: number;
  readonly name: string;
}

/**
 * Call webhook events as they happen, from AMI, without waiting for the PBX's logs: a caller joining a queue
 * (QueueCallerJoin) is a STARTCALL, sent at once. Its queue_log ENTERQUEUE line (ingested or followed later)
 * then sends nothing, and the other way round (claimCallEvent): each call is announced once per queue.
 * ENDCALL, NEWVOICEMAIL and QUEUECALLABANDONED still come from the CDR and the queue_log (docs/live-queues.md:
 * AMI's QueueCallerAbandon also fires for timeouts, and a call's record is the CDR's).
 */
export class LiveCallEvents {
  private queues = new Map<string, QueueRef>();
  private loadedAt = -Infinity;

  constructor(
    private readonly live: LiveQueues,
    private readonly sqlite: Sqlite,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  start(): void {
    this.live.on('ami', this.onEvent);
  }

  stop(): void {
    this.live.off('ami', this.onEvent);
  }

  /** The stored queues by queue_log name, without case (reporting.md R2), read again at most every 10 s. */
  private queueNamed(name: string): QueueRef | undefined {
    if (this.now() - this.loadedAt > 10_000) {
      const rows = pbxLogs(this.sqlite).queues.all();
      this.queues = new Map(rows.map((r) => [r.logName.toLowerCase(), { id: r.id, tenantId: r.tenantId, name: r.name }]));
      this.loadedAt = this.now();
    }
    return this.queues.get(name.toLowerCase());
  }

  private readonly onEvent = (_pbx: LivePbx, m: AmiMessage, arrived: Date): void => {
    if (m.Event !== 'QueueCallerJoin' || m.Queue === undefined || m.Uniqueid === undefined) return;
    try {
      const queue = this.queueNamed(m.Queue);
      if (!queue) return; // a queue of no tenant's
      const now = this.now();
      const callId = m.Uniqueid;
      this.sqlite.transaction(() => {
        if (!claimCallEvent(this.sqlite, { type: 'STARTCALL', callId, queueId: queue.id }, now)) return;
        const callerIdNum = m.CallerIDNum === undefined || m.CallerIDNum === '<unknown>' ? '' : m.CallerIDNum;
        enqueueEvent(
          this.sqlite,
          {
            tenantId: queue.tenantId,
            type: 'STARTCALL',
            occurredAt: eventTime(m, arrived).toISOString(),
            data: { callId, queueId: queue.id, queueName: queue.name, callerIdNum, source: 'ami' },
          },
          now,
        );
      })();
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'a live call event could not be written');
    }
  };
}

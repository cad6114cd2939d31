import { OPERATOR } from '../../access/caller';
import type { AmiMessage } from '../../ami/ami-protocol';
import type { Clock } from '../../clock';
import type { Db } from '../../db/database';
import type { Logger } from '../../log';
import { amiCallEnded, queueJoined, type LiveEventDeps, type PbxZone } from '../pbx-logs/pbx-logs.service';
import type { LivePbx, LiveQueues } from './live-queues';
import { callerId, eventTime } from './live-state';

/**
 * Call webhook events as they happen, from AMI, without waiting for the PBX's logs:
 * - a caller joining a queue (`QueueCallerJoin`) is a STARTCALL (`source: "ami"`);
 * - a call's CDR (`Cdr`, sent by cdr_manager when the call ends) is an ENDCALL with the call as the calls
 *   report shows it (`id` null: it is not stored until the Master.csv line is imported) and a NEWVOICEMAIL when
 *   it ended in voicemail; the call is placed in its tenant as the CDR importer places a row.
 * The same events of the queue_log line or Master.csv row (ingested or followed later) then send nothing, and
 * the other way round: a call is announced once per queue, its end once. QUEUECALLABANDONED still comes from the
 * queue_log: AMI's QueueCallerAbandon also fires for callers who timed out or left an empty queue. The events
 * are the PBX logs' (src/modules/pbx-logs/live-events.ts); this forwards AMI's to them, as the server (OPERATOR).
 */
export class LiveCallEvents {
  private readonly deps: LiveEventDeps;
  /** The writes of the events received so far, one after the other in the order AMI sent them. */
  private written: Promise<void> = Promise.resolve();

  constructor(
    private readonly live: LiveQueues,
    db: Db,
    private readonly zone: PbxZone,
    private readonly log: Logger,
    clock: Clock,
  ) {
    this.deps = { db, clock };
  }

  start(): void {
    this.live.on('ami', this.onEvent);
  }

  stop(): void {
    this.live.off('ami', this.onEvent);
  }

  /** Resolves when the events received so far are written (or their failures logged). */
  idle(): Promise<void> {
    return this.written;
  }

  private readonly onEvent = (_pbx: LivePbx, m: AmiMessage, arrived: Date): void => {
    if (m.Event !== 'Cdr' && m.Event !== 'QueueCallerJoin') return;
    // One after the other, in the order AMI sent them (a call's STARTCALL before its ENDCALL).
    this.written = this.written.then(() => this.write(m, arrived));
  };

  private async write(m: AmiMessage, arrived: Date): Promise<void> {
    try {
      if (m.Event === 'Cdr') await amiCallEnded(this.deps, OPERATOR, m, this.zone);
      else if (m.Queue !== undefined && m.Uniqueid !== undefined)
        await queueJoined(this.deps, OPERATOR, {
          queueName: m.Queue,
          callId: m.Uniqueid,
          callerIdNum: callerId(m.CallerIDNum),
          occurredAt: eventTime(m, arrived).toISOString(),
        });
    } catch (err) {
      this.log.warn({ err: (err as Error).message, event: m.Event }, 'a live call event could not be written');
    }
  }
}

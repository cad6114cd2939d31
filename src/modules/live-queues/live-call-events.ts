import { ALL_TENANTS } from '../../access/scope';
import type { Sqlite } from '../../db/database';
import type { Logger } from '../../log';
import { extensionOfCall, placeCall } from '../pbx-logs/cdr-importer';
import { callerNameOf, cdrRecordOfAmi } from '../pbx-logs/cdr-line';
import { PbxDirectory } from '../pbx-logs/directory';
import { announceCallEnd } from '../pbx-logs/pbx-events';
import type { PbxZone } from '../pbx-logs/pbx-zone';
import { claimCallEvent, enqueueEvent } from '../webhooks/outbox';
import type { AmiMessage } from '../../ami/ami-protocol';
import type { LivePbx, LiveQueues } from './live-queues';
import { callerId, eventTime } from './live-state';

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/**
 * Call webhook events as they happen, from AMI, without waiting for the PBX's logs:
 * - a caller joining a queue (`QueueCallerJoin`) is a STARTCALL (`source: "ami"`);
 * - a call's CDR (`Cdr`, sent by cdr_manager when the call ends) is an ENDCALL with the call as the calls
 *   report shows it (`id` null: it is not stored until the Master.csv line is imported) and a NEWVOICEMAIL when
 *   it ended in voicemail; the call is placed in its tenant as the CDR importer places a row.
 * The same events of the queue_log line or Master.csv row (ingested or followed later) then send nothing, and
 * the other way round (claimCallEvent): a call is announced once per queue, its end once. QUEUECALLABANDONED
 * still comes from the queue_log: AMI's QueueCallerAbandon also fires for callers who timed out or left an
 * empty queue.
 */
export class LiveCallEvents {
  private directory: PbxDirectory | undefined;
  private loadedAt = -Infinity;

  constructor(
    private readonly live: LiveQueues,
    private readonly sqlite: Sqlite,
    private readonly zone: PbxZone,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  start(): void {
    this.live.on('ami', this.onEvent);
  }

  stop(): void {
    this.live.off('ami', this.onEvent);
  }

  /** The site's queues and extensions (every tenant's: the server places calls on its own behalf), read again at most every 10 s. */
  private site(): PbxDirectory {
    if (!this.directory || this.now() - this.loadedAt > 10_000) {
      if (this.directory) this.directory.reload();
      else this.directory = new PbxDirectory(this.sqlite, ALL_TENANTS);
      this.loadedAt = this.now();
    }
    return this.directory;
  }

  private readonly onEvent = (_pbx: LivePbx, m: AmiMessage, arrived: Date): void => {
    if (m.Event !== 'QueueCallerJoin' && m.Event !== 'Cdr') return;
    try {
      this.sqlite.transaction(() => (m.Event === 'Cdr' ? this.callEnded(m) : this.callerJoined(m, arrived)))();
    } catch (err) {
      this.log.warn({ err: (err as Error).message, event: m.Event }, 'a live call event could not be written');
    }
  };

  private callerJoined(m: AmiMessage, arrived: Date): void {
    const queue = m.Queue === undefined ? undefined : this.site().queueByLogName(m.Queue);
    if (!queue || m.Uniqueid === undefined) return; // a queue of no tenant's
    const now = this.now();
    const callId = m.Uniqueid;
    if (!claimCallEvent(this.sqlite, { type: 'STARTCALL', callId, queueId: queue.id }, now)) return;
    const data = { callId, queueId: queue.id, queueName: queue.name, callerIdNum: callerId(m.CallerIDNum), source: 'ami' };
    enqueueEvent(this.sqlite, { tenantId: queue.tenantId, type: 'STARTCALL', occurredAt: eventTime(m, arrived).toISOString(), data }, now);
  }

  private callEnded(m: AmiMessage): void {
    const r = cdrRecordOfAmi(m, this.zone);
    if (!r) return;
    const call = placeCall(r, this.site());
    if (typeof call === 'string') return; // no tenant's, or several tenants': the importer skips it too
    const record = {
      id: null,
      uniqueId: r.uniqueId,
      start: iso(r.start),
      answer: r.answer === null ? null : iso(r.answer),
      end: iso(r.end),
      direction: call.direction,
      source: r.src,
      destination: r.dst,
      callerName: callerNameOf(r.clid),
      extension: extensionOfCall(call),
      queueId: call.queueId,
      duration: r.duration,
      billsec: r.billsec,
      disposition: r.disposition,
    };
    announceCallEnd(this.sqlite, call.tenantId, r, record, this.now());
  }
}

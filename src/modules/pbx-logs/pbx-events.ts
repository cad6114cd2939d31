import type { Db, Sqlite } from '../../db/database';
import { toCallRecord, type CallRecord } from '../calls/calls.service';
import { OPERATOR } from '../../access/caller';
import {
  claimCall,
  claimCallInChunk,
  raiseEvent,
  raiseEventInChunk,
  type ChunkEventDeps,
  type WebhookEvent,
} from '../webhooks/events.service';
import type { StoredChunk } from './import-run';
import { cdrKey, type CdrRecord } from './cdr-line';
import { pbxLogs } from './pbx-logs.repository';
import { EV } from './queue-log-line';

/**
 * Webhook events from PBX data that arrives live (issue: webhook delivery), written by the importers'
 * per-chunk hook inside the chunk's transaction, so lines and events commit together:
 * - queue_log ENTERQUEUE → STARTCALL; ABANDON → QUEUECALLABANDONED;
 * - a CDR record → ENDCALL (with the record as the calls report shows it), NEWVOICEMAIL when it ended in
 *   voicemail, and STARTCALL first when the call did not pass through a queue (its queue_log ENTERQUEUE
 *   announced it otherwise).
 * Only lines stored now count, so a line imported twice fires once; a STARTCALL, ENDCALL or NEWVOICEMAIL that AMI
 * sent first is not sent again.
 */
export interface PbxEventHook {
  /** Whether chunks fire events now: HTTP ingest always; follow mode once it has caught up with the file. */
  live: boolean;
  readonly onChunk: (sqlite: Sqlite, chunk: StoredChunk) => void;
}

export function pbxEventHook(now: () => number, live: boolean): PbxEventHook {
  const hook: PbxEventHook = {
    live,
    onChunk(sqlite, chunk) {
      if (!hook.live) return;
      const at = now();
      if (chunk.kind === 'queue-log') queueLogEvents(sqlite, chunk, at);
      else cdrEvents(sqlite, chunk, at);
    },
  };
  return hook;
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** The events of a chunk are the server's own doing (the import already kept to its caller's tenants): OPERATOR raises them. */
const eventDeps = (sqlite: Sqlite, now: number): ChunkEventDeps => ({ sqlite, clock: { now: () => now } });
const claimInChunk = (sqlite: Sqlite, claim: { type: string; callId: string; queueId: number }, now: number) =>
  claimCallInChunk(eventDeps(sqlite, now), OPERATOR, claim);
const enqueueInChunk = (sqlite: Sqlite, event: WebhookEvent, now: number) => raiseEventInChunk(eventDeps(sqlite, now), OPERATOR, event);

function queueLogEvents(sqlite: Sqlite, chunk: Extract<StoredChunk, { kind: 'queue-log' }>, now: number): void {
  const repo = pbxLogs(sqlite);
  for (const { queueId, event } of chunk.items) {
    if (event.code !== EV.ENTERQUEUE && event.code !== EV.ABANDON) continue;
    const queue = repo.queueById.get({ queue: queueId });
    if (!queue) continue;
    const base = { callId: event.callid, queueId, queueName: queue.name };
    if (event.code === EV.ENTERQUEUE) {
      // AMI may have announced it already (src/modules/live-queues/live-call-events.ts).
      if (!claimInChunk(sqlite, { type: 'STARTCALL', callId: event.callid, queueId }, now)) continue;
      enqueueInChunk(
        sqlite,
        {
          tenantId: queue.tenantId,
          type: 'STARTCALL',
          occurredAt: iso(event.time),
          data: { ...base, callerIdNum: event.callerIdNum ?? '', source: 'queue_log' },
        },
        now,
      );
    } else {
      enqueueInChunk(
        sqlite,
        { tenantId: queue.tenantId, type: 'QUEUECALLABANDONED', occurredAt: iso(event.time), data: { ...base, waitTime: event.waitTime } },
        now,
      );
    }
  }
}

function cdrEvents(sqlite: Sqlite, chunk: Extract<StoredChunk, { kind: 'cdr' }>, now: number): void {
  const repo = pbxLogs(sqlite);
  for (const { id, tenantId, record } of chunk.items) {
    const row = repo.callById.get({ id });
    if (!row) continue;
    const call = toCallRecord(row);
    if (record.lastApp !== 'Queue') {
      enqueueInChunk(sqlite, { tenantId, type: 'STARTCALL', occurredAt: call.start, data: { ...call, source: 'cdr' } }, now);
    }
    announceCallEndInChunk(sqlite, tenantId, record, call, now);
  }
}

type CallOfCdr = Omit<CallRecord, 'id'> & { readonly id: number | null };

/** The events of a call's end: ENDCALL and, when it ended in voicemail, NEWVOICEMAIL with its mailbox. */
function callEndEvents(tenantId: number, record: CdrRecord, call: CallOfCdr): WebhookEvent[] {
  const events: WebhookEvent[] = [{ tenantId, type: 'ENDCALL', occurredAt: call.end, data: call }];
  if (record.lastApp === 'VoiceMail') {
    const data = { ...call, mailbox: record.lastData.split(',')[0] ?? '' };
    events.push({ tenantId, type: 'NEWVOICEMAIL', occurredAt: call.end, data });
  }
  return events;
}

/**
 * A call's end: ENDCALL with the call as the calls report shows it (`id` null when it is not stored yet) and,
 * when it ended in voicemail, NEWVOICEMAIL with its mailbox. Sent once, by whichever of its two sources comes
 * first: the Master.csv row (the importer, announceCallEndInChunk), AMI's Cdr event as it happens
 * (src/modules/live-queues/live-call-events.ts). `trx` is the transaction the claim and the events commit in.
 */
export async function announceCallEnd(trx: Db, tenantId: number, record: CdrRecord, call: CallOfCdr, now: number): Promise<void> {
  const deps = { db: trx, clock: { now: () => now } };
  if (!(await claimCall(deps, OPERATOR, { type: 'ENDCALL', callId: cdrKey(record), queueId: 0 }))) return;
  for (const event of callEndEvents(tenantId, record, call)) await raiseEvent(deps, OPERATOR, event);
}

/** announceCallEnd inside an import chunk's SQLite transaction (the importer's synchronous form). */
function announceCallEndInChunk(sqlite: Sqlite, tenantId: number, record: CdrRecord, call: CallOfCdr, now: number): void {
  if (!claimInChunk(sqlite, { type: 'ENDCALL', callId: cdrKey(record), queueId: 0 }, now)) return;
  for (const event of callEndEvents(tenantId, record, call)) enqueueInChunk(sqlite, event, now);
}

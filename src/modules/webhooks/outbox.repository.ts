import { randomBytes } from 'node:crypto';
import type { Db, Sqlite } from '../../db/database';
import { preparedStatements, statement } from '../../db/statements';

/** An event this server produces (src/modules/webhooks/event-types.ts lists the types). */
export interface WebhookEvent {
  readonly tenantId: number;
  readonly type: string;
  /** When it happened, ISO 8601 UTC. */
  readonly occurredAt: string;
  readonly data: unknown;
}

/** The body a subscriber receives. `id` is also the webhook-id header: stable across retries. */
export interface DeliveryPayload {
  id: string;
  type: string;
  tenantId: number;
  occurredAt: string;
  data: unknown;
}

/**
 * Writes one delivery per enabled webhook of the event's tenant and type into the outbox; returns how many. Give it
 * the transaction of the change that caused the event (`transaction()`, src/db/database.ts), so that the two commit
 * or roll back together: on PostgreSQL a write through the pool instead would commit on another connection.
 */
export async function enqueueEvent(db: Db, event: WebhookEvent, now: number): Promise<number> {
  const hooks = await db
    .selectFrom('webhooks')
    .select('id')
    .where('tenant_id', '=', event.tenantId)
    .where('type', '=', event.type)
    .where('disabled_at', 'is', null)
    .orderBy('id')
    .execute();
  if (hooks.length === 0) return 0;
  await db
    .insertInto('webhook_deliveries')
    .values(hooks.map((hook) => deliveryOf(hook.id, event, now)))
    .execute();
  return hooks.length;
}

/** How long a sent call event is remembered: a queue_log line arrives within seconds of its AMI event (or hours, a late import). */
export const CALL_EVENTS_KEPT_MS = 2 * 86_400_000;

/**
 * Claims a call event that two sources can announce (AMI as it happens, the queue_log line after it): true for the
 * first to ask, which sends it; false for the other. Give it the transaction of the send. On PostgreSQL two claims at
 * once: the second INSERT waits for the first's uncommitted key and then does nothing (ON CONFLICT DO NOTHING).
 */
export async function claimCallEvent(db: Db, claim: { type: string; callId: string; queueId: number }, now: number): Promise<boolean> {
  const res = await db
    .insertInto('call_events_sent')
    .values({ event_type: claim.type, call_id: claim.callId, queue_id: claim.queueId, sent_at: now })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Forgets the call events sent more than CALL_EVENTS_KEPT_MS ago (the server's job, hourly); returns how many. */
export async function forgetCallEvents(db: Db, now: number): Promise<number> {
  const res = await db
    .deleteFrom('call_events_sent')
    .where('sent_at', '<', now - CALL_EVENTS_KEPT_MS)
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

/*
 * The PBX log importer's forms of the two writes (its per-chunk hook runs synchronously inside the chunk's
 * better-sqlite3 transaction, src/modules/pbx-logs/import-run.ts): the same rows through prepared statements on the
 * raw SQLite connection, prepared once per connection (a bulk import with --emit-events calls them for every call).
 * Only the importer's chunk path uses them; everything else goes through the async functions above.
 */

/** enqueueEvent inside an import chunk's SQLite transaction. */
export function enqueueEventInChunk(sqlite: Sqlite, event: WebhookEvent, now: number): number {
  const { hooksOf, insert } = statementsOf(sqlite);
  const hooks = hooksOf.all({ tenantId: event.tenantId, type: event.type });
  for (const hook of hooks) {
    const d = deliveryOf(hook.id, event, now);
    insert.run({
      webhookId: d.webhook_id,
      tenantId: d.tenant_id,
      messageId: d.message_id,
      type: d.event_type,
      payload: d.payload,
      now,
      createdAt: d.created_at,
    });
  }
  return hooks.length;
}

/** claimCallEvent inside an import chunk's SQLite transaction. */
export function claimCallEventInChunk(sqlite: Sqlite, claim: { type: string; callId: string; queueId: number }, now: number): boolean {
  return statementsOf(sqlite).claimEvent.run({ ...claim, now }).changes > 0;
}

/** The outbox row of one event for one webhook: a new message id (the webhook-id header, kept across retries). */
function deliveryOf(webhookId: number, event: WebhookEvent, now: number) {
  const id = `msg_${randomBytes(16).toString('base64url')}`;
  const payload: DeliveryPayload = { id, type: event.type, tenantId: event.tenantId, occurredAt: event.occurredAt, data: event.data };
  return {
    webhook_id: webhookId,
    tenant_id: event.tenantId,
    message_id: id,
    event_type: event.type,
    payload: JSON.stringify(payload),
    status: 'pending' as const,
    next_attempt_at: now,
    created_at: new Date(now).toISOString(),
  };
}

interface NewDelivery {
  webhookId: number;
  tenantId: number;
  messageId: string;
  type: string;
  payload: string;
  now: number;
  createdAt: string;
}

/** Prepared once per connection: a bulk import with --emit-events calls this for every call. */
const statementsOf = preparedStatements({
  hooksOf: statement<{ tenantId: number; type: string }, { id: number }>(
    'SELECT id FROM webhooks WHERE tenant_id = @tenantId AND type = @type AND disabled_at IS NULL ORDER BY id',
  ),
  claimEvent: statement<{ type: string; callId: string; queueId: number; now: number }>(
    'INSERT OR IGNORE INTO call_events_sent (event_type, call_id, queue_id, sent_at) VALUES (@type, @callId, @queueId, @now)',
  ),
  insert: statement<NewDelivery>(
    `INSERT INTO webhook_deliveries (webhook_id, tenant_id, message_id, event_type, payload, status, next_attempt_at, created_at)
     VALUES (@webhookId, @tenantId, @messageId, @type, @payload, 'pending', @now, @createdAt)`,
  ),
});

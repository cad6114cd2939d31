import { randomBytes } from 'node:crypto';
import type { Sqlite } from '../../db/database';
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
 * Writes one delivery per enabled webhook of the event's tenant and type into the outbox. It must be
 * called inside the transaction of the change that caused the event, so the two commit or roll back
 * together; it is synchronous and uses the raw connection because it is called both from Kysely
 * transactions (same connection) and from the importer's better-sqlite3 transactions. Returns the number
 * of deliveries written.
 */
export function enqueueEvent(sqlite: Sqlite, event: WebhookEvent, now: number): number {
  const { hooksOf, insert } = statementsOf(sqlite);
  const hooks = hooksOf.all({ tenantId: event.tenantId, type: event.type });
  if (hooks.length === 0) return 0;
  const createdAt = new Date(now).toISOString();
  for (const hook of hooks) {
    const id = `msg_${randomBytes(16).toString('base64url')}`;
    const payload: DeliveryPayload = { id, type: event.type, tenantId: event.tenantId, occurredAt: event.occurredAt, data: event.data };
    insert.run({
      webhookId: hook.id,
      tenantId: event.tenantId,
      messageId: id,
      type: event.type,
      payload: JSON.stringify(payload),
      now,
      createdAt,
    });
  }
  return hooks.length;
}

/** How long a sent call event is remembered: a queue_log line arrives within seconds of its AMI event (or hours, a late import). */
export const CALL_EVENTS_KEPT_MS = 2 * 86_400_000;

/**
 * Claims a call event that two sources can announce (AMI as it happens, the queue_log line after it):
 * true for the first to ask, which sends it; false for the other. Call it in the transaction of the send.
 */
export function claimCallEvent(sqlite: Sqlite, claim: { type: string; callId: string; queueId: number }, now: number): boolean {
  return statementsOf(sqlite).claimEvent.run({ ...claim, now }).changes > 0;
}

/** Forgets the call events sent more than CALL_EVENTS_KEPT_MS ago (the server's job, hourly); returns how many. */
export function forgetCallEvents(sqlite: Sqlite, now: number): number {
  return statementsOf(sqlite).forgetEvents.run({ before: now - CALL_EVENTS_KEPT_MS }).changes;
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
  forgetEvents: statement<{ before: number }>('DELETE FROM call_events_sent WHERE sent_at < @before'),
  insert: statement<NewDelivery>(
    `INSERT INTO webhook_deliveries (webhook_id, tenant_id, message_id, event_type, payload, status, next_attempt_at, created_at)
     VALUES (@webhookId, @tenantId, @messageId, @type, @payload, 'pending', @now, @createdAt)`,
  ),
});

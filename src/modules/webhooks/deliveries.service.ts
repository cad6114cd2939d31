import type { SchemaTypes } from '../../validation/schema-types';
import type { Clock } from '../../clock';
import { transaction, type Db } from '../../db/database';
import { conflict, notFound } from '../../errors';
import type { Caller } from '../../access/caller';
import { pageOf, pageWindow, type Page, type PageQuery } from '../../access/paging';
import {
  disabledReason,
  findDelivery,
  listDeliveries,
  readSecret,
  replaceSecret,
  requeueDelivery,
  type Delivery,
} from './deliveries.repository';
import { newWebhookSecret } from './secret';
import { findWebhook } from './webhooks.repository';

/** How long deliveries are also signed with the old secret after a rotation. */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

export type ApiDelivery = SchemaTypes['webhook-delivery-page']['records'][number];

export type ApiSecret = SchemaTypes['webhook-secret'];

/** What this service uses (docs/architecture.md, "The service shape"). */
export interface DeliveryDeps {
  readonly db: Db;
  readonly clock: Clock;
}

async function visibleWebhook(db: Db, caller: Caller, id: number) {
  const hook = await findWebhook(db, caller.scope, id);
  if (!hook) throw notFound(`Webhook ${id}`);
  return hook;
}

function toApiDelivery(d: Delivery): ApiDelivery {
  const waiting = d.status === 'pending' || d.status === 'retry';
  return {
    id: d.id,
    messageId: d.message_id,
    eventType: d.event_type,
    status: d.status,
    attempts: d.attempts,
    lastStatusCode: d.last_status_code,
    lastError: d.last_error,
    createdAt: d.created_at,
    nextAttemptAt: waiting ? new Date(d.next_attempt_at).toISOString() : null,
    deliveredAt: d.delivered_at,
  };
}

export async function webhookDeliveries(
  { db }: Pick<DeliveryDeps, 'db'>,
  caller: Caller,
  webhookId: number,
  q: PageQuery,
): Promise<Page<ApiDelivery>> {
  await visibleWebhook(db, caller, webhookId);
  const { rows, total } = await listDeliveries(db, caller.scope, webhookId, pageWindow(q));
  return pageOf(rows.map(toApiDelivery), total, q);
}

export async function webhookSecret(deps: DeliveryDeps, caller: Caller, webhookId: number): Promise<ApiSecret> {
  const { db } = deps;
  const now = deps.clock.now();
  await visibleWebhook(db, caller, webhookId);
  const row = await readSecret(db, caller.scope, webhookId);
  const until = row.previous_secret_until;
  return { secret: row.secret, previousSecretValidUntil: until !== null && until > now ? new Date(until).toISOString() : null };
}

/** A new secret signs from now on; the old one signs as well for ROTATION_GRACE_MS, so receivers can switch. */
export async function rotateSecret(deps: DeliveryDeps, caller: Caller, webhookId: number): Promise<ApiSecret> {
  return transaction(deps.db, async (trx) => {
    await visibleWebhook(trx, caller, webhookId);
    await replaceSecret(trx, caller.scope, webhookId, newWebhookSecret(), deps.clock.now() + ROTATION_GRACE_MS);
    return webhookSecret({ ...deps, db: trx }, caller, webhookId);
  });
}

/**
 * POST /v2/webhooks/{webhookId}/deliveries/{deliveryId}/retry: a delivery that failed (or met a 410) is sent again
 * with the same webhook-id and body, so a receiver that deduplicates by webhook-id sees it once. It gets a new round
 * of attempts (TARS_WEBHOOK_ATTEMPTS), due now; the webhook's older open deliveries still go first. 409 when it is
 * not failed or gone (delivered, or still being tried), or when its webhook is disabled (save the webhook to enable it).
 */
export async function retryDelivery(deps: DeliveryDeps, caller: Caller, webhookId: number, deliveryId: number): Promise<ApiDelivery> {
  return transaction(deps.db, async (trx) => {
    await visibleWebhook(trx, caller, webhookId);
    const d = await findDelivery(trx, caller.scope, webhookId, deliveryId);
    if (!d) throw notFound(`Delivery ${deliveryId} of webhook ${webhookId}`);
    if (d.status !== 'failed' && d.status !== 'gone')
      throw conflict(`Delivery ${deliveryId} is ${d.status}, not failed: only a failed delivery is retried`);
    const disabled = await disabledReason(trx, caller.scope, webhookId);
    if (disabled) throw conflict(`Webhook ${webhookId} is disabled (${disabled}): save it again to enable it, then retry`);
    if (!(await requeueDelivery(trx, caller.scope, d, deps.clock.now())))
      throw conflict(`Delivery ${deliveryId} changed meanwhile: read it again`);
    return toApiDelivery((await findDelivery(trx, caller.scope, webhookId, deliveryId)) as Delivery);
  });
}

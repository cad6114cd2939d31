import type { Db } from '../../db/database';
import { badRequest, notFound } from '../../errors';
import type { Caller } from '../../access/caller';
import { requireTenant } from '../../access/scope';
import { getTenantRef } from '../tenants/tenants.repository';
import { WEBHOOK_EVENT_TYPES } from './event-types';
import type { UrlPolicy } from '../../net/url-policy';
import {
  toApiWebhook,
  toWebhookListItem,
  type ApiWebhook,
  type ApiWebhookListItem,
  type WebhookCreate,
  type WebhookUpdate,
} from './webhook';
import { deleteWebhook, findWebhook, insertWebhook, listWebhooks, updateWebhookColumns } from './webhooks.repository';

export function webhookTypes(): Array<{ type: string; description: string }> {
  return WEBHOOK_EVENT_TYPES.map(({ type, description }) => ({ type, description }));
}

/** api.md §4.8: the list names its tenant (required by the query schema). */
export async function listTenantWebhooks(db: Db, caller: Caller, tenantId: number): Promise<ApiWebhookListItem[]> {
  return (await listWebhooks(db, requireTenant(caller.scope, tenantId))).map(toWebhookListItem);
}

export async function getWebhook(db: Db, caller: Caller, id: number): Promise<ApiWebhook> {
  const row = await findWebhook(db, caller.scope, id);
  if (!row) throw notFound(`Webhook ${id}`);
  return toApiWebhook(row);
}

/** The operator's destination policy, checked when a webhook is saved (and again at every delivery). */
function checkDestination(policy: UrlPolicy, url: string | undefined): void {
  if (url === undefined) return;
  const refused = policy.denied(new URL(url).hostname);
  if (refused) throw badRequest(`url: ${refused}`);
}

export async function createWebhook(
  db: Db,
  caller: Caller,
  input: WebhookCreate,
  createdAt: string,
  policy: UrlPolicy,
): Promise<ApiWebhook> {
  checkDestination(policy, input.url);
  const tenantScope = requireTenant(caller.scope, input.tenantId);
  return db.transaction().execute(async (trx) => {
    await getTenantRef(trx, tenantScope);
    return getWebhook(trx, caller, await insertWebhook(trx, input, createdAt));
  });
}

export async function updateWebhook(db: Db, caller: Caller, id: number, patch: WebhookUpdate, policy: UrlPolicy): Promise<ApiWebhook> {
  checkDestination(policy, patch.url);
  return db.transaction().execute(async (trx) => {
    await getWebhook(trx, caller, id);
    await updateWebhookColumns(trx, caller.scope, id, patch);
    return getWebhook(trx, caller, id);
  });
}

/** Deletes a webhook in one transaction with reading it; returns it as it was. */
export async function removeWebhook(db: Db, caller: Caller, id: number): Promise<ApiWebhook> {
  return db.transaction().execute(async (trx) => {
    const webhook = await getWebhook(trx, caller, id);
    await deleteWebhook(trx, caller.scope, id);
    return webhook;
  });
}

import { isoNow, type Clock } from '../../clock';
import type { Config } from '../../config';
import { transaction, type Db } from '../../db/database';
import { badRequest, notFound } from '../../errors';
import type { Caller } from '../../access/caller';
import { requireTenant } from '../../access/scope';
import { getTenantRef } from '../tenants/tenants.repository';
import { WEBHOOK_EVENT_TYPES } from './event-types';

export { registerWebhookTypeFormat } from './event-types';
import { createUrlPolicy, type UrlPolicy } from '../../net/url-policy';
import {
  toApiWebhook,
  toWebhookListItem,
  type ApiWebhook,
  type ApiWebhookListItem,
  type WebhookCreate,
  type WebhookUpdate,
} from './webhook';
import { deleteWebhook, findWebhook, insertWebhook, listWebhooks, updateWebhookColumns } from './webhooks.repository';

/** What this service uses (docs/architecture.md, "The service shape"): the operator's destination lists among the settings. */
export interface WebhookDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly config: Pick<Config, 'webhookAllow' | 'webhookDeny'>;
}

/** The operator's destination policy, made once per configuration. */
const policies = new WeakMap<WebhookDeps['config'], UrlPolicy>();
function policyOf(config: WebhookDeps['config']): UrlPolicy {
  let policy = policies.get(config);
  if (!policy) policies.set(config, (policy = createUrlPolicy(config.webhookAllow, config.webhookDeny)));
  return policy;
}

export function webhookTypes(): Array<{ type: string; description: string }> {
  return WEBHOOK_EVENT_TYPES.map(({ type, description }) => ({ type, description }));
}

/** api.md §4.8: the list names its tenant (required by the query schema). */
export async function listTenantWebhooks({ db }: Pick<WebhookDeps, 'db'>, caller: Caller, tenantId: number): Promise<ApiWebhookListItem[]> {
  return (await listWebhooks(db, requireTenant(caller.scope, tenantId))).map(toWebhookListItem);
}

export async function getWebhook({ db }: Pick<WebhookDeps, 'db'>, caller: Caller, id: number): Promise<ApiWebhook> {
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

export async function createWebhook(deps: WebhookDeps, caller: Caller, input: WebhookCreate): Promise<ApiWebhook> {
  checkDestination(policyOf(deps.config), input.url);
  const tenantScope = requireTenant(caller.scope, input.tenantId);
  return transaction(deps.db, async (trx) => {
    await getTenantRef(trx, tenantScope);
    return getWebhook({ db: trx }, caller, await insertWebhook(trx, input, isoNow(deps.clock)));
  });
}

export async function updateWebhook(deps: WebhookDeps, caller: Caller, id: number, patch: WebhookUpdate): Promise<ApiWebhook> {
  checkDestination(policyOf(deps.config), patch.url);
  return transaction(deps.db, async (trx) => {
    await getWebhook({ db: trx }, caller, id);
    await updateWebhookColumns(trx, caller.scope, id, patch);
    return getWebhook({ db: trx }, caller, id);
  });
}

/** Deletes a webhook in one transaction with reading it; returns it as it was. */
export async function removeWebhook(deps: Pick<WebhookDeps, 'db'>, caller: Caller, id: number): Promise<ApiWebhook> {
  return transaction(deps.db, async (trx) => {
    const webhook = await getWebhook({ db: trx }, caller, id);
    await deleteWebhook(trx, caller.scope, id);
    return webhook;
  });
}

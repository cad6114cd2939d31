import { isoNow } from '../../clock';
import type { AppDeps } from '../../deps';
import { route, type RouteDef } from '../../http/route';
import { createUrlPolicy } from '../../net/url-policy';
import { createWebhook, getWebhook, listTenantWebhooks, removeWebhook, updateWebhook, webhookTypes } from './webhooks.service';

export function webhookRoutes(deps: AppDeps): RouteDef[] {
  const { db } = deps.database;
  const policy = createUrlPolicy(deps.config.webhookAllow, deps.config.webhookDeny);
  const tag = 'Webhooks';
  const path = '/v2/webhooks';
  return [
    route({
      method: 'get',
      path,
      tag,
      summary: "List a tenant's webhooks (tenantId required; list form)",
      permission: 'webhooks.read',
      query: 'webhook-list-query',
      response: 'webhook-list',
      handler: ({ caller, query }) => listTenantWebhooks(db, caller, query.tenantId),
    }),
    route({
      method: 'post',
      path,
      tag,
      summary: 'Create a webhook',
      addition: true,
      permission: 'webhooks.create',
      body: 'webhook-create',
      response: 'webhook',
      handler: ({ caller, body }) => createWebhook(db, caller, body, isoNow(deps.clock), policy),
    }),
    route({
      method: 'get',
      path: `${path}/list-types`,
      tag,
      summary: 'The webhook event types, with what triggers each',
      addition: true,
      permission: 'webhooks.read',
      response: 'webhook-types',
      handler: () => webhookTypes(),
    }),
    route({
      method: 'get',
      path: `${path}/:webhookId`,
      tag,
      summary: 'Read one webhook',
      permission: 'webhooks.read',
      params: 'webhook-id-params',
      response: 'webhook',
      handler: ({ caller, params }) => getWebhook(db, caller, params.webhookId),
    }),
    route({
      method: 'patch',
      path: `${path}/:webhookId`,
      tag,
      summary: 'Change a webhook',
      addition: true,
      permission: 'webhooks.update',
      params: 'webhook-id-params',
      body: 'webhook-update',
      response: 'webhook',
      handler: ({ caller, params, body }) => updateWebhook(db, caller, params.webhookId, body, policy),
    }),
    route({
      method: 'delete',
      path: `${path}/:webhookId`,
      tag,
      summary: 'Delete a webhook',
      permission: 'webhooks.delete',
      params: 'webhook-id-params',
      response: 'webhook',
      handler: ({ caller, params }) => removeWebhook(db, caller, params.webhookId),
    }),
  ];
}

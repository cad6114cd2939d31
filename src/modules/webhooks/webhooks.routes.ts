import { route, type RouteDef } from '../../http/route';
import {
  createWebhook,
  getWebhook,
  listTenantWebhooks,
  removeWebhook,
  updateWebhook,
  webhookTypes,
  type WebhookDeps,
} from './webhooks.service';

export function webhookRoutes(deps: WebhookDeps): RouteDef[] {
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
      handler: ({ caller, query }) => listTenantWebhooks(deps, caller, query.tenantId),
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
      handler: ({ caller, body }) => createWebhook(deps, caller, body),
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
      handler: ({ caller, params }) => getWebhook(deps, caller, params.webhookId),
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
      handler: ({ caller, params, body }) => updateWebhook(deps, caller, params.webhookId, body),
    }),
    route({
      method: 'delete',
      path: `${path}/:webhookId`,
      tag,
      summary: 'Delete a webhook',
      permission: 'webhooks.delete',
      params: 'webhook-id-params',
      response: 'webhook',
      handler: ({ caller, params }) => removeWebhook(deps, caller, params.webhookId),
    }),
  ];
}

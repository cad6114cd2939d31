import type { AppDeps } from '../../deps';
import type { PageQuery } from '../../access/paging';
import { route, type RouteDef } from '../../http/route';
import { rotateSecret, webhookDeliveries, webhookSecret } from './deliveries.service';

/** Delivery-side routes of a webhook (additions to the hosted API): its signing secret and its deliveries. */
export function webhookDeliveryRoutes(deps: AppDeps): RouteDef[] {
  const { db } = deps.database;
  const tag = 'Webhooks';
  const path = '/v2/webhooks/:webhookId';
  return [
    route<unknown, PageQuery, { webhookId: number }>({
      method: 'get',
      path: `${path}/deliveries`,
      tag,
      summary: "A webhook's deliveries, newest first, with status, attempts and the last response code",
      addition: true,
      permission: 'webhooks.read',
      params: 'path-params',
      query: 'paging-query',
      response: 'webhook-delivery-page',
      handler: ({ caller, params, query }) => webhookDeliveries(db, caller, params.webhookId, query),
    }),
    route<unknown, unknown, { webhookId: number }>({
      method: 'get',
      path: `${path}/secret`,
      tag,
      summary: "The webhook's signing secret (Standard Webhooks, whsec_…)",
      addition: true,
      permission: 'webhooks.read',
      params: 'path-params',
      response: 'webhook-secret',
      handler: ({ caller, params }) => webhookSecret(db, caller, params.webhookId, deps.clock.now()),
    }),
    route<unknown, unknown, { webhookId: number }>({
      method: 'post',
      path: `${path}/secret/rotate`,
      tag,
      summary: 'Replace the signing secret; the old one keeps signing alongside for 24 hours',
      addition: true,
      permission: 'webhooks.update',
      params: 'path-params',
      response: 'webhook-secret',
      handler: ({ caller, params }) => rotateSecret(db, caller, params.webhookId, deps.clock.now()),
    }),
  ];
}

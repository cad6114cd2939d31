import { route, type RouteDef } from '../../http/route';
import { retryDelivery, rotateSecret, webhookDeliveries, webhookSecret, type DeliveryDeps } from './deliveries.service';

/** Delivery-side routes of a webhook (additions to the hosted API): its signing secret and its deliveries. */
export function webhookDeliveryRoutes(deps: DeliveryDeps): RouteDef[] {
  const tag = 'Webhooks';
  const path = '/v2/webhooks/:webhookId';
  return [
    route({
      method: 'get',
      path: `${path}/deliveries`,
      tag,
      summary: "A webhook's deliveries, newest first, with status, attempts and the last response code",
      addition: true,
      permission: 'webhooks.read',
      params: 'webhook-id-params',
      query: 'paging-query',
      response: 'webhook-delivery-page',
      handler: ({ caller, params, query }) => webhookDeliveries(deps, caller, params.webhookId, query),
    }),
    route({
      method: 'post',
      path: `${path}/deliveries/:deliveryId/retry`,
      tag,
      summary: 'Send a failed delivery again, with the same webhook-id and body (a new round of attempts, due now)',
      addition: true,
      permission: 'webhooks.update',
      params: 'webhook-delivery-params',
      response: 'webhook-delivery',
      handler: ({ caller, params }) => retryDelivery(deps, caller, params.webhookId, params.deliveryId),
    }),
    route({
      method: 'get',
      path: `${path}/secret`,
      tag,
      summary: "The webhook's signing secret (Standard Webhooks, whsec_…)",
      addition: true,
      permission: 'webhooks.read',
      params: 'webhook-id-params',
      response: 'webhook-secret',
      handler: ({ caller, params }) => webhookSecret(deps, caller, params.webhookId),
    }),
    route({
      method: 'post',
      path: `${path}/secret/rotate`,
      tag,
      summary: 'Replace the signing secret; the old one keeps signing alongside for 24 hours',
      addition: true,
      permission: 'webhooks.update',
      params: 'webhook-id-params',
      response: 'webhook-secret',
      handler: ({ caller, params }) => rotateSecret(deps, caller, params.webhookId),
    }),
  ];
}

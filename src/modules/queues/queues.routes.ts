import { route, type RouteDef } from '../../http/route';
import { callQueues, changeQueue, createQueue, getQueue, removeQueue, type QueueDeps } from './queues.service';

/**
 * Queues: `GET /v2/queues?tenantId=` is the hosted API's list (CallQueue[]); the rest is an addition for the
 * site's directory (docs/api.md "Directory").
 */
export function queueRoutes(deps: QueueDeps): RouteDef[] {
  const tag = 'Directory';
  const path = '/v2/queues';
  return [
    route({
      method: 'get',
      path,
      tag,
      summary: "List a tenant's call queues",
      permission: 'admin.queues.read',
      query: 'queue-list-query',
      response: 'call-queue-list',
      handler: ({ caller, query }) => callQueues(deps, caller, query),
    }),
    route({
      method: 'post',
      path,
      tag,
      summary: 'Create a queue (its queue_log name and static members)',
      addition: true,
      permission: 'admin.queues.create',
      body: 'queue-create',
      response: 'queue',
      handler: ({ caller, body }) => createQueue(deps, caller, body),
    }),
    route({
      method: 'get',
      path: `${path}/:queueId`,
      tag,
      summary: 'Read one queue with its static members',
      addition: true,
      permission: 'admin.queues.read',
      params: 'queue-id-params',
      response: 'queue',
      handler: ({ caller, params }) => getQueue(deps, caller, params.queueId),
    }),
    route({
      method: 'patch',
      path: `${path}/:queueId`,
      tag,
      summary: 'Change a queue',
      addition: true,
      permission: 'admin.queues.update',
      params: 'queue-id-params',
      body: 'queue-update',
      response: 'queue',
      handler: ({ caller, params, body }) => changeQueue(deps, caller, params.queueId, body),
    }),
    route({
      method: 'delete',
      path: `${path}/:queueId`,
      tag,
      summary: 'Delete a queue (with cascade=1, also its stored log lines and reports)',
      addition: true,
      permission: 'admin.queues.delete',
      params: 'queue-id-params',
      query: 'queue-delete-query',
      response: 'queue',
      handler: ({ caller, params, query }) => removeQueue(deps, caller, params.queueId, query.cascade === 1),
    }),
  ];
}

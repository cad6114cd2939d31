import type { AppDeps } from '../../deps';
import { route, type RouteDef } from '../../http/route';
import { liveQueuesOf } from './live.service';

/** The live layer's routes: additions to the hosted API (docs/live-queues.md). */
export function liveQueueRoutes(deps: AppDeps): RouteDef[] {
  const live = { db: deps.database.db, live: deps.live, now: () => new Date(deps.clock.now()) };
  return [
    route({
      method: 'get',
      path: '/v2/reporting/queues/live',
      tag: 'Live queues',
      summary: "A tenant's queues now: callers waiting, members and their state, today's counters",
      addition: true,
      permission: 'reporting.queues.read',
      query: 'queue-list-query',
      response: 'live-queues',
      handler: ({ caller, query }) => liveQueuesOf(live, caller, query),
    }),
  ];
}

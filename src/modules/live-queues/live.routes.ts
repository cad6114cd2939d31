import { bearerToken, resolveCaller } from '../../access/caller';
import { inScope } from '../../access/scope';
import type { AppDeps } from '../../deps';
import { route, streamRoute, type RouteDef } from '../../http/route';
import { LiveStreams, type LiveStreamOptions, type StillAllowed } from './live-stream';
import { liveQueuesOf, liveTenant } from './live.service';

const PERMISSION = 'reporting.queues.read';

/** The live layer's routes: additions to the hosted API (docs/live-queues.md). */
export function liveQueueRoutes(deps: AppDeps, options?: LiveStreamOptions): RouteDef[] {
  const { db } = deps.database;
  const live = { db, live: deps.live, now: () => new Date(deps.clock.now()) };
  const streams = new LiveStreams(live, options);
  // A stream outlives the request that opened it: its caller is checked again at every refresh.
  const stillAllowed =
    (tenantId: number): StillAllowed =>
    async (req) => {
      try {
        const caller = await resolveCaller(db, deps.tokens, bearerToken(req.headers.authorization));
        return caller.permissions.has(PERMISSION) && inScope(caller.scope, tenantId);
      } catch {
        return false;
      }
    };
  return [
    route({
      method: 'get',
      path: '/v2/reporting/queues/live',
      tag: 'Live queues',
      summary: "A tenant's queues now: callers waiting, members and their state, today's counters",
      addition: true,
      permission: PERMISSION,
      query: 'queue-list-query',
      response: 'live-queues',
      handler: ({ caller, query }) => liveQueuesOf(live, caller, query),
    }),
    streamRoute({
      method: 'get',
      path: '/v2/reporting/queues/live/stream',
      tag: 'Live queues',
      summary: 'The same as Server-Sent Events: the whole state, then every change (Last-Event-ID resumes)',
      addition: true,
      permission: PERMISSION,
      query: 'queue-list-query',
      response: 'live-queues',
      handler: async ({ caller, query }) => {
        const { tenantId, scope } = liveTenant(caller.scope, query.tenantId);
        return streams.open(tenantId, scope, stillAllowed(tenantId));
      },
    }),
  ];
}

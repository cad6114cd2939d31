import { bearerToken, resolveCaller, type TokenVerifier } from '../../access/caller';
import { inScope } from '../../access/scope';
import { route, streamRoute, type RouteDef } from '../../http/route';
import { LiveStreams, type LiveStreamOptions, type StillAllowed } from './live-stream';
import { agentDnd, agentLogin, agentPause, agentStatus } from './agents.service';
import { getQueueAlerts, setQueueAlerts } from './alerts.service';
import { liveQueuesOf, liveTenant, type LiveDeps } from './live.service';

const PERMISSION = 'reporting.queues.read';

/** The live layer's routes: additions to the hosted API (docs/live-queues.md). */
/** What the live routes use: the live layer's deps, and the token check a stream repeats at every refresh. */
export interface LiveRouteDeps extends LiveDeps {
  readonly tokens: TokenVerifier;
}

export function liveQueueRoutes(deps: LiveRouteDeps, options?: LiveStreamOptions): RouteDef[] {
  const { db } = deps;
  const streams = new LiveStreams(deps, options);
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
      handler: ({ caller, query }) => liveQueuesOf(deps, caller, query),
    }),
    route({
      method: 'get',
      path: '/v2/queues/:queueId/alerts',
      tag: 'Live queues',
      summary: "A queue's alert thresholds",
      addition: true,
      permission: PERMISSION,
      params: 'queue-id-params',
      response: 'queue-alerts',
      handler: ({ caller, params }) => getQueueAlerts(deps, caller, params.queueId),
    }),
    route({
      method: 'put',
      path: '/v2/queues/:queueId/alerts',
      tag: 'Live queues',
      summary: "Set a queue's alert thresholds (webhook events QUEUEALERT and QUEUEALERTCLEARED, optionally e-mail)",
      addition: true,
      permission: 'admin.queues.update',
      params: 'queue-id-params',
      body: 'queue-alerts-update',
      response: 'queue-alerts',
      handler: ({ caller, params, body }) => setQueueAlerts(deps, caller, params.queueId, body),
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
        return streams.open(tenantId, scope, stillAllowed(tenantId), caller.user.id);
      },
    }),
  ];
}

/**
 * The hosted API's agent routes, as the mobile app calls them (src/shared/api/queues/methods.ts), carried out
 * over AMI. Declared before /v2/queues/:queueId, which would otherwise take `agent-status` for a queue id.
 */
export function agentRoutes(deps: LiveDeps): RouteDef[] {
  const tag = 'Queues';
  return [
    route({
      method: 'get',
      path: '/v2/queues/agent-status',
      tag,
      summary: "An agent's queues and its state in them (logged in, paused, DND per queue)",
      permission: 'authenticated',
      query: 'agent-status-query',
      response: 'agent-queues',
      handler: ({ caller, query }) => agentStatus(deps, caller, query.peerName),
    }),
    route({
      method: 'post',
      path: '/v2/queues/agent-login',
      tag,
      summary: 'Log an agent in to (or out of) its queues',
      permission: 'authenticated',
      body: 'agent-login-request',
      response: 'agent-action-result',
      handler: ({ caller, body }) => agentLogin(deps, caller, body),
    }),
    route({
      method: 'post',
      path: '/v2/queues/agent-pause',
      tag,
      summary: 'Pause (or unpause) an agent in its queues, with a reason',
      permission: 'authenticated',
      body: 'agent-pause-request',
      response: 'agent-action-result',
      handler: ({ caller, body }) => agentPause(deps, caller, body),
    }),
    route({
      method: 'post',
      path: '/v2/queues/agent-dnd',
      tag,
      summary: "Set an agent's DND in one queue",
      permission: 'authenticated',
      body: 'agent-dnd-request',
      response: 'agent-action-result',
      handler: ({ caller, body }) => agentDnd(deps, caller, body),
    }),
  ];
}

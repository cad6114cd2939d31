import type { AppDeps } from '../../deps';
import { route, type RouteDef } from '../../http/route';
import { agentAvailability } from './availability.service';
import { queueStats } from './queue-stats.service';

export function queueReportRoutes(deps: AppDeps): RouteDef[] {
  const { db } = deps.database;
  return [
    route({
      method: 'post',
      path: '/v2/reporting/queues/stats',
      tag: 'Queue reporting',
      summary: 'Queue statistics per queue and period',
      permission: 'reporting.queues.read',
      body: 'queue-stats-request',
      response: 'queue-stats',
      handler: ({ caller, body }) => queueStats(db, caller, body),
    }),
    route({
      method: 'post',
      path: '/v2/reporting/queues/agent-availability',
      tag: 'Queue reporting',
      summary: 'Availability of the agents of a queue',
      permission: 'reporting.queues.read',
      body: 'agent-availability-request',
      response: 'agent-availability',
      handler: ({ caller, body }) => agentAvailability(db, caller, body, deps.clock.now()),
    }),
  ];
}

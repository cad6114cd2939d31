import { route, type RouteDef } from '../../http/route';
import { agentAvailability, type AvailabilityDeps } from './availability.service';
import { queueStats } from './queue-stats.service';

export function queueReportRoutes(deps: AvailabilityDeps): RouteDef[] {
  return [
    route({
      method: 'post',
      path: '/v2/reporting/queues/stats',
      tag: 'Queue reporting',
      summary: 'Queue statistics per queue and period',
      permission: 'reporting.queues.read',
      body: 'queue-stats-request',
      response: 'queue-stats',
      handler: ({ caller, body }) => queueStats(deps, caller, body),
    }),
    route({
      method: 'post',
      path: '/v2/reporting/queues/agent-availability',
      tag: 'Queue reporting',
      summary: 'Availability of the agents of a queue',
      permission: 'reporting.queues.read',
      body: 'agent-availability-request',
      response: 'agent-availability',
      handler: ({ caller, body }) => agentAvailability(deps, caller, body),
    }),
  ];
}

import { route, type RouteDef } from '../../http/route';
import { agentAvailability, type AvailabilityDeps } from './availability.service';
import { queueStats } from './queue-stats.service';
import { serviceLevelReport } from './service-level.service';
import { agentsReport } from './agents.service';
import { agentSessionsReport } from './agent-sessions.service';
import { lostCalls, lostCallsReport } from './lost-calls.service';
import { agentSessionsWorkbook, lostCallsWorkbook } from './list-sheets';
import { agentsWorkbook, availabilityWorkbook, serviceLevelWorkbook, statsWorkbook } from './report-sheets';

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
      sheet: async ({ caller, body }) => statsWorkbook(await queueStats(deps, caller, body), body),
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
      sheet: async ({ caller, body }) => availabilityWorkbook(await agentAvailability(deps, caller, body), body),
    }),
    route({
      method: 'post',
      path: '/v2/reporting/queues/service-level',
      tag: 'Queue reporting',
      summary: "Service level per queue and period: at the queue's threshold and others, as Asterisk and contact centres reckon it",
      addition: true,
      permission: 'reporting.queues.read',
      body: 'queue-service-level-request',
      response: 'queue-service-level',
      handler: ({ caller, body }) => serviceLevelReport(deps, caller, body),
      sheet: async ({ caller, body }) => serviceLevelWorkbook(await serviceLevelReport(deps, caller, body), body),
    }),
    route({
      method: 'post',
      path: '/v2/reporting/queues/agents',
      tag: 'Queue reporting',
      summary: "Each agent's day per queue and period, and over all the queues: calls, missed rings, login, pauses, occupancy",
      addition: true,
      permission: 'reporting.queues.read',
      body: 'queue-agents-request',
      response: 'queue-agents',
      handler: ({ caller, body }) => agentsReport(deps, caller, body),
      sheet: async ({ caller, body }) => agentsWorkbook(await agentsReport(deps, caller, body), body),
    }),
    route({
      method: 'post',
      path: '/v2/reporting/queues/agent-sessions',
      tag: 'Queue reporting',
      summary: "Each agent's logins and pauses per queue over the range, for a timeline",
      addition: true,
      permission: 'reporting.queues.read',
      body: 'queue-agent-sessions-request',
      response: 'queue-agent-sessions',
      handler: ({ caller, body }) => agentSessionsReport(deps, caller, body),
      sheet: async ({ caller, body }) => agentSessionsWorkbook(await agentSessionsReport(deps, caller, body), body),
    }),
    route({
      method: 'post',
      path: '/v2/reporting/queues/lost-calls',
      tag: 'Queue reporting',
      summary: 'The callers who hung up, timed out or left a queue, and whether anyone got back to them',
      addition: true,
      permission: 'reporting.queues.read',
      body: 'queue-lost-calls-request',
      response: 'queue-lost-calls',
      handler: ({ caller, body }) => lostCallsReport(deps, caller, body),
      sheet: async ({ caller, body }) => lostCallsWorkbook(await lostCalls(deps, caller, body), body),
    }),
  ];
}

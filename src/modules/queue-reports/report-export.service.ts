import type { Caller } from '../../access/caller';
import type { Clock } from '../../clock';
import type { Db } from '../../db/database';
import type { Workbook } from '../../sheets/sheet';
import type { SchemaId } from '../../validation/schema-types';
import { agentSessionsReport, type AgentSessionsBody } from './agent-sessions.service';
import { agentsReport, type AgentsBody } from './agents.service';
import { agentAvailability, type AvailabilityBody } from './availability.service';
import { lostCalls, type LostCallsBody } from './lost-calls.service';
import { queueStats, type QueueStatsBody } from './queue-stats.service';
import { agentSessionsWorkbook, lostCallsWorkbook } from './list-sheets';
import { agentsWorkbook, availabilityWorkbook, serviceLevelWorkbook, statsWorkbook } from './report-sheets';
import { serviceLevelReport, type ServiceLevelBody } from './service-level.service';

/**
 * The queue reports as saved filters run them (reporting.md R24): by module name, the report's path, request
 * schema and title, and the report made into a workbook in-process.
 */
export const QUEUE_REPORTS = {
  'queue-stats': { path: '/v2/reporting/queues/stats', schema: 'queue-stats-request', title: 'Queue statistics' },
  'queue-agent-availability': {
    path: '/v2/reporting/queues/agent-availability',
    schema: 'agent-availability-request',
    title: 'Agent availability',
  },
  'queue-service-level': { path: '/v2/reporting/queues/service-level', schema: 'queue-service-level-request', title: 'Service level' },
  'queue-agents': { path: '/v2/reporting/queues/agents', schema: 'queue-agents-request', title: 'Agents' },
  'queue-lost-calls': { path: '/v2/reporting/queues/lost-calls', schema: 'queue-lost-calls-request', title: 'Lost calls' },
  'queue-agent-sessions': { path: '/v2/reporting/queues/agent-sessions', schema: 'queue-agent-sessions-request', title: 'Agent sessions' },
} as const satisfies Record<string, { path: string; schema: SchemaId; title: string }>;

export type QueueReportModule = keyof typeof QUEUE_REPORTS;
export const isQueueReport = (module: string): module is QueueReportModule => module in QUEUE_REPORTS;

export interface ExportDeps {
  readonly db: Db;
  readonly clock: Clock;
}

/**
 * A queue report as a workbook for a validated request body, and how many rows it has (for lost calls, known
 * once the workbook was written: it streams).
 */
export async function queueReportExport(
  deps: ExportDeps,
  caller: Caller,
  module: QueueReportModule,
  body: unknown,
): Promise<{ workbook: Workbook; rows: () => number }> {
  switch (module) {
    case 'queue-stats': {
      const res = await queueStats(deps, caller, body as QueueStatsBody);
      return { workbook: statsWorkbook(res, body as QueueStatsBody), rows: () => res.results.length };
    }
    case 'queue-agent-availability': {
      const res = await agentAvailability(deps, caller, body as AvailabilityBody);
      return { workbook: availabilityWorkbook(res, body as AvailabilityBody), rows: () => res.length };
    }
    case 'queue-service-level': {
      const res = await serviceLevelReport(deps, caller, body as ServiceLevelBody);
      return { workbook: serviceLevelWorkbook(res, body as ServiceLevelBody), rows: () => res.results.length };
    }
    case 'queue-agents': {
      const res = await agentsReport(deps, caller, body as AgentsBody);
      return { workbook: agentsWorkbook(res, body as AgentsBody), rows: () => res.results.length };
    }
    case 'queue-lost-calls': {
      const report = await lostCalls(deps, caller, body as LostCallsBody);
      return { workbook: lostCallsWorkbook(report, body as LostCallsBody), rows: () => report.summary().reduce((n, s) => n + s.lost, 0) };
    }
    case 'queue-agent-sessions': {
      const res = await agentSessionsReport(deps, caller, body as AgentSessionsBody);
      return { workbook: agentSessionsWorkbook(res, body as AgentSessionsBody), rows: () => res.length };
    }
  }
}

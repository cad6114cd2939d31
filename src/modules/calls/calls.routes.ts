import type { AppDeps } from '../../deps';
import { route, type RouteDef } from '../../http/route';
import { callsWorkbook } from './calls-sheet';
import { callRecordBatches, callsReport } from './calls.service';

/** The calls report: an addition to the hosted API (decisions.md §6b), the target of saved filters. */
export function callRoutes(deps: AppDeps): RouteDef[] {
  const { db } = deps.database;
  const common = {
    path: '/v2/reporting/calls',
    tag: 'Reporting',
    permission: 'reporting.calls.read',
    response: 'calls-page',
    addition: true,
  } as const;
  return [
    route({
      ...common,
      method: 'get',
      summary: 'List call records (filters as query parameters)',
      query: 'calls-query',
      handler: ({ caller, query }) => callsReport(db, caller, query),
      sheet: async ({ caller, query }) => callsWorkbook(await callRecordBatches(db, caller, query), query),
    }),
    route({
      ...common,
      method: 'post',
      summary: 'List call records (filters as a JSON body)',
      body: 'calls-query',
      handler: ({ caller, body }) => callsReport(db, caller, body),
      sheet: async ({ caller, body }) => callsWorkbook(await callRecordBatches(db, caller, body), body),
    }),
  ];
}

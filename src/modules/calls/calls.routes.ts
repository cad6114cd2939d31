import { route, type RouteDef } from '../../http/route';
import { callsWorkbook } from './calls-sheet';
import { callRecordBatches, callsReport, type CallsDeps } from './calls.service';

/** The calls report: an addition to the hosted API (decisions.md §6b), the target of saved filters. */
export function callRoutes(deps: CallsDeps): RouteDef[] {
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
      handler: ({ caller, query }) => callsReport(deps, caller, query),
      sheet: async ({ caller, query }) => callsWorkbook(await callRecordBatches(deps, caller, query), query),
    }),
    route({
      ...common,
      method: 'post',
      summary: 'List call records (filters as a JSON body)',
      body: 'calls-query',
      handler: ({ caller, body }) => callsReport(deps, caller, body),
      sheet: async ({ caller, body }) => callsWorkbook(await callRecordBatches(deps, caller, body), body),
    }),
  ];
}

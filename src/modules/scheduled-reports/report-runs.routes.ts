import { route, type RouteDef } from '../../http/route';
import { filterRuns, runNow, type ReportDeps } from './report-runs.service';

/** Additions to the hosted API: run a saved filter's report now, and the record of its runs. */
export function reportRunRoutes(deps: ReportDeps): RouteDef[] {
  const tag = 'Saved filters';
  return [
    route({
      method: 'post',
      path: '/v2/reporting/saved/:id/run',
      tag,
      summary: "Run a saved filter's report now and e-mail it to its recipients (recorded like a scheduled run)",
      addition: true,
      permission: 'reporting.saved.run',
      params: 'id-params',
      body: 'report-run-request',
      bodyOptional: true,
      response: 'report-run',
      handler: ({ caller, params, body }) => runNow(deps, caller, params.id, body.for),
    }),
    route({
      method: 'get',
      path: '/v2/reporting/saved/:id/runs',
      tag,
      summary: "The runs of a saved filter's report, newest first: period, outcome, rows, error",
      addition: true,
      permission: 'reporting.saved.read',
      params: 'id-params',
      query: 'paging-query',
      response: 'report-run-page',
      handler: ({ caller, params, query }) => filterRuns(deps, caller, params.id, query),
    }),
  ];
}

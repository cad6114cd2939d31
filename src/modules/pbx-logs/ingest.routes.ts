import { route, type RouteDef } from '../../http/route';
import { ingestLines, type IngestDeps } from './ingest.service';

/** Sending PBX log lines over HTTP: an addition to the hosted API (README "Importing PBX logs"). */
export function ingestRoutes(deps: IngestDeps): RouteDef[] {
  const common = {
    method: 'post',
    tag: 'Reporting',
    permission: 'reporting.logs.ingest',
    body: 'ingest-lines',
    response: 'import-summary',
    addition: true,
  } as const;
  return [
    route({
      ...common,
      path: '/v2/reporting/ingest/queue-log',
      summary: 'Import Asterisk queue_log lines',
      handler: ({ caller, body }) => ingestLines(deps, caller, 'queue-log', body),
    }),
    route({
      ...common,
      path: '/v2/reporting/ingest/cdr',
      summary: 'Import Asterisk CDR (Master.csv) lines',
      handler: ({ caller, body }) => ingestLines(deps, caller, 'cdr', body),
    }),
  ];
}

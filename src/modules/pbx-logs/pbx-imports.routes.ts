import { route, type RouteDef } from '../../http/route';
import { importAgain, listImports, type PbxImportDeps } from './pbx-imports.service';

/** The record of PBX log imports and "Import again": additions to the hosted API (docs/console.md, "The PBX"). */
export function pbxImportRoutes(deps: PbxImportDeps): RouteDef[] {
  return [
    route({
      method: 'get',
      path: '/v2/pbx/imports',
      tag: 'Reporting',
      summary: 'Recent imports of PBX log lines, newest first: lines read, imported, skipped, unknown names and how to map them',
      addition: true,
      permission: 'reporting.logs.ingest',
      query: 'list-query',
      response: 'pbx-import-page',
      handler: ({ caller, query }) => listImports(deps, caller, query),
    }),
    route({
      method: 'post',
      path: '/v2/pbx/imports/:id/again',
      tag: 'Reporting',
      summary: "Import a recorded import's file again, from the path recorded then (platform admins)",
      addition: true,
      permission: 'reporting.logs.ingest',
      params: 'id-params',
      response: 'pbx-import',
      handler: ({ caller, params }) => importAgain(deps, caller, params.id),
    }),
  ];
}

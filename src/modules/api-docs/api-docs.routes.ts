import { buildOpenApi } from '../../http/openapi';
import { publicRoute, type RouteDef } from '../../http/route';
import type { SchemaTypes } from '../../validation/schema-types';

/**
 * GET /v2/openapi.json: the OpenAPI document of `routes`, the whole route table, this route included (hence
 * a function: the table is complete only once every module has added its routes). Built once, on first use.
 */
export function apiDocsRoutes(routes: () => readonly RouteDef[]): RouteDef[] {
  let document: SchemaTypes['openapi'] | undefined;
  return [
    publicRoute({
      method: 'get',
      path: '/v2/openapi.json',
      tag: 'Operations',
      summary: 'This API as an OpenAPI 3.1 document (the interactive reference is at /docs)',
      addition: true,
      response: 'openapi',
      permission: 'public',
      handler: () => (document ??= buildOpenApi(routes())),
    }),
  ];
}

import { route, type RouteDef } from '../../http/route';
import { changeExtension, createExtension, extensionPage, getExtension, removeExtension, type ExtensionDeps } from './extensions.service';

/** The site's extensions: an addition to the hosted API (docs/api.md "Directory"). */
export function extensionRoutes(deps: ExtensionDeps): RouteDef[] {
  const tag = 'Directory';
  const path = '/v2/extensions';
  return [
    route({
      method: 'post',
      path,
      tag,
      summary: 'Create an extension',
      addition: true,
      permission: 'admin.extensions.create',
      body: 'extension-create',
      response: 'extension',
      handler: ({ caller, body }) => createExtension(deps, caller, body),
    }),
    route({
      method: 'get',
      path,
      tag,
      summary: 'List extensions (filter tenantId; paged)',
      addition: true,
      permission: 'admin.extensions.read',
      query: 'list-query',
      response: 'extension-page',
      handler: ({ caller, query }) => extensionPage(deps, caller, query),
    }),
    route({
      method: 'get',
      path: `${path}/:extensionId`,
      tag,
      summary: 'Read one extension',
      addition: true,
      permission: 'admin.extensions.read',
      params: 'extension-id-params',
      response: 'extension',
      handler: ({ caller, params }) => getExtension(deps, caller, params.extensionId),
    }),
    route({
      method: 'patch',
      path: `${path}/:extensionId`,
      tag,
      summary: 'Change an extension (its agent aliases: reports follow them)',
      addition: true,
      permission: 'admin.extensions.update',
      params: 'extension-id-params',
      body: 'extension-update',
      response: 'extension',
      handler: ({ caller, params, body }) => changeExtension(deps, caller, params.extensionId, body),
    }),
    route({
      method: 'delete',
      path: `${path}/:extensionId`,
      tag,
      summary: 'Delete an extension',
      addition: true,
      permission: 'admin.extensions.delete',
      params: 'extension-id-params',
      response: 'extension',
      handler: ({ caller, params }) => removeExtension(deps, caller, params.extensionId),
    }),
  ];
}

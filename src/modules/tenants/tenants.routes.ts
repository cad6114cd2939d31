import { route, type RouteDef } from '../../http/route';
import { changeTenant, createTenant, getTenant, removeTenant, tenantPage, type TenantDeps } from './tenants.service';

/** Tenants: an addition to the hosted API for platform and partner admins (docs/api.md "Directory"). */
export function tenantRoutes(deps: TenantDeps): RouteDef[] {
  const tag = 'Directory';
  const path = '/v2/admin/tenants';
  return [
    route({
      method: 'post',
      path,
      tag,
      summary: 'Create a tenant',
      addition: true,
      permission: 'admin.tenants.create',
      body: 'tenant-create',
      response: 'tenant',
      handler: ({ caller, body }) => createTenant(deps, caller, body),
    }),
    route({
      method: 'get',
      path,
      tag,
      summary: 'List the tenants the caller reaches, paged',
      addition: true,
      permission: 'admin.tenants.read',
      query: 'paging-query',
      response: 'tenant-page',
      handler: ({ caller, query }) => tenantPage(deps, caller, query),
    }),
    route({
      method: 'get',
      path: `${path}/:tenantId`,
      tag,
      summary: 'Read one tenant',
      addition: true,
      permission: 'admin.tenants.read',
      params: 'tenant-id-params',
      response: 'tenant',
      handler: ({ caller, params }) => getTenant(deps, caller, params.tenantId),
    }),
    route({
      method: 'patch',
      path: `${path}/:tenantId`,
      tag,
      summary: 'Change a tenant (name, MFA required, partner)',
      addition: true,
      permission: 'admin.tenants.update',
      params: 'tenant-id-params',
      body: 'tenant-update',
      response: 'tenant',
      handler: ({ caller, params, body }) => changeTenant(deps, caller, params.tenantId, body),
    }),
    route({
      method: 'delete',
      path: `${path}/:tenantId`,
      tag,
      summary: 'Delete a tenant (with cascade=1, everything it owns)',
      addition: true,
      permission: 'admin.tenants.delete',
      params: 'tenant-id-params',
      query: 'tenant-delete-query',
      response: 'tenant',
      handler: ({ caller, params, query }) => removeTenant(deps, caller, params.tenantId, query.cascade === 1),
    }),
  ];
}

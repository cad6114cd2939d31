import type { AppDeps } from '../../deps';
import type { PageQuery } from '../../access/paging';
import { route, type RouteDef } from '../../http/route';
import type { LocationCreate, LocationUpdate } from './emergency-location';
import { createLocation, getLocation, listEmergencyLocations, removeLocation, updateLocation } from './emergency-locations.service';

type IdParams = { id: number };

export function emergencyLocationRoutes(deps: AppDeps): RouteDef[] {
  const { db } = deps.database;
  const tag = 'Emergency locations';
  const path = '/v2/admin/emergency-locations';
  return [
    route<LocationCreate>({
      method: 'post',
      path,
      tag,
      summary: 'Create an E911 emergency location',
      permission: 'admin.emergency-locations.create',
      body: 'emergency-location-create',
      response: 'emergency-location',
      handler: ({ caller, body }) => createLocation(db, caller, body),
    }),
    route<unknown, { tenantId?: number } & PageQuery>({
      method: 'get',
      path,
      tag,
      summary: 'List E911 emergency locations (filter tenantId; paged)',
      addition: true,
      permission: 'admin.emergency-locations.read',
      query: 'list-query',
      response: 'emergency-location-page',
      handler: ({ caller, query }) => listEmergencyLocations(db, caller, query),
    }),
    route<unknown, unknown, IdParams>({
      method: 'get',
      path: `${path}/:id`,
      tag,
      summary: 'Read one E911 emergency location',
      permission: 'admin.emergency-locations.read',
      params: 'path-params',
      response: 'emergency-location',
      handler: ({ caller, params }) => getLocation(db, caller, params.id),
    }),
    route<LocationUpdate, unknown, IdParams>({
      method: 'patch',
      path: `${path}/:id`,
      tag,
      summary: 'Change an E911 emergency location',
      addition: true,
      permission: 'admin.emergency-locations.update',
      params: 'path-params',
      body: 'emergency-location-update',
      response: 'emergency-location',
      handler: ({ caller, params, body }) => updateLocation(db, caller, params.id, body),
    }),
    route<unknown, unknown, IdParams>({
      method: 'delete',
      path: `${path}/:id`,
      tag,
      summary: 'Delete an E911 emergency location with its notification groups',
      addition: true,
      permission: 'admin.emergency-locations.delete',
      params: 'path-params',
      response: 'emergency-location',
      handler: ({ caller, params }) => removeLocation(db, caller, params.id),
    }),
  ];
}

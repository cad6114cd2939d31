import { route, type RouteDef } from '../../http/route';
import {
  createLocation,
  getLocation,
  listEmergencyLocations,
  removeLocation,
  updateLocation,
  type EmergencyLocationDeps,
} from './emergency-locations.service';

export function emergencyLocationRoutes(deps: EmergencyLocationDeps): RouteDef[] {
  const tag = 'Emergency locations';
  const path = '/v2/admin/emergency-locations';
  return [
    route({
      method: 'post',
      path,
      tag,
      summary: 'Create an E911 emergency location',
      permission: 'admin.emergency-locations.create',
      body: 'emergency-location-create',
      response: 'emergency-location',
      handler: ({ caller, body }) => createLocation(deps, caller, body),
    }),
    route({
      method: 'get',
      path,
      tag,
      summary: 'List E911 emergency locations (filter tenantId; paged)',
      addition: true,
      permission: 'admin.emergency-locations.read',
      query: 'list-query',
      response: 'emergency-location-page',
      handler: ({ caller, query }) => listEmergencyLocations(deps, caller, query),
    }),
    route({
      method: 'get',
      path: `${path}/:id`,
      tag,
      summary: 'Read one E911 emergency location',
      permission: 'admin.emergency-locations.read',
      params: 'id-params',
      response: 'emergency-location',
      handler: ({ caller, params }) => getLocation(deps, caller, params.id),
    }),
    route({
      method: 'patch',
      path: `${path}/:id`,
      tag,
      summary: 'Change an E911 emergency location',
      addition: true,
      permission: 'admin.emergency-locations.update',
      params: 'id-params',
      body: 'emergency-location-update',
      response: 'emergency-location',
      handler: ({ caller, params, body }) => updateLocation(deps, caller, params.id, body),
    }),
    route({
      method: 'delete',
      path: `${path}/:id`,
      tag,
      summary: 'Delete an E911 emergency location with its notification groups',
      addition: true,
      permission: 'admin.emergency-locations.delete',
      params: 'id-params',
      response: 'emergency-location',
      handler: ({ caller, params }) => removeLocation(deps, caller, params.id),
    }),
  ];
}

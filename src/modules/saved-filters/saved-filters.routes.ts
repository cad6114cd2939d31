import { route, type RouteDef } from '../../http/route';
import {
  createSavedFilter,
  deleteSavedFilter,
  getSavedFilter,
  listFilters,
  updateSavedFilter,
  type SavedFilterDeps,
} from './saved-filters.service';

export function savedFilterRoutes(deps: SavedFilterDeps): RouteDef[] {
  const tag = 'Saved filters';
  const path = '/v2/reporting/saved';
  return [
    route({
      method: 'post',
      path,
      tag,
      summary: 'Create a saved filter (the response is an array holding it)',
      permission: 'reporting.saved.create',
      body: 'saved-filter-create',
      response: 'saved-filter-created',
      handler: ({ caller, body }) => createSavedFilter(deps, caller, body),
    }),
    route({
      method: 'get',
      path,
      tag,
      summary: "List the saved filters of the caller's tenant(s) (filter tenantId; paged)",
      addition: true,
      permission: 'reporting.saved.read',
      query: 'list-query',
      response: 'saved-filter-page',
      handler: ({ caller, query }) => listFilters(deps, caller, query),
    }),
    route({
      method: 'get',
      path: `${path}/:id`,
      tag,
      summary: 'Read one saved filter',
      addition: true,
      permission: 'reporting.saved.read',
      params: 'id-params',
      response: 'saved-filter',
      handler: ({ caller, params }) => getSavedFilter(deps, caller, params.id),
    }),
    route({
      method: 'patch',
      path: `${path}/:id`,
      tag,
      summary: 'Change a saved filter',
      addition: true,
      permission: 'reporting.saved.update',
      params: 'id-params',
      body: 'saved-filter-update',
      response: 'saved-filter',
      handler: ({ caller, params, body }) => updateSavedFilter(deps, caller, params.id, body),
    }),
    route({
      method: 'delete',
      path: `${path}/:id`,
      tag,
      summary: 'Delete a saved filter (soft: it keeps its data and disappears from every read)',
      permission: 'reporting.saved.delete',
      params: 'id-params',
      response: 'saved-filter',
      handler: ({ caller, params }) => deleteSavedFilter(deps, caller, params.id),
    }),
  ];
}

import { isoNow } from '../../clock';
import type { AppDeps } from '../../deps';
import type { PageQuery } from '../../access/paging';
import { route, type RouteDef } from '../../http/route';
import type { SavedFilterCreate, SavedFilterUpdate } from './saved-filter';
import { createSavedFilter, deleteSavedFilter, getSavedFilter, listFilters, updateSavedFilter } from './saved-filters.service';

type IdParams = { id: number };

export function savedFilterRoutes(deps: AppDeps): RouteDef[] {
  const { db } = deps.database;
  const ruleDeps = { db, validator: deps.validator };
  const tag = 'Saved filters';
  const path = '/v2/reporting/saved';
  return [
    route<SavedFilterCreate>({
      method: 'post',
      path,
      tag,
      summary: 'Create a saved filter (the response is an array holding it)',
      permission: 'reporting.saved.create',
      body: 'saved-filter-create',
      response: 'saved-filter-created',
      handler: ({ caller, body }) => createSavedFilter(ruleDeps, caller, body, isoNow(deps.clock)),
    }),
    route<unknown, { tenantId?: number } & PageQuery>({
      method: 'get',
      path,
      tag,
      summary: "List the saved filters of the caller's tenant(s) (filter tenantId; paged)",
      addition: true,
      permission: 'reporting.saved.read',
      query: 'list-query',
      response: 'saved-filter-page',
      handler: ({ caller, query }) => listFilters(db, caller, query),
    }),
    route<unknown, unknown, IdParams>({
      method: 'get',
      path: `${path}/:id`,
      tag,
      summary: 'Read one saved filter',
      addition: true,
      permission: 'reporting.saved.read',
      params: 'path-params',
      response: 'saved-filter',
      handler: ({ caller, params }) => getSavedFilter(db, caller, params.id),
    }),
    route<SavedFilterUpdate, unknown, IdParams>({
      method: 'patch',
      path: `${path}/:id`,
      tag,
      summary: 'Change a saved filter',
      addition: true,
      permission: 'reporting.saved.update',
      params: 'path-params',
      body: 'saved-filter-update',
      response: 'saved-filter',
      handler: ({ caller, params, body }) => updateSavedFilter(ruleDeps, caller, params.id, body),
    }),
    route<unknown, unknown, IdParams>({
      method: 'delete',
      path: `${path}/:id`,
      tag,
      summary: 'Delete a saved filter (soft: it keeps its data and disappears from every read)',
      permission: 'reporting.saved.delete',
      params: 'path-params',
      response: 'saved-filter',
      handler: ({ caller, params }) => deleteSavedFilter(db, caller, params.id, isoNow(deps.clock)),
    }),
  ];
}

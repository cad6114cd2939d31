import type { ResponseBody } from '../../http/route';
import type { Selectable } from 'kysely';
import type { SavedFilterTable } from '../../db/schema';
import type { SavedFilterFields } from './saved-filters.repository';

/** The Saved filter of api.md §2.2 (schemas/saved-filter.json). */
export type ApiSavedFilter = ResponseBody<'saved-filter'>;

/** What a client sets on a filter (schemas/saved-filter-create.json, $defs/fields). */
export type SavedFilterCreate = SavedFilterFields & { tenantId: number };
/** PATCH: each field given replaces the stored one; the rules are judged on the result. */
export type SavedFilterUpdate = Partial<SavedFilterFields>;

const parsed = (json: string | null): unknown => (json === null ? null : JSON.parse(json));

export function toApiSavedFilter(r: Selectable<SavedFilterTable>): ApiSavedFilter {
  return {
    id: r.id,
    userId: r.user_id,
    tenantId: r.tenant_id,
    apiUrl: r.api_url,
    module: r.module,
    createdAt: r.created_at,
    deletedAt: r.deleted_at,
    name: r.name,
    description: r.description,
    scheduled: r.scheduled,
    recipients: r.recipients,
    frequency: r.frequency,
    error: r.error,
    errorDescription: r.error_description,
    queryParams: parsed(r.query_params),
    postParams: parsed(r.post_params),
  };
}

/** The stored filter as the fields a client sets, so that a PATCH can be laid over it. */
export function fieldsOf(f: ApiSavedFilter): SavedFilterFields {
  const { apiUrl: url, module, name, description, queryParams, postParams, scheduled, recipients, frequency } = f;
  return { url, module, name, description, queryParams, postParams, scheduled, recipients, frequency };
}

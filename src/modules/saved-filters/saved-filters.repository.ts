import type { Db } from '../../db/database';

/** The create body of api.md §4.2, plus the owner (and an id when seeding). */
export interface SavedFilterInput {
  id?: number;
  userId: number;
  tenantId: number;
  url: string;
  module: string;
  name: string;
  description?: string | null;
  queryParams?: unknown;
  postParams?: unknown;
  scheduled?: number;
  recipients?: string | null;
  frequency?: string | null;
}

const jsonOrNull = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

export async function insertSavedFilter(db: Db, input: SavedFilterInput, createdAt: string): Promise<number> {
  const row = await db
    .insertInto('saved_filters')
    .values({
      id: input.id,
      tenant_id: input.tenantId,
      user_id: input.userId,
      api_url: input.url,
      module: input.module,
      name: input.name,
      description: input.description ?? null,
      scheduled: input.scheduled ?? 0,
      recipients: input.recipients ?? null,
      frequency: input.frequency ?? null,
      error_description: null,
      query_params: jsonOrNull(input.queryParams),
      post_params: jsonOrNull(input.postParams),
      created_at: createdAt,
      deleted_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

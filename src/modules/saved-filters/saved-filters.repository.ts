import type { Selectable } from 'kysely';
import type { Db } from '../../db/database';
import type { SavedFilterTable } from '../../db/schema';
import { tenantIn } from '../../access/tenant-filter';
import { windowed, type PageWindow } from '../../access/paging';
import type { TenantScope } from '../../access/scope';

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

/** The columns a client sets (the rest, owner, error and timestamps, are the server's). */
/** What a client sets of a filter (not its id, owner or tenant). */
export type SavedFilterFields = Omit<SavedFilterInput, 'id' | 'userId' | 'tenantId'>;

function clientColumns(f: SavedFilterFields) {
  return {
    api_url: f.url,
    module: f.module,
    name: f.name,
    description: f.description ?? null,
    scheduled: f.scheduled ?? 0,
    recipients: f.recipients ?? null,
    frequency: f.frequency ?? null,
    query_params: jsonOrNull(f.queryParams),
    post_params: jsonOrNull(f.postParams),
  };
}

export async function insertSavedFilter(db: Db, input: SavedFilterInput, createdAt: string): Promise<number> {
  const row = await db
    .insertInto('saved_filters')
    .values({
      id: input.id,
      tenant_id: input.tenantId,
      user_id: input.userId,
      ...clientColumns(input),
      error_description: null,
      created_at: createdAt,
      deleted_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

// A deleted filter keeps its row (deleted_at set) and is missing to every read (decisions.md §2).
function liveFilters(db: Db, scope: TenantScope) {
  return db.selectFrom('saved_filters').where(tenantIn(scope)).where('deleted_at', 'is', null);
}

export function findSavedFilter(db: Db, scope: TenantScope, id: number): Promise<Selectable<SavedFilterTable> | undefined> {
  return liveFilters(db, scope).selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listSavedFilters(
  db: Db,
  scope: TenantScope,
  w: PageWindow,
): Promise<{ rows: Selectable<SavedFilterTable>[]; total: number }> {
  const { total } = await liveFilters(db, scope)
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  const rows = await windowed(liveFilters(db, scope).selectAll().orderBy('id'), w).execute();
  return { rows, total: Number(total) };
}

export async function updateSavedFilterColumns(db: Db, scope: TenantScope, id: number, f: SavedFilterFields): Promise<void> {
  await db
    .updateTable('saved_filters')
    .set(clientColumns(f))
    .where(tenantIn(scope))
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .execute();
}

export async function softDeleteSavedFilter(db: Db, scope: TenantScope, id: number, deletedAt: string): Promise<void> {
  await db
    .updateTable('saved_filters')
    .set({ deleted_at: deletedAt })
    .where(tenantIn(scope))
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .execute();
}

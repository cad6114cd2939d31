import { isoNow, type Clock } from '../../clock';
import { transaction, type Db } from '../../db/database';
import { badRequest, notFound } from '../../errors';
import type { Caller } from '../../access/caller';
import { pageOf, pageWindow, type Page, type PageQuery } from '../../access/paging';
import { listScope, requireTenant, tenantsScope } from '../../access/scope';
import { findQueues } from '../queues/queues.repository';
import type { Validator } from '../../validation/validation';
import { getTenantRef } from '../tenants/tenants.repository';
import { fieldsOf, toApiSavedFilter, type ApiSavedFilter, type SavedFilterCreate, type SavedFilterUpdate } from './saved-filter';
import { queueIdsOf, savedFilterProblems } from './saved-filter-rules';

/** How a filter's URL and parameters are read (the scheduled reports run them): saved-filter-rules.ts. */
export { queryObject, splitUrl, type AttachmentFormat } from './saved-filter-rules';
import {
  findSavedFilter,
  insertSavedFilter,
  listSavedFilters,
  softDeleteSavedFilter,
  updateSavedFilterColumns,
} from './saved-filters.repository';

/** What this service uses (docs/architecture.md, "The service shape"). */
export interface SavedFilterDeps {
  readonly db: Db;
  readonly validator: Validator;
  readonly clock: Clock;
}

function checkRules(validator: Validator, f: Parameters<typeof savedFilterProblems>[1]): void {
  const problems = savedFilterProblems(validator, f);
  if (problems.length > 0) throw badRequest(problems);
}

/** A queue report's filter names queues of its own tenant only (reporting.md R24): another's is a 400, not a run that fails later. */
async function checkQueues(db: Db, tenantId: number, f: Parameters<typeof queueIdsOf>[0]): Promise<void> {
  const ids = queueIdsOf(f);
  if (ids.length === 0) return;
  const own = new Set((await findQueues(db, tenantsScope([tenantId]))).map((q) => q.id));
  const foreign = ids.filter((id) => !own.has(id));
  if (foreign.length > 0)
    throw badRequest(
      `postParams.queueId: ${foreign.join(', ')} ${foreign.length === 1 ? 'is not a queue' : 'are not queues'} of tenant ${tenantId}`,
    );
}

/** api.md §4.2: the response is an array holding the created filter; its owner is the caller. */
export async function createSavedFilter(deps: SavedFilterDeps, caller: Caller, input: SavedFilterCreate): Promise<ApiSavedFilter[]> {
  checkRules(deps.validator, input);
  const tenantScope = requireTenant(caller.scope, input.tenantId);
  return transaction(deps.db, async (trx) => {
    await getTenantRef(trx, tenantScope);
    await checkQueues(trx, input.tenantId, input);
    const id = await insertSavedFilter(trx, { ...input, userId: caller.user.id }, isoNow(deps.clock));
    return [await getSavedFilter({ db: trx }, caller, id)];
  });
}

export async function listFilters(
  { db }: Pick<SavedFilterDeps, 'db'>,
  caller: Caller,
  q: { tenantId?: number } & PageQuery,
): Promise<Page<ApiSavedFilter>> {
  const { rows, total } = await listSavedFilters(db, listScope(caller.scope, q.tenantId), pageWindow(q));
  return pageOf(rows.map(toApiSavedFilter), total, q);
}

export async function getSavedFilter({ db }: Pick<SavedFilterDeps, 'db'>, caller: Caller, id: number): Promise<ApiSavedFilter> {
  const row = await findSavedFilter(db, caller.scope, id);
  if (!row) throw notFound(`Saved filter ${id}`);
  return toApiSavedFilter(row);
}

export async function updateSavedFilter(
  deps: SavedFilterDeps,
  caller: Caller,
  id: number,
  patch: SavedFilterUpdate,
): Promise<ApiSavedFilter> {
  return transaction(deps.db, async (trx) => {
    const current = await getSavedFilter({ db: trx }, caller, id);
    const next = { ...fieldsOf(current), ...patch };
    checkRules(deps.validator, { ...next, tenantId: current.tenantId });
    await checkQueues(trx, current.tenantId, next);
    await updateSavedFilterColumns(trx, caller.scope, id, next);
    return getSavedFilter({ db: trx }, caller, id);
  });
}

/** A soft delete: the row keeps its data, gets deletedAt, and is missing to every read from then on. */
export async function deleteSavedFilter(deps: Pick<SavedFilterDeps, 'db' | 'clock'>, caller: Caller, id: number): Promise<ApiSavedFilter> {
  const now = isoNow(deps.clock);
  return transaction(deps.db, async (trx) => {
    const filter = await getSavedFilter({ db: trx }, caller, id);
    await softDeleteSavedFilter(trx, caller.scope, id, now);
    return { ...filter, deletedAt: now };
  });
}

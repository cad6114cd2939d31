import { type Db, transaction } from '../../db/database';
import type { Caller } from '../../access/caller';
import { conflict, notFound } from '../../errors';
import { pageOf, pageWindow, type Page, type PageQuery } from '../../access/paging';
import { listScope, requireTenant } from '../../access/scope';
import { getTenantRef, timezoneOfTenant } from '../tenants/tenants.repository';
import { toApiBranch, type ApiBranch, type BranchCreate } from './branch';
import {
  branchDependents,
  clearDefaultBranch,
  deleteBranch,
  findBranch,
  insertBranch,
  listBranches,
  updateBranch,
  type BranchWithTenant,
} from './branches.repository';

/** What this service uses (docs/architecture.md, "The service shape"). */
export interface BranchDeps {
  readonly db: Db;
}

export async function createBranch(deps: BranchDeps, caller: Caller, input: BranchCreate): Promise<ApiBranch> {
  const { db } = deps;
  const tenantScope = requireTenant(caller.scope, input.tenantId);
  return transaction(db, async (trx) => {
    const tenant = await getTenantRef(trx, tenantScope);
    const isDefault = input.default ?? 0;
    const timezone = input.timezone ?? (await timezoneOfTenant(trx, tenantScope));
    if (isDefault === 1) await clearDefaultBranch(trx, tenantScope);
    const row = await insertBranch(trx, { tenant_id: tenant.id, name: input.name, timezone, is_default: isDefault });
    return toApiBranch(row, tenant);
  });
}

const toApi = (row: BranchWithTenant): ApiBranch => toApiBranch(row, { id: row.tenant_id, name: row.tenant_name });

export async function getBranch(deps: BranchDeps, caller: Caller, id: number): Promise<ApiBranch> {
  const { db } = deps;
  const row = await findBranch(db, caller.scope, id);
  if (!row) throw notFound(`Branch ${id}`);
  return toApi(row);
}

export async function branchPage(deps: BranchDeps, caller: Caller, q: { tenantId?: number } & PageQuery): Promise<Page<ApiBranch>> {
  const { db } = deps;
  const { rows, total } = await listBranches(db, listScope(caller.scope, q.tenantId), pageWindow(q));
  return pageOf(rows.map(toApi), total, q);
}

export interface BranchUpdate {
  name?: string;
  timezone?: string;
  default?: number;
}

/** Changes a branch; making it the default takes that from the tenant's other branches. */
export async function changeBranch(deps: BranchDeps, caller: Caller, id: number, patch: BranchUpdate): Promise<ApiBranch> {
  const { db } = deps;
  return transaction(db, async (trx) => {
    const current = await getBranch({ ...deps, db: trx }, caller, id);
    const tenantScope = requireTenant(caller.scope, current.tenant.id);
    if (patch.default === 0 && current.default === 1)
      throw conflict(`Branch ${id} is the default branch of tenant ${current.tenant.id}: make another branch the default instead`);
    if (patch.default === 1 && current.default === 0) await clearDefaultBranch(trx, tenantScope);
    await updateBranch(trx, tenantScope, id, { name: patch.name, timezone: patch.timezone, is_default: patch.default });
    return getBranch({ ...deps, db: trx }, caller, id);
  });
}

/** Deletes a branch nothing refers to and that is not its tenant's default; returns it as it was. */
export async function removeBranch(deps: BranchDeps, caller: Caller, id: number): Promise<ApiBranch> {
  const { db } = deps;
  return transaction(db, async (trx) => {
    const branch = await getBranch({ ...deps, db: trx }, caller, id);
    if (branch.default === 1)
      throw conflict(`Branch ${id} is the default branch of tenant ${branch.tenant.id}: make another branch the default first`);
    const dependents = await branchDependents(trx, id);
    if (dependents.length > 0) throw conflict(`Branch ${id} still has ${dependents.join(', ')}: move them to another branch first`);
    await deleteBranch(trx, requireTenant(caller.scope, branch.tenant.id), id);
    return branch;
  });
}

import type { Db } from '../../db/database';
import type { Caller } from '../../access/caller';
import { notFound } from '../../errors';
import { pageOf, pageWindow, type Page, type PageQuery } from '../../access/paging';
import { listScope, requireTenant } from '../../access/scope';
import { getTenantRef, timezoneOfTenant } from '../tenants/tenants.repository';
import { toApiBranch, type ApiBranch, type BranchCreate } from './branch';
import { clearDefaultBranch, findBranch, insertBranch, listBranches, type BranchWithTenant } from './branches.repository';

export async function createBranch(db: Db, caller: Caller, input: BranchCreate): Promise<ApiBranch> {
  const tenantScope = requireTenant(caller.scope, input.tenantId);
  return db.transaction().execute(async (trx) => {
    const tenant = await getTenantRef(trx, tenantScope);
    const isDefault = input.default ?? 0;
    const timezone = input.timezone ?? (await timezoneOfTenant(trx, tenantScope));
    if (isDefault === 1) await clearDefaultBranch(trx, tenantScope);
    const row = await insertBranch(trx, { tenant_id: tenant.id, name: input.name, timezone, is_default: isDefault });
    return toApiBranch(row, tenant);
  });
}

const toApi = (row: BranchWithTenant): ApiBranch => toApiBranch(row, { id: row.tenant_id, name: row.tenant_name });

export async function getBranch(db: Db, caller: Caller, id: number): Promise<ApiBranch> {
  const row = await findBranch(db, caller.scope, id);
  if (!row) throw notFound(`Branch ${id}`);
  return toApi(row);
}

export async function branchPage(db: Db, caller: Caller, q: { tenantId?: number } & PageQuery): Promise<Page<ApiBranch>> {
  const { rows, total } = await listBranches(db, listScope(caller.scope, q.tenantId), pageWindow(q));
  return pageOf(rows.map(toApi), total, q);
}

import type { Db } from '../../db/database';
import type { Caller } from '../../http/caller';
import { requireTenant } from '../../http/scope';
import { getTenantRef, tenantTimezone } from '../tenants/tenants.repository';
import { toApiBranch, type ApiBranch, type BranchCreate } from './branch';
import { clearDefaultBranch, insertBranch } from './branches.repository';

export async function createBranch(db: Db, caller: Caller, input: BranchCreate): Promise<ApiBranch> {
  requireTenant(caller.scope, input.tenantId);
  return db.transaction().execute(async (trx) => {
    const tenant = await getTenantRef(trx, input.tenantId);
    const isDefault = input.default ?? 0;
    const timezone = input.timezone ?? (await tenantTimezone(trx, tenant.id));
    if (isDefault === 1) await clearDefaultBranch(trx, tenant.id);
    const row = await insertBranch(trx, { tenant_id: tenant.id, name: input.name, timezone, is_default: isDefault });
    return toApiBranch(row, tenant);
  });
}

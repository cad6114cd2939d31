import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database';
import type { BranchTable } from '../../db/schema';
import { tenantIn } from '../../access/tenant-filter';
import { windowed, type PageWindow } from '../../access/paging';
import type { TenantScope } from '../../access/scope';

export async function insertBranch(db: Db, branch: Insertable<BranchTable>): Promise<Selectable<BranchTable>> {
  return db.insertInto('branches').values(branch).returningAll().executeTakeFirstOrThrow();
}

/** A tenant has one default branch: making one the default takes it from the others. */
export async function clearDefaultBranch(db: Db, scope: TenantScope): Promise<void> {
  await db.updateTable('branches').set({ is_default: 0 }).where(tenantIn(scope)).where('is_default', '=', 1).execute();
}

export interface BranchWithTenant extends Selectable<BranchTable> {
  tenant_name: string;
}

function branchesIn(db: Db, scope: TenantScope) {
  return db.selectFrom('branches').innerJoin('tenants', 'tenants.id', 'branches.tenant_id').where(tenantIn(scope, 'branches.tenant_id'));
}

export function findBranch(db: Db, scope: TenantScope, id: number): Promise<BranchWithTenant | undefined> {
  return branchesIn(db, scope).selectAll('branches').select('tenants.name as tenant_name').where('branches.id', '=', id).executeTakeFirst();
}

export async function listBranches(db: Db, scope: TenantScope, w: PageWindow): Promise<{ rows: BranchWithTenant[]; total: number }> {
  const { total } = await branchesIn(db, scope)
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  const rows = await windowed(
    branchesIn(db, scope).selectAll('branches').select('tenants.name as tenant_name').orderBy('branches.id'),
    w,
  ).execute();
  return { rows, total: Number(total) };
}

export async function updateBranch(
  db: Db,
  scope: TenantScope,
  id: number,
  set: { name?: string; timezone?: string; is_default?: number },
): Promise<void> {
  await db.updateTable('branches').set(set).where('id', '=', id).where(tenantIn(scope)).execute();
}

export async function deleteBranch(db: Db, scope: TenantScope, id: number): Promise<void> {
  await db.deleteFrom('branches').where('id', '=', id).where(tenantIn(scope)).execute();
}

/** What refers to a branch, by kind, with counts (a branch with any cannot be deleted). */
export async function branchDependents(db: Db, id: number): Promise<string[]> {
  const out: string[] = [];
  for (const [table, one, many] of [
    ['users', 'user', 'users'],
    ['phone_numbers', 'phone number', 'phone numbers'],
    ['extensions', 'extension', 'extensions'],
    ['queues', 'queue', 'queues'],
  ] as const) {
    const { n } = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('branch_id', '=', id)
      .executeTakeFirstOrThrow();
    if (Number(n) > 0) out.push(`${n} ${Number(n) === 1 ? one : many}`);
  }
  return out;
}

/** Whether a branch belongs to a tenant: the check every record that names a branch makes. */
export async function isBranchOfTenant(db: Db, tenantId: number, branchId: number): Promise<boolean> {
  return (
    (await db.selectFrom('branches').select('id').where('id', '=', branchId).where('tenant_id', '=', tenantId).executeTakeFirst()) !==
    undefined
  );
}

/** The name of the branch of the scope, or '' (none, or not of the scope): what a User object shows as branchName. */
export async function branchName(db: Db, scope: TenantScope, branchId: number | null): Promise<string> {
  if (branchId === null) return '';
  const row = await db.selectFrom('branches').select('name').where(tenantIn(scope)).where('id', '=', branchId).executeTakeFirst();
  return row?.name ?? '';
}

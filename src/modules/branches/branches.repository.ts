import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database';
import type { BranchTable } from '../../db/schema';

export async function insertBranch(db: Db, branch: Insertable<BranchTable>): Promise<Selectable<BranchTable>> {
  return db.insertInto('branches').values(branch).returningAll().executeTakeFirstOrThrow();
}

/** A tenant has one default branch: making one the default takes it from the others. */
export async function clearDefaultBranch(db: Db, tenantId: number): Promise<void> {
  await db.updateTable('branches').set({ is_default: 0 }).where('tenant_id', '=', tenantId).where('is_default', '=', 1).execute();
}

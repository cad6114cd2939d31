import type { Selectable } from 'kysely';
import type { BranchTable } from '../../db/schema';
import type { TenantRef } from '../tenants/tenants.repository';

/** The Branch of api.md §2.7. */
export interface ApiBranch {
  id: number;
  name: string;
  default: number;
  timezone: string;
  tenant: TenantRef;
}

export interface BranchCreate {
  tenantId: number;
  name: string;
  timezone?: string;
  default?: number;
}

export function toApiBranch(row: Selectable<BranchTable>, tenant: TenantRef): ApiBranch {
  return { id: row.id, name: row.name, default: row.is_default, timezone: row.timezone, tenant };
}

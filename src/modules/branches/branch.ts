import type { ResponseBody } from '../../http/route';
import type { SchemaTypes } from '../../validation/schema-types';
import type { Selectable } from 'kysely';
import type { BranchTable } from '../../db/schema';
import type { TenantRef } from '../tenants/tenants.repository';

/** The Branch of api.md §2.7 (schemas/branch.json). */
export type ApiBranch = ResponseBody<'branch'>;

export type BranchCreate = SchemaTypes['branch-create'];

export function toApiBranch(row: Selectable<BranchTable>, tenant: TenantRef): ApiBranch {
  return { id: row.id, name: row.name, default: row.is_default, timezone: row.timezone, tenant };
}

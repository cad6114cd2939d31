import type { Expression, SqlBool } from 'kysely';
import { variantCondition } from '../db/query';
import type { TenantScope } from './scope';

/**
 * The WHERE condition that keeps a query on tenant-owned rows inside a scope: the one way tenant scoping is
 * written. `scope` is a caller's scope, or its placeholder in a query compiled once (db/query.ts: p.scope),
 * whose SQL then has a variant for every tenant (no condition), one for one tenant (its id) and one for some
 * (their ids as one JSON list parameter, so every scope of several tenants shares one statement).
 */
export function tenantIn(scope: TenantScope, column = 'tenant_id'): Expression<SqlBool> {
  return variantCondition(scope, column);
}

import { sql, type Expression, type SqlBool } from 'kysely';
import { inScope, scopeIds, type TenantScope } from '../http/scope';
import { inJsonList, type Placeholder } from './database';

/**
 * The WHERE condition that keeps a query on tenant-owned rows inside a caller's scope. Repositories take the
 * scope as a required argument and pass it here, so that no read of tenant-owned data can forget it.
 */
export function inTenants(scope: TenantScope, column = 'tenant_id'): Expression<SqlBool> {
  const ids = scopeIds(scope);
  return ids === null ? sql<SqlBool>`1 = 1` : sql<SqlBool>`${sql.ref(column)} in (${sql.join(ids)})`;
}

/**
 * The same rule for a row read by its primary key alone (a query compiled once for every scope, see
 * selectOnce in ./database.ts): the row when its tenant is in the scope, else nothing, as if not found.
 */
export function keptInScope<R extends { tenant_id: number }>(scope: TenantScope, row: R | undefined): R | undefined {
  return row && inScope(scope, row.tenant_id) ? row : undefined;
}

/**
 * inTenants in a query compiled once per shape (selectShaped in ./database.ts): whether the scope is every
 * tenant belongs to the shape (allTenants), its ids are the placeholder 'tenantIds', valued by tenantIdsValue.
 */
export function inTenantsShaped(allTenants: boolean, p: Placeholder, column = 'tenant_id'): Expression<SqlBool> {
  return allTenants ? sql<SqlBool>`1 = 1` : inJsonList(column, p('tenantIds'));
}

export function tenantIdsValue(scope: TenantScope): string | null {
  const ids = scopeIds(scope);
  return ids === null ? null : JSON.stringify(ids);
}

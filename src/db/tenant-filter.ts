import { sql, type Expression, type SqlBool } from 'kysely';
import { scopeIds, type TenantScope } from '../http/scope';

/**
 * The WHERE condition that keeps a query on tenant-owned rows inside a caller's scope. Repositories take the
 * scope as a required argument and pass it here, so that no read of tenant-owned data can forget it.
 */
export function inTenants(scope: TenantScope, column = 'tenant_id'): Expression<SqlBool> {
  const ids = scopeIds(scope);
  return ids === null ? sql<SqlBool>`1 = 1` : sql<SqlBool>`${sql.ref(column)} in (${sql.join(ids)})`;
}

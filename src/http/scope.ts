import { forbidden } from '../errors';

/**
 * The tenants a caller may see and act in, resolved once per request from its role (decisions.md §5):
 * every tenant for a platform admin, the tenants of its partner for a partner admin, else its own.
 * Every repository query on tenant-owned data takes one of these (or a single tenant id) as a required
 * argument, so a forgotten tenant filter is a type error.
 */
export type TenantScope = { readonly all: true } | { readonly all: false; readonly tenantIds: readonly number[] };

export const ALL_TENANTS: TenantScope = Object.freeze({ all: true });

export function tenantsScope(ids: readonly number[]): TenantScope {
  if (ids.length === 1) return tenantScope(ids[0] as number);
  return Object.freeze({ all: false, tenantIds: Object.freeze([...ids]) });
}

/** The scope of one tenant (most callers' and every list's with a tenantId): made once per tenant, frozen, shared. */
const oneTenant = new Map<number, TenantScope>();
const ONE_TENANT_SCOPES_KEPT = 10_000;

function tenantScope(id: number): TenantScope {
  let scope = oneTenant.get(id);
  if (!scope) {
    if (oneTenant.size >= ONE_TENANT_SCOPES_KEPT) oneTenant.clear();
    oneTenant.set(id, (scope = Object.freeze({ all: false, tenantIds: Object.freeze([id]) })));
  }
  return scope;
}

export function inScope(scope: TenantScope, tenantId: number): boolean {
  return scope.all || scope.tenantIds.includes(tenantId);
}

/** A tenantId named in a body or query must be one the caller may act in: else 403. */
export function requireTenant(scope: TenantScope, tenantId: number): void {
  if (!inScope(scope, tenantId)) throw forbidden(`You may not act in tenant ${tenantId}`);
}

/**
 * The scope of a list: the named tenant (checked), or without one every tenant the caller may see
 * (its own tenant for most roles, all reachable tenants for platform and partner admins).
 */
export function listScope(scope: TenantScope, tenantId: number | undefined): TenantScope {
  if (tenantId === undefined) return scope;
  requireTenant(scope, tenantId);
  return tenantsScope([tenantId]);
}

/** The tenant ids to filter on, or null for every tenant. */
export function scopeIds(scope: TenantScope): readonly number[] | null {
  return scope.all ? null : scope.tenantIds;
}

import { forbidden } from '../errors';
import { SQL_VALUE, SQL_VARIANT } from '../db/query';

declare const scopeBrand: unique symbol;

/**
 * The tenants a caller may see and act in, resolved once per request from its role (decisions.md §5):
 * every tenant for a platform admin, the tenants of its partner for a partner admin, else its own. Every
 * repository query on tenant-owned data takes one as a required argument and puts it into its WHERE
 * (tenantIn, ./tenant-filter.ts). Only this file makes one (the brand): a bare tenant id or list of ids
 * is a type error where a scope is expected, so no repository can be handed ids nobody checked.
 */
export type TenantScope = ({ readonly all: true } | { readonly all: false; readonly tenantIds: readonly number[] }) & {
  readonly [scopeBrand]: true;
  /** As a parameter of a compiled query (db/query.ts): every tenant or some, and the JSON list bound for some. */
  readonly [SQL_VARIANT]: 'all' | 'one' | 'some';
  readonly [SQL_VALUE]: string | number | null;
};

/** Every tenant: a platform admin's scope, and the CLI's (which acts on the whole installation). */
export const ALL_TENANTS: TenantScope = Object.freeze({ all: true, [SQL_VARIANT]: 'all', [SQL_VALUE]: null }) as unknown as TenantScope;

function someTenants(ids: readonly number[]): TenantScope {
  const tenantIds = Object.freeze([...ids]);
  return Object.freeze({ all: false, tenantIds, [SQL_VARIANT]: 'some', [SQL_VALUE]: JSON.stringify(tenantIds) }) as unknown as TenantScope;
}

/** The scope of these tenants (a caller's own, a partner's); access code only, from ids it has read itself. */
export function tenantsScope(ids: readonly number[]): TenantScope {
  if (ids.length === 1) return tenantScope(ids[0] as number);
  return someTenants(ids);
}

/** The scope of one tenant (most callers' and every list's with a tenantId): made once per tenant, frozen, shared. */
const oneTenant = new Map<number, TenantScope>();
const ONE_TENANT_SCOPES_KEPT = 10_000;

function tenantScope(id: number): TenantScope {
  let scope = oneTenant.get(id);
  if (!scope) {
    if (oneTenant.size >= ONE_TENANT_SCOPES_KEPT) oneTenant.clear();
    // Its own variant: `tenant_id = ?` is a plain index comparison where a JSON list needs json_each per run.
    const one = { all: false, tenantIds: Object.freeze([id]), [SQL_VARIANT]: 'one', [SQL_VALUE]: id };
    oneTenant.set(id, (scope = Object.freeze(one) as unknown as TenantScope));
  }
  return scope;
}

/**
 * The scope of work the server does on its own behalf (a job, a login) for the tenant of a row it has read
 * itself: a scheduled report's run acts in its filter's tenant, a signed-in user's branch is read in the user's
 * tenant. Never for a tenant named by a request, which goes through requireTenant; it takes the stored row, not
 * a number, so that an id from a body or a path cannot be handed to it.
 */
export function scopeOfStoredRow(row: { readonly tenant_id: number }): TenantScope {
  return tenantScope(row.tenant_id);
}

export function inScope(scope: TenantScope, tenantId: number): boolean {
  return scope.all || scope.tenantIds.includes(tenantId);
}

/**
 * A tenantId named in a body or query must be one the caller may act in: else 403. The answer is the scope
 * of that one tenant, for the repository calls that act in it.
 */
export function requireTenant(scope: TenantScope, tenantId: number): TenantScope {
  if (!inScope(scope, tenantId)) throw forbidden(`You may not act in tenant ${tenantId}`);
  return tenantScope(tenantId);
}

/**
 * The scope of a list: the named tenant (checked), or without one every tenant the caller may see
 * (its own tenant for most roles, all reachable tenants for platform and partner admins).
 */
export function listScope(scope: TenantScope, tenantId: number | undefined): TenantScope {
  return tenantId === undefined ? scope : requireTenant(scope, tenantId);
}

/** The tenant ids to filter on, or null for every tenant. */
export function scopeIds(scope: TenantScope): readonly number[] | null {
  return scope.all ? null : scope.tenantIds;
}

/** The one tenant of a one-tenant scope (what requireTenant gives), for the rows a repository writes in it. */
export function soleTenant(scope: TenantScope): number {
  if (scope.all || scope.tenantIds.length !== 1) throw new Error('a scope of exactly one tenant expected');
  return scope.tenantIds[0] as number;
}

import type { Db } from '../db/database';
import { CALLER_COLUMNS, callerUser, partnerOfTenant, tenantsOfPartner, type CallerUser } from './caller.repository';
import { notAuthenticated } from '../errors';
import { ALL_PERMISSIONS, effectivePermissions, ownPermissions, roleOf, roleValue, type Permission } from './permissions';
import { ALL_TENANTS, tenantsScope, type TenantScope } from './scope';

export { CALLER_COLUMNS, type CallerUser };

/** What a bearer token says: whose it is and the version of that user's credentials it was issued for. */
export interface TokenVerifier {
  verify(token: string): { readonly uid: number; readonly ver: number; readonly iat?: number } | null;
}

/** The authenticated user of a request: who it is, what it may do, and in which tenants. */
export interface Caller {
  readonly user: CallerUser;
  readonly permissions: ReadonlySet<Permission>;
  readonly scope: TenantScope;
  /** When the request's token was issued (Unix seconds; 0 when not from a token): how recently the user proved who it is. */
  readonly issuedAt: number;
}

/**
 * The token of an `Authorization: Bearer <JWT>` header (the scheme in any case, RFC 9110 §11.1), or null when
 * the header is anything else.
 */
export function bearerToken(header: string | undefined): string | null {
  const m = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i.exec(header ?? '');
  return m ? (m[1] as string) : null;
}

/**
 * Resolves a bearer token to a Caller, or throws 401. The user is read on every request, so a token dies
 * the moment its user is deleted or changes its password (the token's version no longer matches).
 */
export async function resolveCaller(db: Db, tokens: TokenVerifier, token: string | null): Promise<Caller> {
  const claims = token ? tokens.verify(token) : null;
  if (!claims) throw notAuthenticated('Missing, invalid or expired access token');
  const user = await callerUser(db, claims.uid);
  if (!user || user.token_version !== claims.ver) throw notAuthenticated('Missing, invalid or expired access token');
  return callerOf(db, user, claims.iat ?? 0);
}

/** The caller of a user row: at once for every role but a partner admin's, whose tenants are read. */
export function callerOf(db: Db, user: CallerUser, issuedAt = 0): Caller | Promise<Caller> {
  const permissions = permissionsOf(user);
  const reach = roleOf(user.user_role)?.reach ?? 'own';
  if (reach === 'all') return { user, permissions, scope: ALL_TENANTS, issuedAt };
  if (reach === 'own') return { user, permissions, scope: tenantsScope([user.tenant_id]), issuedAt };
  return partnerScope(db, user).then((scope) => ({ user, permissions, scope, issuedAt }));
}

/**
 * The effective permissions of a role and a list of own grants and denials, computed once per distinct
 * pair (matching every pattern against every permission took 2-3 % of a request's time). The key is the
 * stored text itself, so a changed role or list is a new key, read fresh from the user row of each request.
 */
const permissionSets = new Map<string, ReadonlySet<Permission>>();
const PERMISSION_SETS_KEPT = 1000;

function permissionsOf(user: CallerUser): ReadonlySet<Permission> {
  const key = `${user.user_role} ${user.permissions}`;
  let set = permissionSets.get(key);
  if (!set) {
    if (permissionSets.size >= PERMISSION_SETS_KEPT) permissionSets.clear();
    set = effectivePermissions(user.user_role, ownPermissions(user)); // shared: read-only by its type
    permissionSets.set(key, set);
  }
  return set;
}

/** A partner admin's partner: its own partnerId, or its tenant's when it has none (a row from before issue 27); 0 for none. */
export async function partnerIdOf(db: Db, user: Pick<CallerUser, 'partner_id' | 'tenant_id'>): Promise<number> {
  return user.partner_id || partnerOfTenant(db, user.tenant_id);
}

async function partnerScope(db: Db, user: CallerUser): Promise<TenantScope> {
  // A partner admin reaches every tenant of its partner.
  const partnerId = await partnerIdOf(db, user);
  if (!partnerId) return tenantsScope([user.tenant_id]); // no partner: nothing beyond its own tenant
  return tenantsScope(await tenantsOfPartner(db, partnerId));
}

/**
 * Whoever acts from the command line or a job (docs/architecture.md, "The service shape"): the machine's owner, a
 * platform admin of no tenant, with every permission, in every tenant.
 */
export const OPERATOR: Caller = Object.freeze({
  user: Object.freeze({ id: 0, tenant_id: 0, partner_id: 0, user_role: roleValue('PLATFORM_ADMIN'), permissions: '[]', token_version: 0 }),
  permissions: new Set(ALL_PERMISSIONS),
  scope: ALL_TENANTS,
  issuedAt: 0,
});

import { partnerIdOf, type Caller } from '../../access/caller';
import { pageOf, pageWindow, type Page, type PageQuery } from '../../access/paging';
import { requireMayGiveRole, roleOf } from '../../access/permissions';
import { ALL_TENANTS, inScope, requireTenant } from '../../access/scope';
import { transaction, type Db } from '../../db/database';
import { conflict, forbidden, notFound } from '../../errors';
import type { SchemaTypes } from '../../validation/schema-types';
import {
  deleteTenantCascade,
  endSessionsWithoutMfa,
  findTenant,
  foreignSavedFilter,
  insertTenant,
  listTenants,
  ownedRecords,
  updateTenant,
  userRolesOf,
} from './tenants.repository';

export type ApiTenant = SchemaTypes['tenant'];

/** What this service uses (docs/architecture.md, "The service shape"). */
export interface TenantDeps {
  readonly db: Db;
}

/*
 * Tenants (an addition to the hosted API, issue 18): platform admins reach every tenant, partner admins the
 * tenants of their partner (their scope); account admins have no tenant permission (decisions.md §5).
 */

const toApi = (r: { id: number; name: string; partner_id: number; mfa_required: number }): ApiTenant => ({
  id: r.id,
  name: r.name,
  partnerId: r.partner_id,
  mfaRequired: r.mfa_required === 1 ? 1 : 0,
});

const isPlatform = (caller: Caller) => roleOf(caller.user.user_role)?.reach === 'all';

export async function getTenant(deps: TenantDeps, caller: Caller, id: number): Promise<ApiTenant> {
  const row = await findTenant(deps.db, caller.scope, id);
  if (!row) throw notFound(`Tenant ${id}`);
  return toApi(row);
}

export async function tenantPage(deps: TenantDeps, caller: Caller, q: PageQuery): Promise<Page<ApiTenant>> {
  const { rows, total } = await listTenants(deps.db, caller.scope, pageWindow(q));
  return pageOf(rows.map(toApi), total, q);
}

/**
 * A partner admin creates and keeps tenants of its own partner (the one its scope is of), never of another or of
 * partner 0; only a platform admin names another partner.
 */
async function partnerFor(db: Db, caller: Caller, asked: number | undefined): Promise<number> {
  if (isPlatform(caller)) return asked ?? 0;
  const own = await partnerIdOf(db, caller.user);
  if (own === 0) throw forbidden('You are a partner admin of no partner: ask a platform admin to give your tenant one');
  if (asked !== undefined && asked !== own) throw forbidden('A partner admin manages the tenants of its own partner only');
  return own;
}

export async function createTenant(deps: TenantDeps, caller: Caller, input: SchemaTypes['tenant-create']): Promise<ApiTenant> {
  const partnerId = await partnerFor(deps.db, caller, input.partnerId);
  const id = await insertTenant(deps.db, { name: input.name, partnerId, mfaRequired: input.mfaRequired });
  // The row just made, read back whatever the caller's scope says of it yet (a partner admin's is read at its request).
  const row = await findTenant(deps.db, ALL_TENANTS, id);
  if (!row) throw notFound(`Tenant ${id}`);
  return toApi(row);
}

export async function changeTenant(deps: TenantDeps, caller: Caller, id: number, patch: SchemaTypes['tenant-update']): Promise<ApiTenant> {
  return transaction(deps.db, async (trx) => {
    await getTenant({ db: trx }, caller, id);
    const partnerId = patch.partnerId === undefined ? undefined : await partnerFor(trx, caller, patch.partnerId);
    const scope = requireTenant(caller.scope, id);
    await updateTenant(trx, scope, id, { name: patch.name, partnerId, mfaRequired: patch.mfaRequired });
    // MFA required means required: a session opened without MFA ends now, not when its token expires.
    if (patch.mfaRequired === 1) await endSessionsWithoutMfa(trx, scope);
    return getTenant({ db: trx }, caller, id);
  });
}

/**
 * Deletes a tenant, returning it as it was. One that owns records goes only with `cascade`, which deletes all
 * of them in the same transaction; otherwise 409 naming them. A caller cannot delete its own tenant.
 */
export async function removeTenant(deps: TenantDeps, caller: Caller, id: number, cascade = false): Promise<ApiTenant> {
  return transaction(deps.db, async (trx) => {
    const tenant = await getTenant({ db: trx }, caller, id);
    if (caller.user.tenant_id === id) throw conflict(`Tenant ${id} is your own tenant: another admin must delete it`);
    const scope = requireTenant(caller.scope, id);
    const owned = await ownedRecords(trx, scope);
    if (owned.length > 0 && !cascade)
      throw conflict(`Tenant ${id} still owns ${owned.join(', ')}; delete with cascade=1 to delete them with it`);
    // Its users go with it: none may be above the caller's role (as when deleting them one by one).
    for (const role of await userRolesOf(trx, scope)) requireMayGiveRole(caller.user.user_role, role);
    const foreign = await foreignSavedFilter(trx, scope);
    if (foreign) {
      const which = inScope(caller.scope, foreign.tenant_id)
        ? `saved filter ${foreign.id} of tenant ${foreign.tenant_id}`
        : 'a saved filter of another tenant';
      throw conflict(`A user of tenant ${id} owns ${which}: delete or hand it over first`);
    }
    await deleteTenantCascade(trx, scope);
    return tenant;
  });
}

import type { Caller } from '../../access/caller';
import { pageOf, pageWindow, type Page, type PageQuery } from '../../access/paging';
import { requireMayGiveRole, roleOf } from '../../access/permissions';
import { listScope, requireTenant, tenantsScope } from '../../access/scope';
import type { Clock } from '../../clock';
import { transaction, type Db } from '../../db/database';
import type { UserRow } from '../../db/schema';
import { badRequest, conflict, notFound } from '../../errors';
import type { SchemaTypes } from '../../validation/schema-types';
import { findUserByEmail } from '../auth/credentials.repository';
import { hashPassword, userObject, type ApiUser } from '../auth/auth.service';
import { resetMfaOf } from '../auth/enrolment.service';
import { sendResetFor, type PasswordDeps, type StatusAnswer } from '../auth/password.service';
import { isBranchOfTenant } from '../branches/branches.repository';
import { findExtension } from '../extensions/extensions.repository';
import { findTenant } from '../tenants/tenants.repository';
import { deleteUser, findUser, insertUser, listUsers, savedFiltersOwnedBy, updateUser, type UserChange } from './users.repository';

/** What this service uses (docs/architecture.md, "The service shape"). */
export interface UserAdminDeps {
  readonly db: Db;
  readonly clock: Clock;
}

/*
 * A tenant's users, administered (an addition to the hosted API, issue 18). Roles are ranked by reach and power
 * (requireMayGiveRole, src/access/permissions.ts); a caller gives no role above its own, so nobody raises its
 * own role, and every read and write is in the caller's scope (another tenant's user is 404).
 */

const requireMayGive = (caller: Caller, role: number) => requireMayGiveRole(caller.user.user_role, role);

const toApi = (db: Db, row: UserRow): Promise<ApiUser> => userObject({ db }, row, { withPeerSecret: false });

async function userOf(db: Db, caller: Caller, id: number): Promise<UserRow> {
  const row = await findUser(db, caller.scope, id);
  if (!row) throw notFound(`User ${id}`);
  return row;
}

export async function getUser(deps: Pick<UserAdminDeps, 'db'>, caller: Caller, id: number): Promise<ApiUser> {
  return toApi(deps.db, await userOf(deps.db, caller, id));
}

export async function userPage(
  deps: Pick<UserAdminDeps, 'db'>,
  caller: Caller,
  q: { tenantId?: number } & PageQuery,
): Promise<Page<ApiUser>> {
  const { rows, total } = await listUsers(deps.db, listScope(caller.scope, q.tenantId), pageWindow(q));
  return pageOf(await Promise.all(rows.map((r) => toApi(deps.db, r))), total, q);
}

/** The branch and extension columns of a user of the tenant, checked to be that tenant's (400 otherwise). */
async function placement(db: Db, tenantId: number, branchId: number | null | undefined, extId: number | null | undefined) {
  const out: UserChange = {};
  const problems: string[] = [];
  if (branchId !== undefined) {
    if (branchId !== null && !(await isBranchOfTenant(db, tenantId, branchId)))
      problems.push(`branchId: branch ${branchId} is not a branch of tenant ${tenantId}`);
    out.branch_id = branchId;
  }
  if (extId !== undefined) {
    const ext = extId === null ? null : await findExtension(db, tenantsScope([tenantId]), extId);
    if (extId !== null && !ext) problems.push(`extId: extension ${extId} is not an extension of tenant ${tenantId}`);
    Object.assign(out, {
      ext_id: ext?.id ?? 0,
      ext_num: ext?.ext_num ?? 0,
      ext_name: ext?.ext_name ?? '',
      peer_name: ext?.peer_name ?? '',
    });
  }
  if (problems.length > 0) throw badRequest(problems);
  return out;
}

/** The partner_id of a user of this role in this tenant: its tenant's partner for a partner admin (409 when it has none), else 0. */
function partnerOfRole(tenant: { id: number; partner_id: number }, role: number): number {
  if (roleOf(role)?.reach !== 'partner') return 0;
  if (tenant.partner_id === 0)
    throw conflict(`Tenant ${tenant.id} belongs to no partner: a partner admin needs one (set its partnerId first)`);
  return tenant.partner_id;
}

export async function createUser(deps: UserAdminDeps, caller: Caller, input: SchemaTypes['user-create']): Promise<ApiUser> {
  const scope = requireTenant(caller.scope, input.tenantId);
  requireMayGive(caller, input.userRole);
  const passwordHash = await hashPassword(input.password);
  return transaction(deps.db, async (trx) => {
    const tenant = await findTenant(trx, scope, input.tenantId);
    if (!tenant) throw notFound(`Tenant ${input.tenantId}`);
    if (await findUserByEmail(trx, input.email)) throw conflict(`A user with the e-mail ${input.email} already exists`);
    const placed = await placement(trx, tenant.id, input.branchId, input.extId);
    const id = await insertUser(trx, {
      tenant_id: tenant.id,
      email: input.email,
      password_hash: passwordHash,
      user_role: input.userRole,
      partner_id: partnerOfRole(tenant, input.userRole),
      created_at: new Date(deps.clock.now()).toISOString(),
      ...placed,
    });
    return toApi(trx, await userOf(trx, caller, id));
  });
}

export async function changeUser(
  deps: Pick<UserAdminDeps, 'db'>,
  caller: Caller,
  id: number,
  patch: SchemaTypes['user-update'],
): Promise<ApiUser> {
  return transaction(deps.db, async (trx) => {
    const user = await userOf(trx, caller, id);
    // Nothing about a user whose role is above the caller's is the caller's to change.
    requireMayGive(caller, user.user_role);
    const set: UserChange = await placement(trx, user.tenant_id, patch.branchId, patch.extId);
    let newRole = false;
    if (patch.userRole !== undefined && patch.userRole !== user.user_role) {
      requireMayGive(caller, patch.userRole);
      const tenant = await findTenant(trx, caller.scope, user.tenant_id);
      if (!tenant) throw notFound(`Tenant ${user.tenant_id}`);
      set.user_role = patch.userRole;
      set.partner_id = partnerOfRole(tenant, patch.userRole);
      // A change of role changes what its tokens may do: they end, as on a password change.
      newRole = true;
    }
    if (Object.keys(set).length > 0) await updateUser(trx, caller.scope, id, set, newRole);
    return toApi(trx, await userOf(trx, caller, id));
  });
}

export async function removeUser(deps: Pick<UserAdminDeps, 'db'>, caller: Caller, id: number): Promise<ApiUser> {
  return transaction(deps.db, async (trx) => {
    const user = await userOf(trx, caller, id);
    if (user.id === caller.user.id) throw conflict('You cannot delete yourself');
    requireMayGive(caller, user.user_role);
    const n = await savedFiltersOwnedBy(trx, id);
    if (n > 0)
      throw conflict(`User ${id} owns ${n === 1 ? '1 saved filter' : `${n} saved filters`}: delete ${n === 1 ? 'it' : 'them'} first`);
    const gone = await toApi(trx, user);
    await deleteUser(trx, caller.scope, id);
    return gone;
  });
}

/**
 * POST /v2/admin/users/{id}/mfa-reset: forgets the user's MFA modes and ends its sessions. Not one's own (that is
 * turned off on one's account, with the password as proof: a session alone must not remove its own factor), and
 * not a user whose role is above the caller's.
 */
export async function resetUserMfa(deps: Pick<UserAdminDeps, 'db'>, caller: Caller, id: number): Promise<StatusAnswer> {
  const user = await userOf(deps.db, caller, id);
  if (user.id === caller.user.id)
    throw conflict('You cannot reset your own MFA here: turn it off on your account page, with your password');
  requireMayGive(caller, user.user_role);
  return resetMfaOf(deps, caller, user);
}

/**
 * POST /v2/admin/users/{id}/password-reset: e-mails the user the reset token the public request would (its
 * password stays as it is until the user sets a new one), within the same limit per address.
 */
export async function sendUserPasswordReset(
  deps: Omit<PasswordDeps, 'tokens'>,
  caller: Caller,
  id: number,
  ip: string,
): Promise<StatusAnswer> {
  const user = await userOf(deps.db, caller, id);
  requireMayGive(caller, user.user_role);
  return sendResetFor(deps, user, ip);
}

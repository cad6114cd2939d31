import { sql } from 'kysely';
import type { Caller } from '../../access/caller';
import { callerOf } from '../../access/caller';
import { pageOf, pageWindow, windowed, type Page, type PageQuery } from '../../access/paging';
import { roleOf, type RoleName } from '../../access/permissions';
import { listScope, requireTenant, scopeOfStoredRow, type TenantScope } from '../../access/scope';
import { tenantIn } from '../../access/tenant-filter';
import type { Db } from '../../db/database';
import type { UserRow } from '../../db/schema';
import { badRequest, conflict, forbidden, notFound } from '../../errors';
import type { SchemaTypes } from '../../validation/schema-types';
import { hashPassword } from '../auth/passwords';
import { isBranchOfTenant } from '../branches/branches.repository';
import { toApiUser, type ApiUser } from './user';
import { branchName, findUserByEmail, insertUser } from './users.repository';

/*
 * A tenant's users, administered (an addition to the hosted API, issue 18). Roles are ranked by reach and
 * power; a caller gives no role above its own, so nobody raises its own role, and every read and write is in
 * the caller's scope (another tenant's user is 404).
 */

const RANK: Readonly<Record<RoleName, number>> = {
  PLATFORM_ADMIN: 5,
  PARTNER_ADMIN: 4,
  ACCOUNT_ADMIN: 3,
  REPORTS_ADMIN: 2,
  QUEUE_MANAGER: 2,
  BASIC_USER: 1,
};

/** A role's rank by its name: an unknown number given ranks above everyone, an unknown caller's below. */
function rankOf(value: number, unknown: number): number {
  const role = roleOf(value);
  return role ? RANK[role.name] : unknown;
}

function mayGive(caller: Caller, role: number): void {
  if (rankOf(role, 99) > rankOf(caller.user.user_role, 0))
    throw forbidden(
      `Role ${roleOf(role)?.name ?? role} is above your own (${roleOf(caller.user.user_role)?.name ?? caller.user.user_role})`,
    );
}

async function toApi(db: Db, row: UserRow): Promise<ApiUser> {
  const permissions = [...(await callerOf(db, row)).permissions].sort();
  return toApiUser(row, { branchName: await branchName(db, scopeOfStoredRow(row), row.branch_id), permissions, withPeerSecret: false });
}

async function findUser(db: Db, caller: Caller, id: number): Promise<UserRow> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).where(tenantIn(caller.scope)).executeTakeFirst();
  if (!row) throw notFound(`User ${id}`);
  return row;
}

export async function getUser(db: Db, caller: Caller, id: number): Promise<ApiUser> {
  return toApi(db, await findUser(db, caller, id));
}

export async function userPage(db: Db, caller: Caller, q: { tenantId?: number } & PageQuery): Promise<Page<ApiUser>> {
  const scope = listScope(caller.scope, q.tenantId);
  const rows = await windowed(db.selectFrom('users').selectAll().where(tenantIn(scope)).orderBy('id'), pageWindow(q)).execute();
  const { n } = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(tenantIn(scope))
    .executeTakeFirstOrThrow();
  return pageOf(await Promise.all(rows.map((r) => toApi(db, r))), Number(n), q);
}

/** The branch and extension columns of a user of the tenant, checked to be that tenant's (400 otherwise). */
async function placement(db: Db, tenantId: number, branchId: number | null | undefined, extId: number | null | undefined) {
  const out: Partial<Pick<UserRow, 'branch_id' | 'ext_id' | 'ext_num' | 'ext_name' | 'peer_name'>> = {};
  const problems: string[] = [];
  if (branchId !== undefined) {
    if (branchId !== null && !(await isBranchOfTenant(db, tenantId, branchId)))
      problems.push(`branchId: branch ${branchId} is not a branch of tenant ${tenantId}`);
    out.branch_id = branchId;
  }
  if (extId !== undefined) {
    const ext =
      extId === null
        ? null
        : await db.selectFrom('extensions').selectAll().where('id', '=', extId).where('tenant_id', '=', tenantId).executeTakeFirst();
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

/** The users of the scope's tenants go with them (a tenant deleted with cascade): none may be above the caller's role. */
export async function mayRemoveUsersOf(db: Db, caller: Caller, scope: TenantScope): Promise<void> {
  const roles = await db.selectFrom('users').select('user_role').distinct().where(tenantIn(scope)).execute();
  for (const r of roles) mayGive(caller, r.user_role);
}

export async function createUser(db: Db, caller: Caller, input: SchemaTypes['user-create']): Promise<ApiUser> {
  const scope = requireTenant(caller.scope, input.tenantId);
  mayGive(caller, input.userRole);
  const passwordHash = await hashPassword(input.password);
  return db.transaction().execute(async (trx) => {
    const tenant = await trx.selectFrom('tenants').select(['id', 'partner_id']).where(tenantIn(scope, 'id')).executeTakeFirst();
    if (!tenant) throw notFound(`Tenant ${input.tenantId}`);
    if (await findUserByEmail(trx, input.email)) throw conflict(`A user with the e-mail ${input.email} already exists`);
    const placed = await placement(trx, tenant.id, input.branchId, input.extId);
    const id = await insertUser(trx, {
      tenant_id: tenant.id,
      email: input.email,
      password_hash: passwordHash,
      user_role: input.userRole,
      partner_id: partnerOfRole(tenant, input.userRole),
      created_at: new Date().toISOString(),
      ...placed,
    });
    return toApi(trx, await findUser(trx, caller, id));
  });
}

export async function changeUser(db: Db, caller: Caller, id: number, patch: SchemaTypes['user-update']): Promise<ApiUser> {
  return db.transaction().execute(async (trx) => {
    const user = await findUser(trx, caller, id);
    // Nothing about a user whose role is above the caller's is the caller's to change.
    mayGive(caller, user.user_role);
    const set: Record<string, unknown> = await placement(trx, user.tenant_id, patch.branchId, patch.extId);
    if (patch.userRole !== undefined && patch.userRole !== user.user_role) {
      mayGive(caller, patch.userRole);
      const tenant = await trx
        .selectFrom('tenants')
        .select(['id', 'partner_id'])
        .where('id', '=', user.tenant_id)
        .executeTakeFirstOrThrow();
      set.user_role = patch.userRole;
      set.partner_id = partnerOfRole(tenant, patch.userRole);
      // A change of role changes what its tokens may do: they end, as on a password change.
      set.token_version = sql`token_version + 1`;
    }
    if (Object.keys(set).length > 0) await trx.updateTable('users').set(set).where('id', '=', id).execute();
    return toApi(trx, await findUser(trx, caller, id));
  });
}

export async function removeUser(db: Db, caller: Caller, id: number): Promise<ApiUser> {
  return db.transaction().execute(async (trx) => {
    const user = await findUser(trx, caller, id);
    if (user.id === caller.user.id) throw conflict('You cannot delete yourself');
    mayGive(caller, user.user_role);
    const { n } = await trx
      .selectFrom('saved_filters')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', id)
      .executeTakeFirstOrThrow();
    if (Number(n) > 0) throw conflict(`User ${id} owns ${n} saved filters: delete them or hand them over first`);
    const gone = await toApi(trx, user);
    await trx.deleteFrom('mfa_challenges').where('user_id', '=', id).execute();
    await trx.deleteFrom('users').where('id', '=', id).execute();
    return gone;
  });
}

/**
 * Ends the tokens of the users of the scope's tenants who have no MFA (their tenant now requires it): they sign in
 * again, and the sign-in sends them to set MFA up. The number of users whose tokens ended.
 */
export async function endSessionsWithoutMfa(db: Db, scope: TenantScope): Promise<number> {
  const res = await db
    .updateTable('users')
    .set({ token_version: sql`token_version + 1` })
    .where(tenantIn(scope))
    .where('mfa_enabled', '!=', 1)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

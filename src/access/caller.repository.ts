import type { Db } from '../db/database';
import { defineQuery, type Params } from '../db/query';
import type { UserRow } from '../db/schema';

/** What every authenticated request needs of its user: who, where, what it may do, its credentials' version. */
export const CALLER_COLUMNS = ['id', 'tenant_id', 'partner_id', 'user_role', 'permissions', 'token_version'] as const;
export type CallerUser = Pick<UserRow, (typeof CALLER_COLUMNS)[number]>;

/** The six caller columns only: reading the whole user row (45 columns) took four times as long, on every request. */
const callerById = defineQuery((db, p: Params<{ id: number }>) => db.selectFrom('users').select(CALLER_COLUMNS).where('id', '=', p.id));

export async function callerUser(db: Db, id: number): Promise<CallerUser | undefined> {
  return callerById.first(db, { id });
}

/** The partner of a tenant (0: none). */
export async function partnerOfTenant(db: Db, tenantId: number): Promise<number> {
  return (await db.selectFrom('tenants').select('partner_id').where('id', '=', tenantId).executeTakeFirst())?.partner_id ?? 0;
}

/** The tenants of a partner. */
export async function tenantsOfPartner(db: Db, partnerId: number): Promise<number[]> {
  return (await db.selectFrom('tenants').select('id').where('partner_id', '=', partnerId).execute()).map((r) => r.id);
}

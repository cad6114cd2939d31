import { sql, type Selectable } from 'kysely';
import { windowed, type PageWindow } from '../../access/paging';
import { soleTenant, type TenantScope } from '../../access/scope';
import { tenantIn } from '../../access/tenant-filter';
import type { Db } from '../../db/database';
import type { TenantTable } from '../../db/schema';
import { defineQuery, type Params } from '../../db/query';
import { notFound } from '../../errors';

export interface TenantRef {
  id: number;
  name: string;
}

/** The tenant of a one-tenant scope (requireTenant's, scopeOfStoredRow's) as {id, name}; 404 when it does not exist. */
export async function getTenantRef(db: Db, scope: TenantScope): Promise<TenantRef> {
  const id = soleTenant(scope);
  const row = await db.selectFrom('tenants').select(['id', 'name']).where(tenantIn(scope, 'id')).executeTakeFirst();
  if (!row) throw notFound(`Tenant ${id}`);
  return row;
}

/**
 * The timezone the reports and new branches of the tenant of a one-tenant scope use: its default branch's
 * (the first one when there are several), else UTC (decisions.md §3, reporting.md R2).
 */
export async function timezoneOfTenant(db: Db, scope: TenantScope): Promise<string> {
  soleTenant(scope); // of several tenants, the first default branch of any would answer
  const row = await defaultBranchZone.first(db, { scope });
  return row?.timezone ?? 'UTC';
}

const defaultBranchZone = defineQuery((db, p: Params<{ scope: TenantScope }>) =>
  db
    .selectFrom('branches')
    .select('timezone')
    .where(tenantIn(p.scope))
    .where('is_default', '=', sql.lit(1))
    .orderBy('id')
    .limit(sql.lit(1)),
);

export async function insertTenant(db: Db, input: { id?: number; name: string; partnerId?: number; mfaRequired?: 0 | 1 }): Promise<number> {
  const row = await db
    .insertInto('tenants')
    .values({ id: input.id, name: input.name, partner_id: input.partnerId ?? 0, mfa_required: input.mfaRequired ?? 0 })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** timezoneOfTenant of every tenant of a scope at once, for reports over several tenants. */
export async function tenantTimezones(db: Db, scope: TenantScope): Promise<Map<number, string>> {
  const zones = new Map<number, string>();
  for (const t of await db.selectFrom('tenants').select('id').where(tenantIn(scope, 'id')).execute()) zones.set(t.id, 'UTC');
  const defaults = await db
    .selectFrom('branches')
    .select(['tenant_id', 'timezone'])
    .where(tenantIn(scope))
    .where('is_default', '=', 1)
    .orderBy('id', 'desc')
    .execute();
  for (const b of defaults) if (zones.has(b.tenant_id)) zones.set(b.tenant_id, b.timezone); // the first default branch wins
  return zones;
}

export type TenantRow = Selectable<TenantTable>;

/** The tenant `id` when the scope reaches it. */
export function findTenant(db: Db, scope: TenantScope, id: number): Promise<TenantRow | undefined> {
  return db.selectFrom('tenants').selectAll().where('id', '=', id).where(tenantIn(scope, 'id')).executeTakeFirst();
}

/** Does a tenant of the scope exist (the CLI's check of --tenant)? */
export async function tenantExists(db: Db, scope: TenantScope): Promise<boolean> {
  return (await db.selectFrom('tenants').select('id').where(tenantIn(scope, 'id')).executeTakeFirst()) !== undefined;
}

/** The first tenant, by id (the first administrator's, src/modules/users/bootstrap.ts). */
export function firstTenant(db: Db): Promise<{ id: number } | undefined> {
  return db.selectFrom('tenants').select('id').orderBy('id').executeTakeFirst();
}

/** A page of the tenants of the scope, by id, and how many there are. */
export async function listTenants(db: Db, scope: TenantScope, w: PageWindow): Promise<{ rows: TenantRow[]; total: number }> {
  const rows = await windowed(db.selectFrom('tenants').selectAll().where(tenantIn(scope, 'id')).orderBy('id'), w).execute();
  const { n } = await db
    .selectFrom('tenants')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(tenantIn(scope, 'id'))
    .executeTakeFirstOrThrow();
  return { rows, total: Number(n) };
}

/** Changes the tenant `id` of the scope (the fields given; undefined ones stay). */
export async function updateTenant(
  db: Db,
  scope: TenantScope,
  id: number,
  patch: { name?: string; partnerId?: number; mfaRequired?: 0 | 1 },
): Promise<void> {
  await db
    .updateTable('tenants')
    .set({ name: patch.name, partner_id: patch.partnerId, mfa_required: patch.mfaRequired })
    .where('id', '=', id)
    .where(tenantIn(scope, 'id'))
    .execute();
}

/**
 * Ends the tokens of the users of the scope's tenants who have no MFA (their tenant now requires it): they sign in
 * again, and the sign-in sends them to set MFA up. The number of users whose tokens ended. Here because it is a
 * change of the tenant (mfaRequired) that reaches its users, as its cascade does.
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

/** The distinct roles of the users of the scope's tenants (those a cascade delete would take with them). */
export async function userRolesOf(db: Db, scope: TenantScope): Promise<number[]> {
  const rows = await db.selectFrom('users').select('user_role').distinct().where(tenantIn(scope)).execute();
  return rows.map((r) => r.user_role);
}

/** The records a tenant owns, by kind, with counts (what a delete without cascade is refused for). */
const OWNED = [
  ['branches', 'branch', 'branches'],
  ['users', 'user', 'users'],
  ['extensions', 'extension', 'extensions'],
  ['queues', 'queue', 'queues'],
  ['phone_numbers', 'phone number', 'phone numbers'],
  ['emergency_locations', 'E911 location', 'E911 locations'],
  ['call_campaigns', 'call campaign', 'call campaigns'],
  ['webhooks', 'webhook', 'webhooks'],
  ['saved_filters', 'saved filter', 'saved filters'],
  ['cdr_calls', 'imported call', 'imported calls'],
] as const;

/** What the tenant of a one-tenant scope owns, as "3 branches", "1 user", … (kinds it has none of left out). */
export async function ownedRecords(db: Db, scope: TenantScope): Promise<string[]> {
  const id = soleTenant(scope);
  const out: string[] = [];
  for (const [table, one, many] of OWNED) {
    const r = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)} WHERE tenant_id = ${id}`.execute(db);
    const n = Number(r.rows[0]?.n ?? 0);
    if (n > 0) out.push(`${n} ${n === 1 ? one : many}`);
  }
  return out;
}

/** A saved filter of another tenant owned by a user of the tenant of a one-tenant scope, if any (it blocks the delete). */
export function foreignSavedFilter(db: Db, scope: TenantScope): Promise<{ id: number; tenant_id: number } | undefined> {
  const id = soleTenant(scope);
  return db
    .selectFrom('saved_filters as f')
    .innerJoin('users as u', 'u.id', 'f.user_id')
    .select(['f.id', 'f.tenant_id'])
    .where('u.tenant_id', '=', id)
    .where('f.tenant_id', '!=', id)
    .executeTakeFirst();
}

/**
 * Deletes the tenant of a one-tenant scope (run it in a transaction, after the service's checks). Everything it owns
 * goes with it by the database's foreign keys (ON DELETE CASCADE) and triggers
 * (db/migrations/2026-11-27T1400_cascade_deletes.ts): no list of tables here to keep.
 */
export async function deleteTenantCascade(db: Db, scope: TenantScope): Promise<void> {
  await db.deleteFrom('tenants').where(tenantIn(scope, 'id')).execute();
}

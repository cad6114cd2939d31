import { sql } from 'kysely';
import { soleTenant, type TenantScope } from '../../access/scope';
import { tenantIn } from '../../access/tenant-filter';
import type { Db } from '../../db/database';
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

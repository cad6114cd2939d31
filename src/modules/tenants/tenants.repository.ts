import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { defineQuery, type Params } from '../../db/query';
import { notFound } from '../../errors';

export interface TenantRef {
  id: number;
  name: string;
}

/** The tenant as {id, name}; 404 when it does not exist. The caller has checked that it may act in it. */
export async function getTenantRef(db: Db, tenantId: number): Promise<TenantRef> {
  const row = await db.selectFrom('tenants').select(['id', 'name']).where('id', '=', tenantId).executeTakeFirst();
  if (!row) throw notFound(`Tenant ${tenantId}`);
  return row;
}

/**
 * The timezone a tenant's reports and new branches use: its default branch's (the first one when there
 * are several), else UTC (decisions.md §3, reporting.md R2).
 */
export async function tenantTimezone(db: Db, tenantId: number): Promise<string> {
  const row = await defaultBranchZone.first(db, { tenantId });
  return row?.timezone ?? 'UTC';
}

const defaultBranchZone = defineQuery((db, p: Params<{ tenantId: number }>) =>
  db.selectFrom('branches').select('timezone').where('tenant_id', '=', p.tenantId).where('is_default', '=', sql.lit(1)).orderBy('id').limit(sql.lit(1)),
);

export async function insertTenant(db: Db, input: { id?: number; name: string; partnerId?: number }): Promise<number> {
  const row = await db
    .insertInto('tenants')
    .values({ id: input.id, name: input.name, partner_id: input.partnerId ?? 0 })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** tenantTimezone of many tenants at once (null: every tenant), for reports over several tenants. */
export async function tenantTimezones(db: Db, tenantIds: readonly number[] | null): Promise<Map<number, string>> {
  let tenants = db.selectFrom('tenants').select('id');
  if (tenantIds) tenants = tenants.where('id', 'in', tenantIds.length > 0 ? [...tenantIds] : [0]);
  const zones = new Map<number, string>();
  for (const t of await tenants.execute()) zones.set(t.id, 'UTC');
  const defaults = await db.selectFrom('branches').select(['tenant_id', 'timezone']).where('is_default', '=', 1).orderBy('id', 'desc').execute();
  for (const b of defaults) if (zones.has(b.tenant_id)) zones.set(b.tenant_id, b.timezone); // the first default branch wins
  return zones;
}

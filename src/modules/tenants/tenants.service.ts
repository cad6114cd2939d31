import { sql } from 'kysely';
import { partnerIdOf, type Caller } from '../../access/caller';
import { pageOf, pageWindow, windowed, type Page, type PageQuery } from '../../access/paging';
import { roleOf } from '../../access/permissions';
import { inScope, requireTenant } from '../../access/scope';
import { tenantIn } from '../../access/tenant-filter';
import type { Db } from '../../db/database';
import { conflict, forbidden, notFound } from '../../errors';
import type { SchemaTypes } from '../../validation/schema-types';
import { deleteQueueData } from '../queues/queues.repository';
import { endSessionsWithoutMfa, mayRemoveUsersOf } from '../users/users-admin.service';
import { insertTenant } from './tenants.repository';

export type ApiTenant = SchemaTypes['tenant'];

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

export async function getTenant(db: Db, caller: Caller, id: number): Promise<ApiTenant> {
  const row = await db.selectFrom('tenants').selectAll().where('id', '=', id).where(tenantIn(caller.scope, 'id')).executeTakeFirst();
  if (!row) throw notFound(`Tenant ${id}`);
  return toApi(row);
}

export async function tenantPage(db: Db, caller: Caller, q: PageQuery): Promise<Page<ApiTenant>> {
  const rows = await windowed(
    db.selectFrom('tenants').selectAll().where(tenantIn(caller.scope, 'id')).orderBy('id'),
    pageWindow(q),
  ).execute();
  const { n } = await db
    .selectFrom('tenants')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(tenantIn(caller.scope, 'id'))
    .executeTakeFirstOrThrow();
  return pageOf(rows.map(toApi), Number(n), q);
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

export async function createTenant(db: Db, caller: Caller, input: SchemaTypes['tenant-create']): Promise<ApiTenant> {
  const partnerId = await partnerFor(db, caller, input.partnerId);
  const id = await insertTenant(db, { name: input.name, partnerId, mfaRequired: input.mfaRequired });
  const row = await db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  return toApi(row);
}

export async function changeTenant(db: Db, caller: Caller, id: number, patch: SchemaTypes['tenant-update']): Promise<ApiTenant> {
  return db.transaction().execute(async (trx) => {
    await getTenant(trx, caller, id);
    const partnerId = patch.partnerId === undefined ? undefined : await partnerFor(trx, caller, patch.partnerId);
    await trx
      .updateTable('tenants')
      .set({ name: patch.name, partner_id: partnerId, mfa_required: patch.mfaRequired })
      .where('id', '=', id)
      .execute();
    // MFA required means required: a session opened without MFA ends now, not when its token expires.
    if (patch.mfaRequired === 1) await endSessionsWithoutMfa(trx, requireTenant(caller.scope, id));
    return getTenant(trx, caller, id);
  });
}

/** The records a tenant owns, by kind, with counts (what a delete without cascade is refused for). */
const OWNED = [
  ['branches', 'branches'],
  ['users', 'users'],
  ['extensions', 'extensions'],
  ['queues', 'queues'],
  ['phone_numbers', 'phone numbers'],
  ['emergency_locations', 'E911 locations'],
  ['call_campaigns', 'call campaigns'],
  ['webhooks', 'webhooks'],
  ['saved_filters', 'saved filters'],
  ['cdr_calls', 'imported calls'],
] as const;

async function ownedRecords(db: Db, id: number): Promise<string[]> {
  const out: string[] = [];
  for (const [table, what] of OWNED) {
    const r = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)} WHERE tenant_id = ${id}`.execute(db);
    const n = Number(r.rows[0]?.n ?? 0);
    if (n > 0) out.push(`${n} ${what}`);
  }
  return out;
}

/** Child rows first: every table that refers to another (db/migrations), in an order no foreign key objects to. */
const CASCADE: readonly string[] = [
  'DELETE FROM webhook_deliveries WHERE tenant_id = $1', // its attempts cascade
  'DELETE FROM webhooks WHERE tenant_id = $1',
  'DELETE FROM report_runs WHERE tenant_id = $1',
  'DELETE FROM saved_filters WHERE tenant_id = $1',
  'DELETE FROM campaign_numbers WHERE campaign_id IN (SELECT id FROM call_campaigns WHERE tenant_id = $1)',
  'DELETE FROM campaign_destinations WHERE campaign_id IN (SELECT id FROM call_campaigns WHERE tenant_id = $1)',
  'DELETE FROM call_campaigns WHERE tenant_id = $1',
  'DELETE FROM notification_groups WHERE location_id IN (SELECT id FROM emergency_locations WHERE tenant_id = $1)',
  'DELETE FROM emergency_locations WHERE tenant_id = $1',
  'DELETE FROM phone_number_destinations WHERE phone_number_id IN (SELECT id FROM phone_numbers WHERE tenant_id = $1)',
  'DELETE FROM phone_numbers WHERE tenant_id = $1',
  'DELETE FROM queues WHERE tenant_id = $1', // static members and alert thresholds cascade; lines and reports go first (below)
  'DELETE FROM cdr_calls WHERE tenant_id = $1',
  'DELETE FROM pbx_starts WHERE tenant_id = $1',
  'DELETE FROM mfa_challenges WHERE user_id IN (SELECT id FROM users WHERE tenant_id = $1)',
  'DELETE FROM users WHERE tenant_id = $1', // MFA enrolments and reset tokens cascade
  'DELETE FROM extensions WHERE tenant_id = $1',
  'DELETE FROM branches WHERE tenant_id = $1',
  'DELETE FROM tenants WHERE id = $1',
];

/**
 * Deletes a tenant, returning it as it was. One that owns records goes only with `cascade`, which deletes all
 * of them in the same transaction; otherwise 409 naming them. A caller cannot delete its own tenant.
 */
export async function removeTenant(db: Db, caller: Caller, id: number, cascade = false): Promise<ApiTenant> {
  return db.transaction().execute(async (trx) => {
    const tenant = await getTenant(trx, caller, id);
    if (caller.user.tenant_id === id) throw conflict(`Tenant ${id} is your own tenant: another admin must delete it`);
    const owned = await ownedRecords(trx, id);
    if (owned.length > 0 && !cascade)
      throw conflict(`Tenant ${id} still owns ${owned.join(', ')}; delete with cascade=1 to delete them with it`);
    // Its users go with it: none may be above the caller's role (as when deleting them one by one).
    await mayRemoveUsersOf(trx, caller, requireTenant(caller.scope, id));
    const foreign = await trx
      .selectFrom('saved_filters as f')
      .innerJoin('users as u', 'u.id', 'f.user_id')
      .select(['f.id', 'f.tenant_id'])
      .where('u.tenant_id', '=', id)
      .where('f.tenant_id', '!=', id)
      .executeTakeFirst();
    if (foreign) {
      const which = inScope(caller.scope, foreign.tenant_id)
        ? `saved filter ${foreign.id} of tenant ${foreign.tenant_id}`
        : 'a saved filter of another tenant';
      throw conflict(`A user of tenant ${id} owns ${which}: delete or hand it over first`);
    }
    for (const q of await trx.selectFrom('queues').select('id').where('tenant_id', '=', id).execute()) await deleteQueueData(trx, q.id);
    for (const statement of CASCADE) await sql.raw(statement.replaceAll('$1', String(id))).execute(trx);
    return tenant;
  });
}

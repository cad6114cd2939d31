import type { Selectable } from 'kysely';
import type { Db } from '../../db/database';
import type { EmergencyLocationTable, NotificationGroupTable } from '../../db/schema';
import { tenantIn } from '../../access/tenant-filter';
import { windowed, type PageWindow } from '../../access/paging';
import type { TenantScope } from '../../access/scope';

/** A location with its tenant's name. */
export interface LocationRow extends Selectable<EmergencyLocationTable> {
  tenant_name: string;
}

export interface Address {
  loc: string;
  city: string;
  state: string;
  location: string;
  streetNum: string;
  postalCode: string;
  streetInfo: string;
}

/** An address as a request gives it: loc and location may be left out (decisions.md §3). */
export type AddressInput = Partial<Pick<Address, 'loc' | 'location'>> & Omit<Address, 'loc' | 'location'>;

export interface NotificationGroupInput {
  id?: number;
  name: string;
  number: string;
  email: string;
  peerName: string;
}

export interface LocationInput {
  id?: number;
  tenantId: number;
  name: string;
  address: AddressInput;
  notificationGroups?: NotificationGroupInput[];
}

export function addressColumns(a: AddressInput) {
  return {
    loc: a.loc ?? '',
    city: a.city,
    state: a.state,
    location: a.location ?? '',
    street_num: a.streetNum,
    postal_code: a.postalCode,
    street_info: a.streetInfo,
  };
}

export async function insertLocation(db: Db, input: LocationInput): Promise<number> {
  const row = await db
    .insertInto('emergency_locations')
    .values({ id: input.id, tenant_id: input.tenantId, name: input.name, ...addressColumns(input.address) })
    .returning('id')
    .executeTakeFirstOrThrow();
  await insertNotificationGroups(db, row.id, input.notificationGroups ?? []);
  return row.id;
}

export async function insertNotificationGroups(db: Db, locationId: number, groups: readonly NotificationGroupInput[]): Promise<void> {
  if (groups.length === 0) return;
  const rows = groups.map((g, i) => ({
    id: g.id,
    location_id: locationId,
    position: i,
    name: g.name,
    number: g.number,
    email: g.email,
    peer_name: g.peerName,
  }));
  // Rows with an id go first: SQLite gives a row without one max(id) + 1, which must not be an id still to come.
  rows.sort((a, b) => Number(a.id === undefined) - Number(b.id === undefined));
  await db.insertInto('notification_groups').values(rows).execute();
}

function selectLocations(db: Db, scope: TenantScope) {
  return db
    .selectFrom('emergency_locations')
    .innerJoin('tenants', 'tenants.id', 'emergency_locations.tenant_id')
    .where(tenantIn(scope, 'emergency_locations.tenant_id'))
    .selectAll('emergency_locations')
    .select('tenants.name as tenant_name');
}

export function findLocation(db: Db, scope: TenantScope, id: number): Promise<LocationRow | undefined> {
  return selectLocations(db, scope).where('emergency_locations.id', '=', id).executeTakeFirst();
}

export async function listLocations(db: Db, scope: TenantScope, w: PageWindow): Promise<{ rows: LocationRow[]; total: number }> {
  const { total } = await db
    .selectFrom('emergency_locations')
    .where(tenantIn(scope))
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  const rows = await windowed(selectLocations(db, scope).orderBy('emergency_locations.id'), w).execute();
  return { rows, total: Number(total) };
}

/** The notification groups of some locations, in order, by location id. */
export async function groupsOf(db: Db, locationIds: readonly number[]): Promise<Map<number, Selectable<NotificationGroupTable>[]>> {
  const byLocation = new Map<number, Selectable<NotificationGroupTable>[]>(locationIds.map((id) => [id, []]));
  if (locationIds.length === 0) return byLocation;
  const rows = await db.selectFrom('notification_groups').selectAll().where('location_id', 'in', locationIds).orderBy('position').execute();
  for (const g of rows) byLocation.get(g.location_id)?.push(g);
  return byLocation;
}

export async function updateLocationColumns(db: Db, scope: TenantScope, id: number, name: string, address: AddressInput): Promise<void> {
  await db
    .updateTable('emergency_locations')
    .set({ name, ...addressColumns(address) })
    .where(tenantIn(scope))
    .where('id', '=', id)
    .execute();
}

export async function replaceNotificationGroups(db: Db, locationId: number, groups: readonly NotificationGroupInput[]): Promise<void> {
  await db.deleteFrom('notification_groups').where('location_id', '=', locationId).execute();
  await insertNotificationGroups(db, locationId, groups);
}

/** Deletes a location; its notification groups go with it (ON DELETE CASCADE). */
export async function deleteLocation(db: Db, scope: TenantScope, id: number): Promise<void> {
  await db.deleteFrom('emergency_locations').where(tenantIn(scope)).where('id', '=', id).execute();
}

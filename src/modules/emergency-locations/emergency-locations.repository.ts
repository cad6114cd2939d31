import type { Db } from '../../db/database';

export interface Address {
  loc: string;
  city: string;
  state: string;
  location: string;
  streetNum: string;
  postalCode: string;
  streetInfo: string;
}

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
  address: Partial<Pick<Address, 'loc' | 'location'>> & Omit<Address, 'loc' | 'location'>;
  notificationGroups?: NotificationGroupInput[];
}

export async function insertLocation(db: Db, input: LocationInput): Promise<number> {
  const a = input.address;
  const row = await db
    .insertInto('emergency_locations')
    .values({
      id: input.id,
      tenant_id: input.tenantId,
      name: input.name,
      loc: a.loc ?? '',
      city: a.city,
      state: a.state,
      location: a.location ?? '',
      street_num: a.streetNum,
      postal_code: a.postalCode,
      street_info: a.streetInfo,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await insertNotificationGroups(db, row.id, input.notificationGroups ?? []);
  return row.id;
}

export async function insertNotificationGroups(db: Db, locationId: number, groups: readonly NotificationGroupInput[]): Promise<void> {
  if (groups.length === 0) return;
  await db
    .insertInto('notification_groups')
    .values(groups.map((g, i) => ({ id: g.id, location_id: locationId, position: i, name: g.name, number: g.number, email: g.email, peer_name: g.peerName })))
    .execute();
}

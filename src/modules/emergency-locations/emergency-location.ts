import type { ResponseBody } from '../../http/route';
import type { Selectable } from 'kysely';
import type { NotificationGroupTable } from '../../db/schema';
import type { AddressInput, LocationInput, LocationRow, NotificationGroupInput } from './emergency-locations.repository';

/** The Emergency location of api.md §2.5 (schemas/emergency-location.json). */
export type ApiEmergencyLocation = ResponseBody<'emergency-location'>;
export type ApiNotificationGroup = ApiEmergencyLocation['notificationGroups'][number];

/** The create body (schemas/emergency-location-create.json): groups come without ids, the server gives them. */
export type LocationCreate = Omit<LocationInput, 'id'>;

/** PATCH: each field given replaces the stored one (schemas/emergency-location-update.json). */
export interface LocationUpdate {
  name?: string;
  address?: AddressInput;
  notificationGroups?: NotificationGroupInput[];
}

export function toApiLocation(r: LocationRow, groups: readonly Selectable<NotificationGroupTable>[]): ApiEmergencyLocation {
  return {
    id: r.id,
    name: r.name,
    tenant: { id: r.tenant_id, name: r.tenant_name },
    address: {
      loc: r.loc,
      city: r.city,
      state: r.state,
      location: r.location,
      streetNum: r.street_num,
      postalCode: r.postal_code,
      streetInfo: r.street_info,
    },
    notificationGroups: groups.map((g) => ({ id: g.id, name: g.name, number: g.number, email: g.email, peerName: g.peer_name })),
  };
}

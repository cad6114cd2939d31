import { type Db, transaction } from '../../db/database';
import { badRequest, notFound } from '../../errors';
import type { Caller } from '../../access/caller';
import { pageOf, pageWindow, type Page, type PageQuery } from '../../access/paging';
import { listScope, requireTenant } from '../../access/scope';
import { getTenantRef } from '../tenants/tenants.repository';
import { toApiLocation, type ApiEmergencyLocation, type LocationCreate, type LocationUpdate } from './emergency-location';
import {
  deleteLocation,
  findLocation,
  groupsOf,
  insertLocation,
  listLocations,
  replaceNotificationGroups,
  updateLocationColumns,
} from './emergency-locations.repository';

/** What this service uses (docs/architecture.md, "The service shape"). */
export interface EmergencyLocationDeps {
  readonly db: Db;
}

export async function createLocation(deps: EmergencyLocationDeps, caller: Caller, input: LocationCreate): Promise<ApiEmergencyLocation> {
  const { db } = deps;
  const tenantScope = requireTenant(caller.scope, input.tenantId);
  return transaction(db, async (trx) => {
    await getTenantRef(trx, tenantScope);
    const id = await insertLocation(trx, input);
    return getLocation({ ...deps, db: trx }, caller, id);
  });
}

export async function listEmergencyLocations(
  deps: EmergencyLocationDeps,
  caller: Caller,
  q: { tenantId?: number } & PageQuery,
): Promise<Page<ApiEmergencyLocation>> {
  const { db } = deps;
  const { rows, total } = await listLocations(db, listScope(caller.scope, q.tenantId), pageWindow(q));
  const groups = await groupsOf(
    db,
    rows.map((r) => r.id),
  );
  return pageOf(
    rows.map((r) => toApiLocation(r, groups.get(r.id) ?? [])),
    total,
    q,
  );
}

export async function getLocation(deps: EmergencyLocationDeps, caller: Caller, id: number): Promise<ApiEmergencyLocation> {
  const { db } = deps;
  const row = await findLocation(db, caller.scope, id);
  if (!row) throw notFound(`Emergency location ${id}`);
  return toApiLocation(row, (await groupsOf(db, [id])).get(id) ?? []);
}

export async function updateLocation(
  deps: EmergencyLocationDeps,
  caller: Caller,
  id: number,
  patch: LocationUpdate,
): Promise<ApiEmergencyLocation> {
  const { db } = deps;
  return transaction(db, async (trx) => {
    const current = await getLocation({ ...deps, db: trx }, caller, id);
    await updateLocationColumns(trx, caller.scope, id, patch.name ?? current.name, patch.address ?? current.address);
    if (patch.notificationGroups) {
      const own = new Set(current.notificationGroups.map((g) => g.id));
      const foreign = patch.notificationGroups.flatMap((g, i) =>
        g.id === undefined || own.has(g.id) ? [] : [`notificationGroups[${i}].id must be the id of a notification group of this location`],
      );
      if (foreign.length > 0) throw badRequest(foreign);
      await replaceNotificationGroups(trx, id, patch.notificationGroups);
    }
    return getLocation({ ...deps, db: trx }, caller, id);
  });
}

/** Deletes a location with its notification groups, in one transaction; returns it as it was. */
export async function removeLocation(deps: EmergencyLocationDeps, caller: Caller, id: number): Promise<ApiEmergencyLocation> {
  const { db } = deps;
  return transaction(db, async (trx) => {
    const location = await getLocation({ ...deps, db: trx }, caller, id);
    await deleteLocation(trx, caller.scope, id);
    return location;
  });
}

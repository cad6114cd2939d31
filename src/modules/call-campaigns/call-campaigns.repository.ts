import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database';
import type { CallCampaignTable, CampaignDestinationList } from '../../db/schema';
import { tenantIn } from '../../access/tenant-filter';
import { windowed, type PageWindow } from '../../access/paging';
import type { TenantScope } from '../../access/scope';
import { toDestination, toDestinationColumns, type Destination } from '../destinations';

/** A campaign's numbers and destination lists, as read with it. */
export interface CampaignChildren {
  numbers: CampaignNumber[];
  lists: Readonly<Record<CampaignDestinationList, Destination[]>>;
}

export function emptyChildren(): CampaignChildren {
  return { numbers: [], lists: { destinations: [], match: [], notMatch: [] } };
}

export interface CampaignNumber {
  number: string;
  description: string;
  disposition: string;
}

/** A campaign number as a request gives it: description and disposition default to "". */
export type CampaignNumberInput = Pick<CampaignNumber, 'number'> & Partial<CampaignNumber>;

/** The Call campaign of api.md §2.6 (an id only when seeding). */
export interface CampaignInput {
  id?: number;
  tenantId: number;
  name: string;
  type: string;
  dateStart?: string | null;
  dateEnd?: string | null;
  callerId?: string | null;
  callDelay?: number | null;
  state?: string | null;
  lastrun?: string | null;
  dialtimeout?: number | null;
  tech?: string | null;
  message?: string | null;
  timeStart?: string | null;
  timeEnd?: string | null;
  timezone?: string | null;
  callFrequency?: number | null;
  callHoursStart?: string | null;
  callHoursEnd?: string | null;
  recording?: string | null;
  numbers?: CampaignNumberInput[];
  destinations?: Destination[];
  enableVMDetect?: number;
  matchDestinations?: Destination[];
  notMatchDestinations?: Destination[];
}

export const CAMPAIGN_DESTINATION_LISTS: ReadonlyArray<
  [CampaignDestinationList, 'destinations' | 'matchDestinations' | 'notMatchDestinations']
> = [
  ['destinations', 'destinations'],
  ['match', 'matchDestinations'],
  ['notMatch', 'notMatchDestinations'],
];

export function campaignColumns(
  c: Omit<CampaignInput, 'id' | 'tenantId' | 'numbers' | 'destinations' | 'matchDestinations' | 'notMatchDestinations'>,
): Omit<Insertable<CallCampaignTable>, 'id' | 'tenant_id'> {
  return {
    name: c.name,
    type: c.type,
    date_start: c.dateStart ?? null,
    date_end: c.dateEnd ?? null,
    caller_id: c.callerId ?? null,
    call_delay: c.callDelay ?? null,
    state: c.state ?? null,
    lastrun: c.lastrun ?? null,
    dialtimeout: c.dialtimeout ?? null,
    tech: c.tech ?? null,
    message: c.message ?? null,
    time_start: c.timeStart ?? null,
    time_end: c.timeEnd ?? null,
    timezone: c.timezone ?? null,
    call_frequency: c.callFrequency ?? null,
    call_hours_start: c.callHoursStart ?? null,
    call_hours_end: c.callHoursEnd ?? null,
    recording: c.recording ?? null,
    enable_vm_detect: c.enableVMDetect ?? 0,
  };
}

export async function insertCampaign(db: Db, input: CampaignInput): Promise<number> {
  const row = await db
    .insertInto('call_campaigns')
    .values({ id: input.id, tenant_id: input.tenantId, ...campaignColumns(input) })
    .returning('id')
    .executeTakeFirstOrThrow();
  await insertCampaignChildren(db, row.id, input);
  return row.id;
}

/** The numbers and the three destination lists of a campaign, in order. */
export async function insertCampaignChildren(
  db: Db,
  campaignId: number,
  input: Pick<CampaignInput, 'numbers' | 'destinations' | 'matchDestinations' | 'notMatchDestinations'>,
): Promise<void> {
  const numbers = (input.numbers ?? []).map((n, i) => ({
    campaign_id: campaignId,
    position: i,
    number: n.number,
    description: n.description ?? '',
    disposition: n.disposition ?? '',
  }));
  if (numbers.length > 0) await db.insertInto('campaign_numbers').values(numbers).execute();
  const destinations = CAMPAIGN_DESTINATION_LISTS.flatMap(([list, key]) =>
    (input[key] ?? []).map((d, i) => ({ campaign_id: campaignId, list, ...toDestinationColumns(d, i) })),
  );
  if (destinations.length > 0) await db.insertInto('campaign_destinations').values(destinations).execute();
}

export function findCampaign(db: Db, scope: TenantScope, id: number): Promise<Selectable<CallCampaignTable> | undefined> {
  return db.selectFrom('call_campaigns').selectAll().where('id', '=', id).where(tenantIn(scope)).executeTakeFirst();
}

export async function listCampaigns(
  db: Db,
  scope: TenantScope,
  w: PageWindow,
): Promise<{ rows: Selectable<CallCampaignTable>[]; total: number }> {
  const base = db.selectFrom('call_campaigns').where(tenantIn(scope));
  const { total } = await base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
  const rows = await windowed(base.selectAll().orderBy('id'), w).execute();
  return { rows, total: Number(total) };
}

/** The numbers and destination lists of some campaigns, in order, by campaign id. */
export async function campaignChildren(db: Db, campaignIds: readonly number[]): Promise<Map<number, CampaignChildren>> {
  const byId = new Map<number, CampaignChildren>(campaignIds.map((id) => [id, emptyChildren()]));
  if (campaignIds.length === 0) return byId;
  const numbers = await db.selectFrom('campaign_numbers').selectAll().where('campaign_id', 'in', campaignIds).orderBy('position').execute();
  for (const n of numbers)
    byId.get(n.campaign_id)?.numbers.push({ number: n.number, description: n.description, disposition: n.disposition });
  const destinations = await db
    .selectFrom('campaign_destinations')
    .selectAll()
    .where('campaign_id', 'in', campaignIds)
    .orderBy('position')
    .execute();
  for (const d of destinations) byId.get(d.campaign_id)?.lists[d.list].push(toDestination(d));
  return byId;
}

export async function updateCampaignColumns(
  db: Db,
  scope: TenantScope,
  id: number,
  columns: ReturnType<typeof campaignColumns>,
): Promise<void> {
  await db.updateTable('call_campaigns').set(columns).where(tenantIn(scope)).where('id', '=', id).execute();
}

/** Replaces the lists the update names (numbers, destination lists), each as a whole. */
export async function replaceCampaignChildren(
  db: Db,
  campaignId: number,
  input: Pick<CampaignInput, 'numbers' | 'destinations' | 'matchDestinations' | 'notMatchDestinations'>,
): Promise<void> {
  if (input.numbers) await db.deleteFrom('campaign_numbers').where('campaign_id', '=', campaignId).execute();
  const lists = CAMPAIGN_DESTINATION_LISTS.filter(([, key]) => input[key] !== undefined).map(([list]) => list);
  if (lists.length > 0)
    await db.deleteFrom('campaign_destinations').where('campaign_id', '=', campaignId).where('list', 'in', lists).execute();
  await insertCampaignChildren(db, campaignId, input);
}

/** Deletes a campaign; its numbers and destinations go with it (ON DELETE CASCADE). */
export async function deleteCampaign(db: Db, scope: TenantScope, id: number): Promise<void> {
  await db.deleteFrom('call_campaigns').where(tenantIn(scope)).where('id', '=', id).execute();
}

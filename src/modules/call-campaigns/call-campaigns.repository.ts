import type { Insertable } from 'kysely';
import type { Db } from '../../db/database';
import type { CallCampaignTable, CampaignDestinationList } from '../../db/schema';
import { toDestinationColumns, type Destination } from '../destinations';

export interface CampaignNumber {
  number: string;
  description: string;
  disposition: string;
}

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
  numbers?: CampaignNumber[];
  destinations?: Destination[];
  enableVMDetect?: number;
  matchDestinations?: Destination[];
  notMatchDestinations?: Destination[];
}

export const CAMPAIGN_DESTINATION_LISTS: ReadonlyArray<[CampaignDestinationList, 'destinations' | 'matchDestinations' | 'notMatchDestinations']> = [
  ['destinations', 'destinations'],
  ['match', 'matchDestinations'],
  ['notMatch', 'notMatchDestinations'],
];

export function campaignColumns(c: Omit<CampaignInput, 'id' | 'tenantId' | 'numbers' | 'destinations' | 'matchDestinations' | 'notMatchDestinations'>): Omit<Insertable<CallCampaignTable>, 'id' | 'tenant_id'> {
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
export async function insertCampaignChildren(db: Db, campaignId: number, input: Pick<CampaignInput, 'numbers' | 'destinations' | 'matchDestinations' | 'notMatchDestinations'>): Promise<void> {
  const numbers = (input.numbers ?? []).map((n, i) => ({ campaign_id: campaignId, position: i, number: n.number, description: n.description, disposition: n.disposition }));
  if (numbers.length > 0) await db.insertInto('campaign_numbers').values(numbers).execute();
  const destinations = CAMPAIGN_DESTINATION_LISTS.flatMap(([list, key]) =>
    (input[key] ?? []).map((d, i) => ({ campaign_id: campaignId, list, ...toDestinationColumns(d, i) })),
  );
  if (destinations.length > 0) await db.insertInto('campaign_destinations').values(destinations).execute();
}

import type { Selectable } from 'kysely';
import type { CallCampaignTable } from '../../db/schema';
import type { CampaignChildren, CampaignInput, CampaignNumber } from './call-campaigns.repository';

/** The Call campaign of api.md §2.6: every field present, null where unset. */
export type ApiCallCampaign = { id: number } & Required<Omit<CampaignInput, 'id' | 'numbers'>> & { numbers: CampaignNumber[] };

/** The create body (schemas/call-campaign-create.json): no id, no lastrun (the dialer sets it). */
export type CampaignCreate = Omit<CampaignInput, 'id' | 'lastrun'>;

/** PATCH: each field given replaces the stored one, arrays as a whole (schemas/call-campaign-update.json). */
export type CampaignUpdate = Partial<Omit<CampaignCreate, 'tenantId'>>;

export function toApiCampaign(r: Selectable<CallCampaignTable>, c: CampaignChildren): ApiCallCampaign {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    name: r.name,
    type: r.type,
    dateStart: r.date_start,
    dateEnd: r.date_end,
    callerId: r.caller_id,
    callDelay: r.call_delay,
    state: r.state,
    lastrun: r.lastrun,
    dialtimeout: r.dialtimeout,
    tech: r.tech,
    message: r.message,
    timeStart: r.time_start,
    timeEnd: r.time_end,
    timezone: r.timezone,
    callFrequency: r.call_frequency,
    callHoursStart: r.call_hours_start,
    callHoursEnd: r.call_hours_end,
    recording: r.recording,
    numbers: c.numbers,
    destinations: c.lists.destinations,
    enableVMDetect: r.enable_vm_detect,
    matchDestinations: c.lists.match,
    notMatchDestinations: c.lists.notMatch,
  };
}

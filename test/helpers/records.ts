import type { Db } from '../../src/db/database';
import { insertCampaign, type CampaignInput } from '../../src/modules/call-campaigns/call-campaigns.repository';
import { insertLocation, type LocationInput } from '../../src/modules/emergency-locations/emergency-locations.repository';
import { insertExtension } from '../../src/modules/extensions/extensions.repository';
import { insertPhoneNumber, type PhoneNumberInput } from '../../src/modules/phone-numbers/phone-numbers.repository';
import { insertSavedFilter, type SavedFilterInput } from '../../src/modules/saved-filters/saved-filters.repository';
import { insertWebhook, type WebhookInput } from '../../src/modules/webhooks/webhooks.repository';
import { buildBranch } from './factories';

/*
 * Records of the resources of issue 3, stored through the same insert functions as the API and the
 * seed. Numbers and names carry a counter so that records of one test file never collide.
 */
let counter = 0;
const next = () => ++counter;

export const ADDRESS = {
  loc: 'Suite 1',
  city: 'Springfield',
  state: 'IL',
  location: '1st floor',
  streetNum: '742',
  postalCode: '62704',
  streetInfo: 'Evergreen Terrace',
};

export async function buildExtension(db: Db, tenantId: number) {
  const n = next();
  const extNum = 1000 + n;
  const id = await insertExtension(db, { tenantId, extNum, extName: `Agent ${n}`, peerName: `PJSIP/${extNum}` });
  return { id, extName: `Agent ${n}` };
}

/** A phone number with its own branch and SMS extension unless given. */
export async function buildPhoneNumber(db: Db, tenantId: number, over: Partial<PhoneNumberInput> = {}) {
  const branchId = over.branchId ?? (await buildBranch(db, tenantId)).id;
  const smsExtId = over.smsExtId ?? (await buildExtension(db, tenantId)).id;
  const input: PhoneNumberInput = { tenantId, branchId, smsExtId, number: `+1555${String(next()).padStart(7, '0')}`, ...over };
  return { ...input, id: await insertPhoneNumber(db, input) };
}

export async function buildLocation(db: Db, tenantId: number, over: Partial<LocationInput> = {}) {
  const input: LocationInput = { tenantId, name: `Location ${next()}`, address: { ...ADDRESS }, ...over };
  return { ...input, id: await insertLocation(db, input) };
}

export async function buildCampaign(db: Db, tenantId: number, over: Partial<CampaignInput> = {}) {
  const input: CampaignInput = { tenantId, name: `Campaign ${next()}`, type: 'SCHEDULED', state: 'READY', ...over };
  return { ...input, id: await insertCampaign(db, input) };
}

export async function buildWebhook(db: Db, tenantId: number, over: Partial<WebhookInput> = {}) {
  const input: WebhookInput = { tenantId, type: 'ENDCALL', url: `https://hooks.example.test/${next()}`, ...over };
  return { ...input, id: await insertWebhook(db, input, new Date().toISOString()) };
}

export async function buildSavedFilter(db: Db, tenantId: number, userId: number, over: Partial<SavedFilterInput> = {}) {
  const input: SavedFilterInput = { tenantId, userId, url: '/v2/reporting/calls', module: 'calls', name: `Filter ${next()}`, ...over };
  return { ...input, id: await insertSavedFilter(db, input, new Date().toISOString()) };
}

/** A webhook of the tenant with one delivery that failed (its attempts ran out): what a retry re-queues. */
export async function buildFailedDelivery(db: Db, tenantId: number) {
  const hook = await buildWebhook(db, tenantId);
  const n = next();
  const delivery = await db
    .insertInto('webhook_deliveries')
    .values({
      webhook_id: hook.id,
      tenant_id: tenantId,
      message_id: `msg_failed${n}`,
      event_type: 'ENDCALL',
      payload: JSON.stringify({ type: 'ENDCALL', tenantId, data: { n } }),
      status: 'failed',
      attempts: 8,
      next_attempt_at: 0,
      lease_until: null,
      last_status_code: 500,
      last_error: null,
      created_at: new Date().toISOString(),
      delivered_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { webhookId: hook.id, id: delivery.id, messageId: `msg_failed${n}` };
}

import { pbxNameKey } from '../pbx-name';
import type { Db } from '../db/database';

/** Whether the database holds any tenant (a fixture is loaded only into an empty one). */
export async function hasTenants(db: Db): Promise<boolean> {
  return (await db.selectFrom('tenants').select('id').limit(1).execute()).length > 0;
}

/** What the database already holds that a fixture's records could collide with (ids, e-mails, names, numbers). */
export async function existingRecords(db: Db) {
  const pairs = async (table: 'branches' | 'users' | 'extensions') =>
    new Map((await db.selectFrom(table).select(['id', 'tenant_id']).execute()).map((r) => [r.id, r.tenant_id] as [number, number]));
  const ids = async (
    table: 'queues' | 'phone_numbers' | 'emergency_locations' | 'call_campaigns' | 'webhooks' | 'saved_filters' | 'notification_groups',
  ) => new Set((await db.selectFrom(table).select('id').execute()).map((r) => r.id));
  const tenants = new Map((await db.selectFrom('tenants').select('id').execute()).map((r) => [r.id, r.id] as [number, number]));
  const extensionRows = await db.selectFrom('extensions').select(['tenant_id', 'ext_num', 'peer_name']).execute();
  return {
    tenants,
    branches: await pairs('branches'),
    users: await pairs('users'),
    extensions: await pairs('extensions'),
    queues: await ids('queues'),
    phoneNumbers: await ids('phone_numbers'),
    emergencyLocations: await ids('emergency_locations'),
    callCampaigns: await ids('call_campaigns'),
    webhooks: await ids('webhooks'),
    savedFilters: await ids('saved_filters'),
    groupIds: await ids('notification_groups'),
    emails: new Set((await db.selectFrom('users').select('email').execute()).map((r) => r.email.toLowerCase())),
    extNums: new Set(extensionRows.map((e) => `${e.tenant_id}\u0000${e.ext_num}`)),
    peerNames: new Set(extensionRows.map((e) => `${e.tenant_id}\u0000${e.peer_name}`)),
    logNames: new Set((await db.selectFrom('queues').select('log_name').execute()).map((r) => pbxNameKey(r.log_name))),
    numbers: new Set((await db.selectFrom('phone_numbers').select('number').execute()).map((r) => r.number)),
  };
}

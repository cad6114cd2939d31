import type { Destination } from '../modules/destinations';
import type { CampaignInput } from '../modules/call-campaigns/call-campaigns.repository';
import type { LocationInput } from '../modules/emergency-locations/emergency-locations.repository';
import type { ExtensionInput } from '../modules/extensions/extensions.repository';
import type { PhoneNumberInput } from '../modules/phone-numbers/phone-numbers.repository';
import type { QueueInput } from '../modules/queues/queues.repository';
import type { SavedFilterInput } from '../modules/saved-filters/saved-filters.repository';
import type { WebhookInput } from '../modules/webhooks/webhooks.repository';

/** A fixture file (docs/fixture-format.md), after schemas/fixture.json has accepted it. */
export interface Fixture {
  tenants?: Array<{ id: number; name: string; partnerId?: number }>;
  branches?: Array<{ id: number; tenantId: number; name: string; timezone?: string; default?: number }>;
  users?: FixtureUser[];
  extensions?: Array<ExtensionInput & { id: number }>;
  queues?: Array<QueueInput & { id: number }>;
  phoneNumbers?: Array<PhoneNumberInput & { id: number }>;
  emergencyLocations?: Array<LocationInput & { id: number }>;
  callCampaigns?: Array<CampaignInput & { id: number }>;
  webhooks?: Array<WebhookInput & { id: number }>;
  savedFilters?: Array<SavedFilterInput & { id: number }>;
}

export interface FixtureUser {
  id: number;
  email: string;
  password: string;
  tenantId: number;
  branchId?: number | null;
  userRole: number;
  partnerId?: number;
  permissions?: string[];
  [field: string]: unknown;
}

/** The keys of a fixture in load order, so that every reference points backwards. */
export const FIXTURE_KEYS = [
  'tenants',
  'branches',
  'users',
  'extensions',
  'queues',
  'phoneNumbers',
  'emergencyLocations',
  'callCampaigns',
  'webhooks',
  'savedFilters',
] as const satisfies ReadonlyArray<keyof Fixture>;

export type { Destination };

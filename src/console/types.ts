/** The API's shapes the console reads, from the server's generated schema types (types only: no server code is bundled). */
import type { SchemaTypes } from '../validation/schema-types';

export type Session = SchemaTypes['console-session'];
export type User = Session['user'];
export type Challenge = SchemaTypes['mfa-challenge'];
export type SetupRequired = SchemaTypes['mfa-setup-required'];
export type SetupAnswer = SchemaTypes['mfa-setup-response'];
export type LiveState = SchemaTypes['live-queues'];
export type LiveQueue = LiveState['queues'][number];
export type LiveMember = LiveQueue['members'][number];
export type LiveCaller = LiveQueue['callers'][number];
export type WallboardLink = SchemaTypes['wallboard-link'];
export type WallboardLive = SchemaTypes['wallboard-live'];
export type AgentResult = SchemaTypes['agent-action-result'];
export type StatusAnswer = SchemaTypes['status-response'];
export type TenantPage = SchemaTypes['tenant-page'];
// The directory's users, numbers, E911 locations and webhooks (issue 31, part B).
export type DirectoryUser = SchemaTypes['user'];
export type PhoneNumber = SchemaTypes['phone-number'];
/** A phone number as the list gives it (the hosted API's list form: ids, no names). */
export type PhoneNumberRecord = SchemaTypes['phone-number-record'];
export type EmergencyLocation = SchemaTypes['emergency-location'];
export type EmergencyAddress = SchemaTypes['emergency-location-create']['address'];
export type Webhook = SchemaTypes['webhook'];
export type WebhookListItem = SchemaTypes['webhook-list'][number];
export type WebhookType = SchemaTypes['webhook-types'][number];
export type WebhookDelivery = SchemaTypes['webhook-delivery'];
/** A branch or an extension as a choice of a form (the fields of the API's records a choice shows). */
export type BranchChoice = Pick<SchemaTypes['branch'], 'id' | 'name'>;
export type ExtensionChoice = Pick<SchemaTypes['extension'], 'id' | 'extNum' | 'extName'>;
export type QueueStatsRequest = SchemaTypes['queue-stats-request'];
export type QueueStats = SchemaTypes['queue-stats'];
export type ServiceLevelRequest = SchemaTypes['queue-service-level-request'];
export type ServiceLevel = SchemaTypes['queue-service-level'];
export type LostCallsRequest = SchemaTypes['queue-lost-calls-request'];
export type LostCalls = SchemaTypes['queue-lost-calls'];
export type AgentsRequest = SchemaTypes['queue-agents-request'];
export type Agents = SchemaTypes['queue-agents'];
export type AgentSessionsRequest = SchemaTypes['queue-agent-sessions-request'];
export type AgentSessions = SchemaTypes['queue-agent-sessions'];
export type SavedFilterCreate = SchemaTypes['saved-filter-create'];
export type SavedFilterCreated = SchemaTypes['saved-filter-created'];
export type SavedFilter = SchemaTypes['saved-filter'];
export type SavedFilterPage = SchemaTypes['saved-filter-page'];
export type ReportRun = SchemaTypes['report-run'];
export type ReportRunPage = SchemaTypes['report-run-page'];
export type AgentAvailabilityRequest = SchemaTypes['agent-availability-request'];
export type AgentAvailability = SchemaTypes['agent-availability'];
export type Tenant = SchemaTypes['tenant'];
export type Branch = SchemaTypes['branch'];
export type Extension = SchemaTypes['extension'];
export type Queue = SchemaTypes['queue'];
export type CallQueue = SchemaTypes['call-queue'];
export type QueueAlerts = SchemaTypes['queue-alerts'];

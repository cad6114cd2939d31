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

import type { Caller } from '../../access/caller';
import { requireTenant } from '../../access/scope';
import type { AnyDatabase } from '../../db/engine';
import { agentIdentitiesChanged } from './identities';

/*
 * What other modules use of the PBX logs (docs/architecture.md, "How modules use each other"): the names an
 * agent is known by in the logs (reporting.md R14), the stored lines resolving them again when a tenant's
 * extensions change, and the webhook events of calls as AMI reports them.
 */
export { AgentNames, parseAliases, type DirectoryExtension, type ExtensionRef } from './agent-names';
/** Call events from AMI as they happen (the live layer forwards them): live-events.ts. */
export { amiCallEnded, queueJoined, type LiveEventDeps } from './live-events';
export { UTC_ZONE, type PbxZone } from './pbx-zone';

/** What re-resolving needs: the raw connection the importers write through. */
export interface AgentResolveDeps {
  readonly database: AnyDatabase;
}

/**
 * After a tenant's extensions changed (added, removed, renamed, aliases edited), once that change is committed:
 * every stored line of the tenant resolves its agent name again, and what was derived from them is rebuilt
 * (identities.ts). Runs on the raw connection while Kysely's is held, as the importers do. Returns the number of
 * distinct names whose agent changed.
 */
export async function reResolveAgents(deps: AgentResolveDeps, caller: Caller, tenantId: number): Promise<number> {
  requireTenant(caller.scope, tenantId);
  const { database } = deps;
  return database.db.connection().execute(async () => agentIdentitiesChanged(database, tenantId));
}

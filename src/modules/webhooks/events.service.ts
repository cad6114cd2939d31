import type { Caller } from '../../access/caller';
import { requireTenant } from '../../access/scope';
import type { Clock } from '../../clock';
import type { Sqlite } from '../../db/database';
import { claimCallEvent, enqueueEvent, forgetCallEvents, type WebhookEvent } from './outbox.repository';

/*
 * What other modules use to raise webhook events (docs/architecture.md, "How modules use each other"). These
 * run inside the caller's transaction on the raw connection (an import's chunk, a live event), which is
 * synchronous: so are they, the one exception to the services' async shape.
 */
export type { WebhookEvent };

/** What raising an event needs: the connection whose transaction it joins, and the clock. */
export interface EventDeps {
  readonly sqlite: Sqlite;
  readonly clock: Clock;
}

/** Writes one delivery per enabled webhook of the event's tenant and type; returns how many. */
export function raiseEvent(deps: EventDeps, caller: Caller, event: WebhookEvent): number {
  requireTenant(caller.scope, event.tenantId);
  return enqueueEvent(deps.sqlite, event, deps.clock.now());
}

/**
 * Claims a call event that two sources can announce (AMI as it happens, the queue_log line after it): true
 * for the first to ask, which sends it; false for the other.
 */
export function claimCall(deps: EventDeps, _caller: Caller, claim: { type: string; callId: string; queueId: number }): boolean {
  return claimCallEvent(deps.sqlite, claim, deps.clock.now());
}

/** Forgets the call events claimed long enough ago (the hourly job); returns how many. */
export function forgetCalls(deps: EventDeps, _caller: Caller): number {
  return forgetCallEvents(deps.sqlite, deps.clock.now());
}

import type { Caller } from '../../access/caller';
import { requireTenant } from '../../access/scope';
import type { Clock } from '../../clock';
import type { Db, Sqlite } from '../../db/database';
import {
  claimCallEvent,
  claimCallEventInChunk,
  enqueueEvent,
  enqueueEventInChunk,
  forgetCallEvents,
  type WebhookEvent,
} from './outbox.repository';

/*
 * What other modules use to raise webhook events (docs/architecture.md, "How modules use each other"). An event
 * is written in the transaction of the change that caused it: `deps.db` is that transaction (transaction(),
 * src/db/database.ts), so the event commits or rolls back with the change, on SQLite and on PostgreSQL alike.
 */
export type { WebhookEvent };

/** What raising an event needs: the transaction it joins (or the database, for an event that is a change of its own), and the clock. */
export interface EventDeps {
  readonly db: Db;
  readonly clock: Clock;
}

/** Writes one delivery per enabled webhook of the event's tenant and type; returns how many. */
export async function raiseEvent(deps: EventDeps, caller: Caller, event: WebhookEvent): Promise<number> {
  requireTenant(caller.scope, event.tenantId);
  return enqueueEvent(deps.db, event, deps.clock.now());
}

/**
 * Claims a call event that two sources can announce (AMI as it happens, the queue_log line after it): true
 * for the first to ask, which sends it; false for the other.
 */
export async function claimCall(
  deps: EventDeps,
  _caller: Caller,
  claim: { type: string; callId: string; queueId: number },
): Promise<boolean> {
  return claimCallEvent(deps.db, claim, deps.clock.now());
}

/** Forgets the call events claimed long enough ago (the hourly job); returns how many. */
export async function forgetCalls(deps: EventDeps, _caller: Caller): Promise<number> {
  return forgetCallEvents(deps.db, deps.clock.now());
}

/**
 * The PBX log importer's forms (its per-chunk hook runs synchronously inside the chunk's better-sqlite3
 * transaction, src/modules/pbx-logs/import-run.ts): the same as raiseEvent and claimCall, on the raw SQLite
 * connection. Nothing else uses them.
 */
export interface ChunkEventDeps {
  readonly sqlite: Sqlite;
  readonly clock: Clock;
}

export function raiseEventInChunk(deps: ChunkEventDeps, caller: Caller, event: WebhookEvent): number {
  requireTenant(caller.scope, event.tenantId);
  return enqueueEventInChunk(deps.sqlite, event, deps.clock.now());
}

export function claimCallInChunk(deps: ChunkEventDeps, _caller: Caller, claim: { type: string; callId: string; queueId: number }): boolean {
  return claimCallEventInChunk(deps.sqlite, claim, deps.clock.now());
}

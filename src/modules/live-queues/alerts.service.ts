import type { Caller } from '../../access/caller';
import { requireTenant } from '../../access/scope';
import type { Db } from '../../db/database';
import { notFound } from '../../errors';
import type { SchemaTypes } from '../../validation/schema-types';
import { findQueues } from '../queues/queues.repository';
import { findQueueAlerts, saveQueueAlerts, type QueueAlertRow } from './alerts.repository';

/** What a queue without a row has: every alert off, the default cool-down. */
export const DEFAULT_COOLDOWN_SECONDS = 300;

export type QueueAlertsInput = SchemaTypes['queue-alerts-update'];

/** What this service uses (docs/architecture.md, "The service shape"). */
export interface QueueAlertDeps {
  readonly db: Db;
}

const view = (queueId: number, r: QueueAlertRow | undefined) => ({
  queueId,
  maxCallersWaiting: r?.max_callers_waiting ?? null,
  maxLongestWaitSeconds: r?.max_longest_wait_seconds ?? null,
  minServiceLevelPercent: r?.min_service_level_percent ?? null,
  noAgentAvailable: r?.no_agent_available === 1,
  email: r?.email ?? '',
  cooldownSeconds: r?.cooldown_seconds ?? DEFAULT_COOLDOWN_SECONDS,
});

/** The queue, if the caller's scope has it (404 otherwise, decisions.md §2), with the scope of its tenant. */
async function queueOf(db: Db, caller: Caller, queueId: number) {
  const [queue] = await findQueues(db, caller.scope, queueId);
  if (!queue) throw notFound(`Queue ${queueId}`);
  return { queue, scope: requireTenant(caller.scope, queue.tenant_id) };
}

export async function getQueueAlerts({ db }: QueueAlertDeps, caller: Caller, queueId: number) {
  const { scope } = await queueOf(db, caller, queueId);
  return view(queueId, await findQueueAlerts(db, scope, queueId));
}

export async function setQueueAlerts({ db }: QueueAlertDeps, caller: Caller, queueId: number, input: QueueAlertsInput) {
  const { queue, scope } = await queueOf(db, caller, queueId);
  const row: QueueAlertRow = {
    queue_id: queueId,
    tenant_id: queue.tenant_id,
    max_callers_waiting: input.maxCallersWaiting ?? null,
    max_longest_wait_seconds: input.maxLongestWaitSeconds ?? null,
    min_service_level_percent: input.minServiceLevelPercent ?? null,
    no_agent_available: input.noAgentAvailable ? 1 : 0,
    email: (input.email ?? '').trim(),
    cooldown_seconds: input.cooldownSeconds ?? DEFAULT_COOLDOWN_SECONDS,
  };
  await saveQueueAlerts(db, scope, row);
  return view(queueId, row);
}

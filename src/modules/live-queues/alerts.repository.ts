import type { Selectable } from 'kysely';
import type { TenantScope } from '../../access/scope';
import { tenantIn } from '../../access/tenant-filter';
import type { Db } from '../../db/database';
import type { QueueAlertTable } from '../../db/schema';

export type QueueAlertRow = Selectable<QueueAlertTable>;

export async function findQueueAlerts(db: Db, scope: TenantScope, queueId: number): Promise<QueueAlertRow | undefined> {
  return db.selectFrom('queue_alerts').selectAll().where('queue_id', '=', queueId).where(tenantIn(scope)).executeTakeFirst();
}

/**
 * Sets a queue's thresholds whole: a new row, or the row of a queue of the scope replaced (the stored row's
 * tenant is in the upsert's own condition: another tenant's row is never changed).
 */
export async function saveQueueAlerts(db: Db, scope: TenantScope, row: QueueAlertRow): Promise<void> {
  const { queue_id: _id, ...rest } = row;
  await db
    .insertInto('queue_alerts')
    .values(row)
    .onConflict((oc) => oc.column('queue_id').doUpdateSet(rest).where(tenantIn(scope, 'queue_alerts.tenant_id')))
    .execute();
}

/** Every queue's thresholds, for the watcher (the server acting on its own behalf, in every tenant). */
export async function allQueueAlerts(db: Db): Promise<QueueAlertRow[]> {
  return db.selectFrom('queue_alerts').selectAll().orderBy('queue_id').execute();
}

/** The thresholds of the queues of a scope (a live view shows them beside its figures). */
export async function queueAlertsIn(db: Db, scope: TenantScope): Promise<QueueAlertRow[]> {
  return db.selectFrom('queue_alerts').selectAll().where(tenantIn(scope)).execute();
}

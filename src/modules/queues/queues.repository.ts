import type { TenantScope } from '../../access/scope';
import { tenantIn } from '../../access/tenant-filter';
import type { Db } from '../../db/database';
import { defineQuery, inJsonList, type Params } from '../../db/query';
import { notFound } from '../../errors';

/** A call queue; `logName` is its name in the PBX's queue_log. */
export interface QueueInput {
  id?: number;
  tenantId: number;
  name: string;
  logName: string;
}

export async function insertQueue(db: Db, input: QueueInput): Promise<number> {
  const row = await db
    .insertInto('queues')
    .values({ id: input.id, tenant_id: input.tenantId, name: input.name, log_name: input.logName })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export interface QueueRow {
  id: number;
  tenantId: number;
  name: string;
}

const queuesById = defineQuery((db, p: Params<{ ids: string; scope: TenantScope }>) =>
  db.selectFrom('queues').select(['id', 'tenant_id', 'name']).where(inJsonList('id', p.ids)).where(tenantIn(p.scope)).orderBy('id'),
);

/**
 * The queues with these ids that the scope may see; 404 naming the first that is missing or outside it
 * (decisions.md §2: another tenant's queue is not revealed).
 */
export async function getQueuesInScope(db: Db, scope: TenantScope, ids: readonly number[]): Promise<QueueRow[]> {
  const found = ids.length > 0 ? await queuesById.all(db, { ids: JSON.stringify(ids), scope }) : [];
  const rows = found.map(({ id, tenant_id, name }) => ({ id, tenantId: tenant_id, name }));
  const missing = ids.find((id) => !rows.some((r) => r.id === id));
  if (missing !== undefined) throw notFound(`Queue ${missing}`);
  return rows;
}

/** The ids of the queues of a scope's tenants. */
export async function queueIdsOfTenant(db: Db, scope: TenantScope): Promise<number[]> {
  return (await db.selectFrom('queues').select('id').where(tenantIn(scope)).execute()).map((q) => q.id);
}

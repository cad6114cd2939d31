import type { TenantScope } from '../../access/scope';
import { tenantIn } from '../../access/tenant-filter';
import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { defineQuery, inJsonList, type Params } from '../../db/query';
import { notFound } from '../../errors';
import { ciEquals } from '../../db/portable';

/** A call queue; `logName` is its name in the PBX's queue_log. */
export interface QueueInput {
  id?: number;
  tenantId: number;
  name: string;
  logName: string;
  number?: string;
  ringStrategy?: string;
  recording?: string;
  branchId?: number | null;
  serviceLevelSeconds?: number;
}

const queueColumns = (input: Omit<QueueInput, 'id' | 'tenantId'>) => ({
  name: input.name,
  log_name: input.logName,
  number: input.number ?? '',
  ring_strategy: input.ringStrategy ?? 'ringall',
  recording: input.recording ?? '',
  branch_id: input.branchId ?? null,
  service_level_seconds: input.serviceLevelSeconds ?? 30,
});

export async function insertQueue(db: Db, input: QueueInput): Promise<number> {
  const row = await db
    .insertInto('queues')
    .values({ id: input.id, tenant_id: input.tenantId, ...queueColumns(input) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * Changes the columns of the fields given, and only those: a field left out (undefined) keeps its stored value,
 * so that a caller that does not know a column (a newer one) cannot blank it.
 */
export async function updateQueue(
  db: Db,
  scope: TenantScope,
  id: number,
  patch: Partial<Omit<QueueInput, 'id' | 'tenantId'>>,
): Promise<void> {
  const all = queueColumns({ name: '', logName: '', ...patch });
  const given = Object.fromEntries(
    Object.entries(COLUMN_OF).flatMap(([field, column]) =>
      patch[field as keyof typeof COLUMN_OF] === undefined ? [] : [[column, all[column]]],
    ),
  );
  if (Object.keys(given).length === 0) return;
  await db.updateTable('queues').set(given).where('id', '=', id).where(tenantIn(scope)).execute();
}

/** The column each field of QueueInput sets. */
const COLUMN_OF = {
  name: 'name',
  logName: 'log_name',
  number: 'number',
  ringStrategy: 'ring_strategy',
  recording: 'recording',
  branchId: 'branch_id',
  serviceLevelSeconds: 'service_level_seconds',
} as const satisfies Record<keyof Omit<QueueInput, 'id' | 'tenantId'>, keyof ReturnType<typeof queueColumns>>;

/**
 * Deletes a queue. Its members, alert thresholds and wallboard places go by foreign keys; its stored log lines, the
 * report rows made from them and its sent call events by a trigger, and its CDR rows stay, no longer tied to it
 * (db/migrations/2026-11-27T1400_cascade_deletes.ts).
 */
export async function deleteQueue(db: Db, scope: TenantScope, id: number): Promise<void> {
  await db.deleteFrom('queues').where('id', '=', id).where(tenantIn(scope)).execute();
}

/** A queue with its branch's name, as the directory shows it. */
export interface QueueDetailRow {
  id: number;
  tenant_id: number;
  name: string;
  log_name: string;
  number: string;
  ring_strategy: string;
  recording: string;
  branch_id: number | null;
  branch_name: string | null;
  service_level_seconds: number;
}

export async function findQueues(db: Db, scope: TenantScope, id?: number): Promise<QueueDetailRow[]> {
  let q = db
    .selectFrom('queues as q')
    .leftJoin('branches as b', 'b.id', 'q.branch_id')
    .select([
      'q.id',
      'q.tenant_id',
      'q.name',
      'q.log_name',
      'q.number',
      'q.ring_strategy',
      'q.recording',
      'q.branch_id',
      'b.name as branch_name',
      'q.service_level_seconds',
    ])
    .where(tenantIn(scope, 'q.tenant_id'))
    .orderBy('q.id');
  if (id !== undefined) q = q.where('q.id', '=', id);
  return q.execute();
}

/** The queue whose queue_log name is this one without regard to case, in any tenant (the names are unique so). */
export async function queueByLogName(db: Db, logName: string): Promise<{ id: number; tenant_id: number } | undefined> {
  return db.selectFrom('queues').select(['id', 'tenant_id']).where(ciEquals('log_name', logName)).executeTakeFirst();
}

export async function membersOf(db: Db, queueIds: readonly number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  if (queueIds.length === 0) return out;
  const rows = await db
    .selectFrom('queue_members')
    .select(['queue_id', 'extension_id'])
    .where('queue_id', 'in', queueIds)
    .orderBy('extension_id')
    .execute();
  for (const r of rows) out.set(r.queue_id, [...(out.get(r.queue_id) ?? []), r.extension_id]);
  return out;
}

export async function replaceMembers(db: Db, queueId: number, extensionIds: readonly number[]): Promise<void> {
  await db.deleteFrom('queue_members').where('queue_id', '=', queueId).execute();
  if (extensionIds.length > 0)
    await db
      .insertInto('queue_members')
      .values(extensionIds.map((extension_id) => ({ queue_id: queueId, extension_id })))
      .execute();
}

/** How many stored queue_log lines a queue has: its reports need it while there are any. */
export async function storedLinesOf(db: Db, queueId: number): Promise<number> {
  const r = await db
    .selectFrom(sql<{ queue_id: number }>`queue_events`.as('e'))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('e.queue_id', '=', queueId)
    .executeTakeFirstOrThrow();
  return r.n;
}

export interface QueueRow {
  id: number;
  tenantId: number;
  name: string;
  /** Its service level threshold (reporting.md R19). */
  serviceLevelSeconds: number;
}

const queuesById = defineQuery((db, p: Params<{ ids: string; scope: TenantScope }>) =>
  db
    .selectFrom('queues')
    .select(['id', 'tenant_id', 'name', 'service_level_seconds'])
    .where(inJsonList('id', p.ids))
    .where(tenantIn(p.scope))
    .orderBy('id'),
);

/**
 * The queues with these ids that the scope may see; 404 naming the first that is missing or outside it
 * (decisions.md §2: another tenant's queue is not revealed).
 */
export async function getQueuesInScope(db: Db, scope: TenantScope, ids: readonly number[]): Promise<QueueRow[]> {
  const found = ids.length > 0 ? await queuesById.all(db, { ids: JSON.stringify(ids), scope }) : [];
  const rows = found.map((r) => ({ id: r.id, tenantId: r.tenant_id, name: r.name, serviceLevelSeconds: r.service_level_seconds }));
  const missing = ids.find((id) => !rows.some((r) => r.id === id));
  if (missing !== undefined) throw notFound(`Queue ${missing}`);
  return rows;
}

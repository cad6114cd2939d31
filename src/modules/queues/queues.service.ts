import type { Db } from '../../db/database';
import { inScope, listScope, requireTenant, type TenantScope } from '../../access/scope';
import { badRequest, conflict, notFound } from '../../errors';
import type { SchemaTypes } from '../../validation/schema-types';
import { isBranchOfTenant } from '../branches/branches.repository';
import { getTenantRef } from '../tenants/tenants.repository';
import {
  deleteQueue,
  deleteQueueData,
  findQueues,
  insertQueue,
  membersOf,
  queueByLogName,
  replaceMembers,
  storedLinesOf,
  updateQueue,
  type QueueDetailRow,
} from './queues.repository';
import { samePbxName } from '../../pbx-name';

export type ApiQueue = SchemaTypes['queue'];
export type CallQueue = SchemaTypes['call-queue'];
export type QueueCreate = SchemaTypes['queue-create'];
export type QueueUpdate = SchemaTypes['queue-update'];

const toCallQueue = (r: QueueDetailRow): CallQueue => ({
  id: r.id,
  name: r.name,
  number: r.number,
  ringStrategy: r.ring_strategy,
  recording: r.recording,
  branchId: r.branch_id,
  branchName: r.branch_name,
  serviceLevelSeconds: r.service_level_seconds,
});

const toApiQueue = (r: QueueDetailRow, members: number[]): ApiQueue => {
  const { id, ...rest } = toCallQueue(r);
  return { id, tenantId: r.tenant_id, logName: r.log_name, ...rest, members };
};

/** The hosted API's list (the mobile app's getCallQueues): every queue the caller reaches, of one tenant when asked. */
export async function callQueues(db: Db, scope: TenantScope, q: { tenantId?: number }): Promise<CallQueue[]> {
  return (await findQueues(db, listScope(scope, q.tenantId))).map(toCallQueue);
}

export async function getQueue(db: Db, scope: TenantScope, id: number): Promise<ApiQueue> {
  const [row] = await findQueues(db, scope, id);
  if (!row) throw notFound(`Queue ${id}`);
  return toApiQueue(row, (await membersOf(db, [id])).get(id) ?? []);
}

/**
 * A queue_log name names one queue on the server, compared as Asterisk compares queue names: without ASCII case
 * (reporting.md R2, src/pbx-name.ts); NONE names none. The 409 names the queue only when the caller reaches it.
 */
async function checkLogName(db: Db, scope: TenantScope, logName: string, self?: number): Promise<void> {
  if (samePbxName(logName, 'NONE')) throw badRequest('logName: NONE is what Asterisk writes for "no queue"');
  const other = await queueByLogName(db, logName);
  if (!other || other.id === self) return;
  const whose = inScope(scope, other.tenant_id) ? `already queue ${other.id}'s` : 'already taken on this server';
  throw conflict(`The queue_log name ${JSON.stringify(logName)} is ${whose} (names are compared without ASCII case, as the PBX does)`);
}

async function checkRefs(
  db: Db,
  tenantId: number,
  branchId: number | null | undefined,
  members: readonly number[] | undefined,
): Promise<void> {
  if (branchId !== null && branchId !== undefined) {
    if (!(await isBranchOfTenant(db, tenantId, branchId)))
      throw badRequest(`branchId: branch ${branchId} is not a branch of tenant ${tenantId}`);
  }
  if (members && members.length > 0) {
    const found = await db
      .selectFrom('extensions')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', [...members])
      .execute();
    const missing = members.filter((m) => !found.some((f) => f.id === m));
    if (missing.length > 0)
      throw badRequest(
        `members: ${missing.join(', ')} ${missing.length === 1 ? 'is not an extension' : 'are not extensions'} of tenant ${tenantId}`,
      );
  }
}

export async function createQueue(db: Db, scope: TenantScope, input: QueueCreate): Promise<ApiQueue> {
  const tenantScope = requireTenant(scope, input.tenantId);
  return db.transaction().execute(async (trx) => {
    await getTenantRef(trx, tenantScope);
    await checkLogName(trx, scope, input.logName);
    await checkRefs(trx, input.tenantId, input.branchId, input.members);
    const id = await insertQueue(trx, input);
    await replaceMembers(trx, id, input.members ?? []);
    return getQueue(trx, tenantScope, id);
  });
}

export async function changeQueue(db: Db, scope: TenantScope, id: number, patch: QueueUpdate): Promise<ApiQueue> {
  return db.transaction().execute(async (trx) => {
    const current = await getQueue(trx, scope, id);
    const next = { ...current, ...patch };
    if (patch.logName !== undefined) await checkLogName(trx, scope, patch.logName, id);
    await checkRefs(trx, current.tenantId, patch.branchId, patch.members);
    await updateQueue(trx, scope, id, next);
    if (patch.members) await replaceMembers(trx, id, patch.members);
    return getQueue(trx, scope, id);
  });
}

/**
 * Deletes a queue, returning it as it was. A queue with stored log lines goes only with `cascade`, which
 * deletes its lines and reports in the same transaction (its CDR rows stay, without a queue).
 */
export async function removeQueue(db: Db, scope: TenantScope, id: number, cascade = false): Promise<ApiQueue> {
  return db.transaction().execute(async (trx) => {
    const queue = await getQueue(trx, scope, id);
    const lines = await storedLinesOf(trx, id);
    if (lines > 0 && !cascade)
      throw conflict(
        `Queue ${id} has ${lines} stored queue_log lines and the reports made from them; delete with cascade=1 to delete them too`,
      );
    await deleteQueueData(trx, id);
    await deleteQueue(trx, scope, id);
    return queue;
  });
}

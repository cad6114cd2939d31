import type { Caller } from '../../access/caller';
import { transaction, type Db } from '../../db/database';
import { inScope, listScope, requireTenant, type TenantScope } from '../../access/scope';
import { badRequest, conflict, notFound } from '../../errors';
import type { SchemaTypes } from '../../validation/schema-types';
import { isBranchOfTenant } from '../branches/branches.repository';
import { extensionsOfTenantAmong } from '../extensions/extensions.repository';
import { getTenantRef } from '../tenants/tenants.repository';
import {
  deleteQueue,
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

/** What this service uses (docs/architecture.md, "The service shape"). */
export interface QueueDeps {
  readonly db: Db;
}

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
export async function callQueues(deps: QueueDeps, caller: Caller, q: { tenantId?: number }): Promise<CallQueue[]> {
  return (await findQueues(deps.db, listScope(caller.scope, q.tenantId))).map(toCallQueue);
}

export async function getQueue(deps: QueueDeps, caller: Caller, id: number): Promise<ApiQueue> {
  const [row] = await findQueues(deps.db, caller.scope, id);
  if (!row) throw notFound(`Queue ${id}`);
  return toApiQueue(row, (await membersOf(deps.db, [id])).get(id) ?? []);
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
    const found = await extensionsOfTenantAmong(db, tenantId, members);
    const missing = members.filter((m) => !found.includes(m));
    if (missing.length > 0)
      throw badRequest(
        `members: ${missing.join(', ')} ${missing.length === 1 ? 'is not an extension' : 'are not extensions'} of tenant ${tenantId}`,
      );
  }
}

export async function createQueue(deps: QueueDeps, caller: Caller, input: QueueCreate): Promise<ApiQueue> {
  const tenantScope = requireTenant(caller.scope, input.tenantId);
  return transaction(deps.db, async (trx) => {
    await getTenantRef(trx, tenantScope);
    await checkLogName(trx, caller.scope, input.logName);
    await checkRefs(trx, input.tenantId, input.branchId, input.members);
    const id = await insertQueue(trx, input);
    await replaceMembers(trx, id, input.members ?? []);
    return getQueue({ db: trx }, caller, id);
  });
}

/** Changes the fields given (the others keep their values); `members`, when given, replaces the static members. */
export async function changeQueue(deps: QueueDeps, caller: Caller, id: number, patch: QueueUpdate): Promise<ApiQueue> {
  return transaction(deps.db, async (trx) => {
    const current = await getQueue({ db: trx }, caller, id);
    if (patch.logName !== undefined) await checkLogName(trx, caller.scope, patch.logName, id);
    await checkRefs(trx, current.tenantId, patch.branchId, patch.members);
    const { members, ...fields } = patch;
    await updateQueue(trx, requireTenant(caller.scope, current.tenantId), id, fields);
    if (members) await replaceMembers(trx, id, members);
    return getQueue({ db: trx }, caller, id);
  });
}

/**
 * Deletes a queue, returning it as it was. A queue with stored log lines goes only with `cascade`, which
 * deletes its lines and reports in the same transaction (its CDR rows stay, without a queue).
 */
export async function removeQueue(deps: QueueDeps, caller: Caller, id: number, cascade = false): Promise<ApiQueue> {
  return transaction(deps.db, async (trx) => {
    const queue = await getQueue({ db: trx }, caller, id);
    const lines = await storedLinesOf(trx, id);
    if (lines > 0 && !cascade)
      throw conflict(
        `Queue ${id} has ${lines} stored queue_log lines and the reports made from them; delete with cascade=1 to delete them too`,
      );
    await deleteQueue(trx, requireTenant(caller.scope, queue.tenantId), id);
    return queue;
  });
}

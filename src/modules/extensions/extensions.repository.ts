import type { Selectable } from 'kysely';
import type { TenantScope } from '../../access/scope';
import { tenantIn } from '../../access/tenant-filter';
import { windowed, type PageWindow } from '../../access/paging';
import type { Db } from '../../db/database';
import type { ExtensionTable } from '../../db/schema';
import { ciEquals } from '../../db/portable';

/** A PBX extension; agents are extensions, and `peerName` is their name in the queue log (PJSIP/101). */
export interface ExtensionInput {
  id?: number;
  tenantId: number;
  branchId?: number | null;
  extNum: number;
  extName?: string;
  peerName: string;
  /** Other names of its agent in the PBX's logs (reporting.md R14). */
  agentAliases?: readonly string[];
  callerIdNumber?: string;
}

export type ExtensionRow = Selectable<ExtensionTable>;

/** The columns an extension's input sets: one mapping for insert and update. */
const extensionColumns = (input: Omit<ExtensionInput, 'id' | 'tenantId'>) => ({
  branch_id: input.branchId ?? null,
  ext_num: input.extNum,
  ext_name: input.extName ?? '',
  peer_name: input.peerName,
  caller_id_number: input.callerIdNumber ?? '',
  agent_aliases: JSON.stringify(input.agentAliases ?? []),
});

export async function insertExtension(db: Db, input: ExtensionInput): Promise<number> {
  const row = await db
    .insertInto('extensions')
    .values({ id: input.id, tenant_id: input.tenantId, ...extensionColumns(input) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function findExtension(db: Db, scope: TenantScope, id: number): Promise<ExtensionRow | undefined> {
  return db.selectFrom('extensions').selectAll().where('id', '=', id).where(tenantIn(scope)).executeTakeFirst();
}

export async function findExtensionByNumber(
  db: Db,
  scope: TenantScope,
  tenantId: number,
  extNum: number,
): Promise<ExtensionRow | undefined> {
  return db
    .selectFrom('extensions')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('ext_num', '=', extNum)
    .where(tenantIn(scope))
    .executeTakeFirst();
}

/** Every extension of one tenant (the uniqueness checks read them all: a tenant has hundreds, not millions). */
export async function extensionsOfTenant(db: Db, scope: TenantScope, tenantId: number): Promise<ExtensionRow[]> {
  return db.selectFrom('extensions').selectAll().where('tenant_id', '=', tenantId).where(tenantIn(scope)).orderBy('ext_num').execute();
}

/** The extensions of the scope with this peerName (one per tenant at most: peerName is unique in a tenant). */
export async function extensionsByPeer(db: Db, scope: TenantScope, peerName: string): Promise<ExtensionRow[]> {
  // ciEquals folds ASCII letters only: the PBX's rule for names (src/pbx-name.ts).
  return db
    .selectFrom('extensions')
    .selectAll()
    .where(ciEquals('peer_name', peerName))
    .where(tenantIn(scope))
    .orderBy('tenant_id')
    .execute();
}

export async function listExtensions(db: Db, scope: TenantScope, w: PageWindow): Promise<{ rows: ExtensionRow[]; total: number }> {
  const rows = await windowed(
    db.selectFrom('extensions').selectAll().where(tenantIn(scope)).orderBy('tenant_id').orderBy('ext_num'),
    w,
  ).execute();
  const { total } = await db
    .selectFrom('extensions')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where(tenantIn(scope))
    .executeTakeFirstOrThrow();
  return { rows, total };
}

/**
 * Changes the columns of the fields given, and only those: a field left out (undefined) keeps its stored value,
 * so that a caller that does not know a column (a newer one) cannot blank it.
 */
export async function updateExtension(
  db: Db,
  scope: TenantScope,
  id: number,
  patch: Partial<Omit<ExtensionInput, 'id' | 'tenantId'>>,
): Promise<void> {
  const all = extensionColumns({ extNum: 0, peerName: '', ...patch });
  const given: Partial<typeof all> = {};
  if (patch.branchId !== undefined) given.branch_id = all.branch_id;
  if (patch.extNum !== undefined) given.ext_num = all.ext_num;
  if (patch.extName !== undefined) given.ext_name = all.ext_name;
  if (patch.peerName !== undefined) given.peer_name = all.peer_name;
  if (patch.callerIdNumber !== undefined) given.caller_id_number = all.caller_id_number;
  if (patch.agentAliases !== undefined) given.agent_aliases = all.agent_aliases;
  if (Object.keys(given).length === 0) return;
  await db.updateTable('extensions').set(given).where('id', '=', id).where(tenantIn(scope)).execute();
}

export async function deleteExtension(db: Db, scope: TenantScope, id: number): Promise<void> {
  await db.deleteFrom('extensions').where('id', '=', id).where(tenantIn(scope)).execute();
}

export async function isExtensionOfTenant(db: Db, tenantId: number, extensionId: number): Promise<boolean> {
  const row = await db
    .selectFrom('extensions')
    .select('id')
    .where('id', '=', extensionId)
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The phone numbers whose SMS go to an extension (it cannot be deleted while there are any). */
export async function smsNumbersOf(db: Db, extensionId: number): Promise<string[]> {
  const rows = await db.selectFrom('phone_numbers').select('number').where('sms_ext_id', '=', extensionId).execute();
  return rows.map((r) => r.number);
}

/** Which of these ids are extensions of the tenant (a queue's static members must be). */
export async function extensionsOfTenantAmong(db: Db, tenantId: number, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('extensions')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', [...ids])
    .execute();
  return rows.map((r) => r.id);
}

import type { OpenDatabase, Db } from '../../db/database';
import { pageOf, pageWindow, type Page, type PageQuery } from '../../access/paging';
import { listScope, requireTenant, type TenantScope } from '../../access/scope';
import { badRequest, conflict, notFound } from '../../errors';
import type { SchemaTypes } from '../../validation/schema-types';
import { parseAliases } from '../pbx-logs/agent-names';
import { agentIdentitiesChanged } from '../pbx-logs/identities';
import { isBranchOfTenant } from '../branches/branches.repository';
import { getTenantRef } from '../tenants/tenants.repository';
import {
  deleteExtension,
  extensionsOfTenant,
  findExtension,
  insertExtension,
  listExtensions,
  updateExtension,
  type ExtensionInput,
  type ExtensionRow,
} from './extensions.repository';
import { pbxNameKey, samePbxName } from '../../pbx-name';

export type ApiExtension = SchemaTypes['extension'];
export type ExtensionCreate = SchemaTypes['extension-create'];
export type ExtensionUpdate = SchemaTypes['extension-update'];

export const toApiExtension = (r: ExtensionRow): ApiExtension => ({
  id: r.id,
  tenantId: r.tenant_id,
  branchId: r.branch_id,
  extNum: r.ext_num,
  extName: r.ext_name,
  peerName: r.peer_name,
  agentAliases: parseAliases(r.agent_aliases),
  callerIdNumber: r.caller_id_number,
});

/**
 * The rules of a tenant's extensions (docs/api.md "Extensions"): `extNum` and `peerName` unique in the tenant,
 * and every name an agent is known by (peerName, aliases) names one extension only (reporting.md R14).
 */
async function checkNames(db: Db, scope: TenantScope, ext: Omit<ExtensionInput, 'id'>, self?: number): Promise<void> {
  const others = (await extensionsOfTenant(db, scope, ext.tenantId)).filter((e) => e.id !== self);
  const taken = others.find((e) => e.ext_num === ext.extNum);
  if (taken) throw conflict(`Extension number ${ext.extNum} is already extension ${taken.id} of tenant ${ext.tenantId}`);
  // Names compared as Asterisk compares them (ASCII case only): `PJSIP/101` and `pjsip/101` are one agent.
  const names = new Map<string, number>();
  for (const e of others) for (const n of [e.peer_name, ...parseAliases(e.agent_aliases)]) names.set(pbxNameKey(n), e.id);
  for (const name of [ext.peerName, ...(ext.agentAliases ?? [])]) {
    const owner = names.get(pbxNameKey(name));
    if (owner !== undefined)
      throw conflict(`The agent name ${JSON.stringify(name)} already names extension ${owner} of tenant ${ext.tenantId}`);
  }
  const aliases = ext.agentAliases ?? [];
  if (aliases.some((a) => samePbxName(a, ext.peerName))) throw badRequest('agentAliases: the peerName itself is not an alias');
  if (new Set(aliases.map(pbxNameKey)).size !== aliases.length)
    throw badRequest('agentAliases: two aliases differ only in case, which makes them one name for the PBX');
}

async function checkBranch(db: Db, tenantId: number, branchId: number | null | undefined): Promise<void> {
  if (branchId === null || branchId === undefined) return;
  if (!(await isBranchOfTenant(db, tenantId, branchId)))
    throw badRequest(`branchId: branch ${branchId} is not a branch of tenant ${tenantId}`);
}

/**
 * Stored lines of the tenant resolve their agent names again (R14): run after every change of its extensions,
 * once the change is committed, on the raw connection (Kysely's is held meanwhile, as the importers do).
 */
async function reResolve(database: OpenDatabase, tenantId: number): Promise<void> {
  await database.db.connection().execute(async () => agentIdentitiesChanged(database.sqlite, tenantId));
}

export async function createExtension(database: OpenDatabase, scope: TenantScope, input: ExtensionCreate): Promise<ApiExtension> {
  const tenantScope = requireTenant(scope, input.tenantId);
  const row = await database.db.transaction().execute(async (trx) => {
    await getTenantRef(trx, tenantScope);
    await checkBranch(trx, input.tenantId, input.branchId);
    await checkNames(trx, tenantScope, input);
    return findExtension(trx, tenantScope, await insertExtension(trx, input));
  });
  await reResolve(database, input.tenantId);
  return toApiExtension(row as ExtensionRow);
}

export async function getExtension(db: Db, scope: TenantScope, id: number): Promise<ApiExtension> {
  const row = await findExtension(db, scope, id);
  if (!row) throw notFound(`Extension ${id}`);
  return toApiExtension(row);
}

export async function extensionPage(db: Db, scope: TenantScope, q: { tenantId?: number } & PageQuery): Promise<Page<ApiExtension>> {
  const { rows, total } = await listExtensions(db, listScope(scope, q.tenantId), pageWindow(q));
  return pageOf(rows.map(toApiExtension), total, q);
}

export async function changeExtension(
  database: OpenDatabase,
  scope: TenantScope,
  id: number,
  patch: ExtensionUpdate,
): Promise<ApiExtension> {
  const { before, after } = await database.db.transaction().execute(async (trx) => {
    const before = await getExtension(trx, scope, id);
    const next = { ...before, ...patch };
    await checkBranch(trx, before.tenantId, patch.branchId);
    await checkNames(trx, scope, next, id);
    await updateExtension(trx, scope, id, next);
    return { before, after: await getExtension(trx, scope, id) };
  });
  const names = (e: ApiExtension) => JSON.stringify([e.extNum, e.extName, e.peerName, e.agentAliases]);
  if (names(before) !== names(after)) await reResolve(database, after.tenantId);
  return after;
}

/**
 * Deletes an extension (its static memberships go with it; its agent's stored lines keep their names). Refused
 * while a phone number sends its SMS to it: the number would be left pointing nowhere.
 */
export async function removeExtension(database: OpenDatabase, scope: TenantScope, id: number): Promise<ApiExtension> {
  const gone = await database.db.transaction().execute(async (trx) => {
    const ext = await getExtension(trx, scope, id);
    const numbers = await trx.selectFrom('phone_numbers').select('number').where('sms_ext_id', '=', id).execute();
    if (numbers.length > 0)
      throw conflict(`Extension ${id} receives the SMS of ${numbers.map((n) => n.number).join(', ')}: give them another extension first`);
    await deleteExtension(trx, scope, id);
    return ext;
  });
  await reResolve(database, gone.tenantId);
  return gone;
}

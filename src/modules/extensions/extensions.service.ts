import type { Caller } from '../../access/caller';
import { pageOf, pageWindow, type Page, type PageQuery } from '../../access/paging';
import { listScope, requireTenant } from '../../access/scope';
import { transaction, type Db } from '../../db/database';
import type { AnyDatabase } from '../../db/engine';
import { badRequest, conflict, notFound } from '../../errors';
import type { SchemaTypes } from '../../validation/schema-types';
import { isBranchOfTenant } from '../branches/branches.repository';
import { parseAliases, reResolveAgents } from '../pbx-logs/pbx-logs.service';
import { getTenantRef } from '../tenants/tenants.repository';
import {
  deleteExtension,
  extensionsOfTenant,
  findExtension,
  insertExtension,
  listExtensions,
  smsNumbersOf,
  updateExtension,
  type ExtensionInput,
  type ExtensionRow,
} from './extensions.repository';
import { pbxNameKey, samePbxName } from '../../pbx-name';

export type ApiExtension = SchemaTypes['extension'];
export type ExtensionCreate = SchemaTypes['extension-create'];
export type ExtensionUpdate = SchemaTypes['extension-update'];

/** What this service uses (docs/architecture.md, "The service shape"): the raw connection too, to re-resolve. */
export interface ExtensionDeps {
  readonly db: Db;
  readonly database: AnyDatabase;
}

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
 * Every name an agent of these extensions is known by (peerName and aliases: reporting.md R14), as its key
 * (pbxNameKey: names compared as Asterisk compares them, ASCII case only, so `PJSIP/101` and `pjsip/101` are one
 * agent) → the extension it names. The rule of a tenant's extensions is that each names one extension only:
 * checkNames enforces it, and `tars pbx sync` plans with it (src/modules/pbx-config/sync.service.ts).
 */
export function agentNameOwners(extensions: readonly ExtensionRow[]): Map<string, ExtensionRow> {
  const owners = new Map<string, ExtensionRow>();
  for (const e of extensions) for (const n of [e.peer_name, ...parseAliases(e.agent_aliases)]) owners.set(pbxNameKey(n), e);
  return owners;
}

/**
 * The rules of a tenant's extensions (docs/api.md "Extensions"): `extNum` and `peerName` unique in the tenant,
 * and every name an agent is known by (peerName, aliases) names one extension only (reporting.md R14).
 */
async function checkNames(db: Db, caller: Caller, ext: Omit<ExtensionInput, 'id'>, self?: number): Promise<void> {
  const others = (await extensionsOfTenant(db, caller.scope, ext.tenantId)).filter((e) => e.id !== self);
  const taken = others.find((e) => e.ext_num === ext.extNum);
  if (taken) throw conflict(`Extension number ${ext.extNum} is already extension ${taken.id} of tenant ${ext.tenantId}`);
  const owners = agentNameOwners(others);
  for (const name of [ext.peerName, ...(ext.agentAliases ?? [])]) {
    const owner = owners.get(pbxNameKey(name));
    if (owner !== undefined)
      throw conflict(`The agent name ${JSON.stringify(name)} already names extension ${owner.id} of tenant ${ext.tenantId}`);
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
 * Stored lines of the tenant resolve their agent names again (R14) once the change is committed. Inside a
 * caller's transaction (deps.db is one) that is the caller's to do after it commits (`tars pbx sync` does it once).
 */
async function reResolve(deps: ExtensionDeps, caller: Caller, tenantId: number): Promise<void> {
  if (!deps.db.isTransaction) await reResolveAgents(deps, caller, tenantId);
}

export async function createExtension(deps: ExtensionDeps, caller: Caller, input: ExtensionCreate): Promise<ApiExtension> {
  const tenantScope = requireTenant(caller.scope, input.tenantId);
  const row = await transaction(deps.db, async (trx) => {
    await getTenantRef(trx, tenantScope);
    await checkBranch(trx, input.tenantId, input.branchId);
    await checkNames(trx, caller, input);
    return findExtension(trx, tenantScope, await insertExtension(trx, input));
  });
  await reResolve(deps, caller, input.tenantId);
  return toApiExtension(row as ExtensionRow);
}

export async function getExtension(deps: Pick<ExtensionDeps, 'db'>, caller: Caller, id: number): Promise<ApiExtension> {
  const row = await findExtension(deps.db, caller.scope, id);
  if (!row) throw notFound(`Extension ${id}`);
  return toApiExtension(row);
}

export async function extensionPage(
  deps: Pick<ExtensionDeps, 'db'>,
  caller: Caller,
  q: { tenantId?: number } & PageQuery,
): Promise<Page<ApiExtension>> {
  const { rows, total } = await listExtensions(deps.db, listScope(caller.scope, q.tenantId), pageWindow(q));
  return pageOf(rows.map(toApiExtension), total, q);
}

/** Changes the fields given (the others keep their values); a change of any agent name re-resolves the tenant's lines. */
export async function changeExtension(deps: ExtensionDeps, caller: Caller, id: number, patch: ExtensionUpdate): Promise<ApiExtension> {
  const { before, after } = await transaction(deps.db, async (trx) => {
    const before = await getExtension({ db: trx }, caller, id);
    await checkBranch(trx, before.tenantId, patch.branchId);
    await checkNames(trx, caller, { ...before, ...patch }, id);
    await updateExtension(trx, requireTenant(caller.scope, before.tenantId), id, patch);
    return { before, after: await getExtension({ db: trx }, caller, id) };
  });
  const names = (e: ApiExtension) => JSON.stringify([e.extNum, e.extName, e.peerName, e.agentAliases]);
  if (names(before) !== names(after)) await reResolve(deps, caller, after.tenantId);
  return after;
}

/**
 * Deletes an extension (its static memberships go with it; its agent's stored lines keep their names). Refused
 * while a phone number sends its SMS to it: the number would be left pointing nowhere.
 */
export async function removeExtension(deps: ExtensionDeps, caller: Caller, id: number): Promise<ApiExtension> {
  const gone = await transaction(deps.db, async (trx) => {
    const ext = await getExtension({ db: trx }, caller, id);
    const numbers = await smsNumbersOf(trx, id);
    if (numbers.length > 0) throw conflict(`Extension ${id} receives the SMS of ${numbers.join(', ')}: give them another extension first`);
    await deleteExtension(trx, requireTenant(caller.scope, ext.tenantId), id);
    return ext;
  });
  await reResolve(deps, caller, gone.tenantId);
  return gone;
}

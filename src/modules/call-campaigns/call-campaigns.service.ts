import { type Db, transaction } from '../../db/database';
import { badRequest, notFound } from '../../errors';
import type { Caller } from '../../access/caller';
import { pageOf, pageWindow, type Page, type PageQuery } from '../../access/paging';
import { listScope, requireTenant } from '../../access/scope';
import { getTenantRef } from '../tenants/tenants.repository';
import { toApiCampaign, type ApiCallCampaign, type CampaignCreate, type CampaignUpdate } from './call-campaign';
import {
  campaignChildren,
  campaignColumns,
  deleteCampaign,
  findCampaign,
  insertCampaign,
  listCampaigns,
  emptyChildren,
  replaceCampaignChildren,
  updateCampaignColumns,
} from './call-campaigns.repository';

/** What this service uses (docs/architecture.md, "The service shape"). */
export interface CallCampaignDeps {
  readonly db: Db;
}

/** The rule one schema cannot express; judged on the whole campaign, so a PATCH of one date is checked too. */
function checkDates(c: Pick<CampaignCreate, 'dateStart' | 'dateEnd'>): void {
  if (c.dateStart && c.dateEnd && c.dateEnd < c.dateStart) throw badRequest('dateEnd must not be before dateStart');
}

export async function createCampaign(deps: CallCampaignDeps, caller: Caller, input: CampaignCreate): Promise<ApiCallCampaign> {
  const { db } = deps;
  checkDates(input);
  const tenantScope = requireTenant(caller.scope, input.tenantId);
  return transaction(db, async (trx) => {
    await getTenantRef(trx, tenantScope);
    const id = await insertCampaign(trx, { ...input, state: input.state ?? 'READY' });
    return getCampaign({ ...deps, db: trx }, caller, id);
  });
}

export async function listCallCampaigns(
  deps: CallCampaignDeps,
  caller: Caller,
  q: { tenantId?: number } & PageQuery,
): Promise<Page<ApiCallCampaign>> {
  const { db } = deps;
  const { rows, total } = await listCampaigns(db, listScope(caller.scope, q.tenantId), pageWindow(q));
  const children = await campaignChildren(
    db,
    rows.map((r) => r.id),
  );
  return pageOf(
    rows.map((r) => toApiCampaign(r, children.get(r.id) ?? emptyChildren())),
    total,
    q,
  );
}

export async function getCampaign(deps: CallCampaignDeps, caller: Caller, id: number): Promise<ApiCallCampaign> {
  const { db } = deps;
  const row = await findCampaign(db, caller.scope, id);
  if (!row) throw notFound(`Call campaign ${id}`);
  return toApiCampaign(row, (await campaignChildren(db, [id])).get(id) ?? emptyChildren());
}

export async function updateCampaign(deps: CallCampaignDeps, caller: Caller, id: number, patch: CampaignUpdate): Promise<ApiCallCampaign> {
  const { db } = deps;
  return transaction(db, async (trx) => {
    const current = await getCampaign({ ...deps, db: trx }, caller, id);
    const next = { ...current, ...patch };
    checkDates(next);
    await updateCampaignColumns(trx, caller.scope, id, campaignColumns(next));
    await replaceCampaignChildren(trx, id, patch);
    return getCampaign({ ...deps, db: trx }, caller, id);
  });
}

/** Deletes a campaign with its numbers and destinations, in one transaction; returns it as it was. */
export async function removeCampaign(deps: CallCampaignDeps, caller: Caller, id: number): Promise<ApiCallCampaign> {
  const { db } = deps;
  return transaction(db, async (trx) => {
    const campaign = await getCampaign({ ...deps, db: trx }, caller, id);
    await deleteCampaign(trx, caller.scope, id);
    return campaign;
  });
}

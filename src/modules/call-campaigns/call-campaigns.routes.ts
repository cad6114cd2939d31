import type { AppDeps } from '../../deps';
import type { PageQuery } from '../../access/paging';
import { route, type RouteDef } from '../../http/route';
import type { CampaignCreate, CampaignUpdate } from './call-campaign';
import { createCampaign, getCampaign, listCallCampaigns, removeCampaign, updateCampaign } from './call-campaigns.service';

type IdParams = { campaignId: number };

export function callCampaignRoutes(deps: AppDeps): RouteDef[] {
  const { db } = deps.database;
  const tag = 'Call campaigns';
  const path = '/v2/admin/call-campaigns';
  return [
    route<CampaignCreate>({
      method: 'post',
      path,
      tag,
      summary: 'Create a call campaign',
      addition: true,
      permission: 'admin.call-campaigns.create',
      body: 'call-campaign-create',
      response: 'call-campaign',
      handler: ({ caller, body }) => createCampaign(db, caller, body),
    }),
    route<unknown, { tenantId?: number } & PageQuery>({
      method: 'get',
      path,
      tag,
      summary: 'List call campaigns (filter tenantId; paged)',
      addition: true,
      permission: 'admin.call-campaigns.read',
      query: 'list-query',
      response: 'call-campaign-page',
      handler: ({ caller, query }) => listCallCampaigns(db, caller, query),
    }),
    route<unknown, unknown, IdParams>({
      method: 'get',
      path: `${path}/:campaignId`,
      tag,
      summary: 'Read one call campaign',
      addition: true,
      permission: 'admin.call-campaigns.read',
      params: 'path-params',
      response: 'call-campaign',
      handler: ({ caller, params }) => getCampaign(db, caller, params.campaignId),
    }),
    route<CampaignUpdate, unknown, IdParams>({
      method: 'patch',
      path: `${path}/:campaignId`,
      tag,
      summary: 'Change a call campaign (e.g. state READY or PAUSED)',
      addition: true,
      permission: 'admin.call-campaigns.update',
      params: 'path-params',
      body: 'call-campaign-update',
      response: 'call-campaign',
      handler: ({ caller, params, body }) => updateCampaign(db, caller, params.campaignId, body),
    }),
    route<unknown, unknown, IdParams>({
      method: 'delete',
      path: `${path}/:campaignId`,
      tag,
      summary: 'Delete a call campaign with its numbers and destinations',
      permission: 'admin.call-campaigns.delete',
      params: 'path-params',
      response: 'call-campaign',
      handler: ({ caller, params }) => removeCampaign(db, caller, params.campaignId),
    }),
  ];
}

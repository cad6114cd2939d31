import { route, type RouteDef } from '../../http/route';
import {
  createCampaign,
  getCampaign,
  listCallCampaigns,
  removeCampaign,
  updateCampaign,
  type CallCampaignDeps,
} from './call-campaigns.service';

export function callCampaignRoutes(deps: CallCampaignDeps): RouteDef[] {
  const tag = 'Call campaigns';
  const path = '/v2/admin/call-campaigns';
  return [
    route({
      method: 'post',
      path,
      tag,
      summary: 'Create a call campaign',
      addition: true,
      permission: 'admin.call-campaigns.create',
      body: 'call-campaign-create',
      response: 'call-campaign',
      handler: ({ caller, body }) => createCampaign(deps, caller, body),
    }),
    route({
      method: 'get',
      path,
      tag,
      summary: 'List call campaigns (filter tenantId; paged)',
      addition: true,
      permission: 'admin.call-campaigns.read',
      query: 'list-query',
      response: 'call-campaign-page',
      handler: ({ caller, query }) => listCallCampaigns(deps, caller, query),
    }),
    route({
      method: 'get',
      path: `${path}/:campaignId`,
      tag,
      summary: 'Read one call campaign',
      addition: true,
      permission: 'admin.call-campaigns.read',
      params: 'campaign-id-params',
      response: 'call-campaign',
      handler: ({ caller, params }) => getCampaign(deps, caller, params.campaignId),
    }),
    route({
      method: 'patch',
      path: `${path}/:campaignId`,
      tag,
      summary: 'Change a call campaign (e.g. state READY or PAUSED)',
      addition: true,
      permission: 'admin.call-campaigns.update',
      params: 'campaign-id-params',
      body: 'call-campaign-update',
      response: 'call-campaign',
      handler: ({ caller, params, body }) => updateCampaign(deps, caller, params.campaignId, body),
    }),
    route({
      method: 'delete',
      path: `${path}/:campaignId`,
      tag,
      summary: 'Delete a call campaign with its numbers and destinations',
      permission: 'admin.call-campaigns.delete',
      params: 'campaign-id-params',
      response: 'call-campaign',
      handler: ({ caller, params }) => removeCampaign(deps, caller, params.campaignId),
    }),
  ];
}

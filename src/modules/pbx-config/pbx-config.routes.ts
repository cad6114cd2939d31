import { route, type RouteDef } from '../../http/route';
import { applyFromConfigDir, planFromConfigDir, type ConfigSyncDeps } from './sync.service';

/** `tars pbx sync` from the server's TARS_PBX_CONFIG_DIR, for the console: additions to the hosted API (docs/pbx-config.md). */
export function pbxConfigRoutes(deps: ConfigSyncDeps): RouteDef[] {
  return [
    route({
      method: 'get',
      path: '/v2/pbx/config/plan',
      tag: 'Directory',
      summary: 'The plan of `tars pbx sync` for a tenant from TARS_PBX_CONFIG_DIR, with its hash (platform admins; nothing is written)',
      addition: true,
      permission: 'admin.extensions.update',
      query: 'pbx-sync-query',
      response: 'pbx-sync-plan',
      handler: ({ caller, query }) => planFromConfigDir(deps, caller, query.tenantId),
    }),
    route({
      method: 'post',
      path: '/v2/pbx/config/apply',
      tag: 'Directory',
      summary: 'Apply the plan of that hash (409 when the configuration or the directory changed since it was shown)',
      addition: true,
      permission: 'admin.extensions.update',
      body: 'pbx-sync-apply',
      response: 'pbx-sync-plan',
      status: 200,
      handler: ({ caller, body }) => applyFromConfigDir(deps, caller, body.tenantId, body.planHash),
    }),
  ];
}

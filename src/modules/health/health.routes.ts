import type { AppDeps } from '../../deps';
import { publicRoute, type RouteDef } from '../../http/route';

export function healthRoutes(deps: AppDeps): RouteDef[] {
  return [
    publicRoute({
      method: 'get',
      path: '/healthz',
      tag: 'Operations',
      summary: 'Liveness: 200 once the database is open and migrated',
      addition: true,
      response: 'health',
      permission: 'public',
      handler: () => {
        deps.database.sqlite.prepare('SELECT 1').get();
        return { status: 'ok' };
      },
    }),
  ];
}

import { publicRoute, type RouteDef } from '../../http/route';
import { health, type HealthDeps } from './health.service';

export function healthRoutes(deps: HealthDeps): RouteDef[] {
  return [
    publicRoute({
      method: 'get',
      path: '/healthz',
      tag: 'Operations',
      summary: 'Liveness: 200 once the database is open and migrated and answers; 503 while it does not',
      addition: true,
      response: 'health',
      permission: 'public',
      handler: () => health(deps),
    }),
  ];
}

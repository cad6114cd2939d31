import { sql } from 'kysely';
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
      handler: async () => {
        await sql`SELECT 1`.execute(deps.database.db);
        return { status: 'ok' };
      },
    }),
  ];
}

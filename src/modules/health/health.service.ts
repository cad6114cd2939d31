import type { Db } from '../../db/database';
import { ping } from './health.repository';

/** What this service uses (docs/architecture.md, "The service shape"). */
export interface HealthDeps {
  readonly db: Db;
}

/** Liveness, for anyone (a public route: no caller): ok once the database answers. */
export async function health(deps: HealthDeps): Promise<{ status: 'ok' }> {
  await ping(deps.db);
  return { status: 'ok' };
}

import express, { type Express } from 'express';
import type { AppDeps } from './deps';
import { errorHandler, requestLog, unknownRoute } from './http/middleware';
import { mountRoutes, type RouteDef } from './http/route';
import { authRoutes } from './modules/auth/auth.routes';
import { branchRoutes } from './modules/branches/branches.routes';
import { callRoutes } from './modules/calls/calls.routes';
import { healthRoutes } from './modules/health/health.routes';
import { ingestRoutes } from './modules/pbx-logs/ingest.routes';
import { queueReportRoutes } from './modules/queue-reports/queue-reports.routes';

export interface AppOptions {
  /** Check every response against its schema (tests). */
  readonly checkResponses?: boolean;
}

/** Every route of the server, in registration order (fixed paths before parameterised ones). */
export function allRoutes(deps: AppDeps): RouteDef[] {
  return [...healthRoutes(deps), ...authRoutes(deps), ...branchRoutes(deps), ...queueReportRoutes(deps), ...callRoutes(deps), ...ingestRoutes(deps)];
}

/** Builds the Express app; never listens (src/cli/serve.ts does, tests call this directly). */
export function createApp(deps: AppDeps, opts: AppOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.trustProxy);
  app.set('etag', false);
  app.use(requestLog(deps.log));
  const router = express.Router({ strict: false, caseSensitive: true });
  mountRoutes(router, allRoutes(deps), deps, { checkResponses: opts.checkResponses ?? false });
  app.use(router);
  app.use(unknownRoute);
  app.use(errorHandler(deps.log));
  return app;
}

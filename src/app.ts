import express, { type Express } from 'express';
import type { AppDeps } from './deps';
import { errorHandler, requestLog, unknownRoute } from './http/middleware';
import { mountRoutes, type RouteDef } from './http/route';
import { mountMetricsPage } from './metrics/metrics';
import { mountDocsPage } from './modules/api-docs/docs-page';
import { apiDocsRoutes } from './modules/api-docs/api-docs.routes';
import { authRoutes } from './modules/auth/auth.routes';
import { branchRoutes } from './modules/branches/branches.routes';
import { extensionRoutes } from './modules/extensions/extensions.routes';
import { queueRoutes } from './modules/queues/queues.routes';
import { tenantRoutes } from './modules/tenants/tenants.routes';
import { accountRoutes } from './modules/users/account.routes';
import { userAdminRoutes } from './modules/users/users-admin.routes';
import { callCampaignRoutes } from './modules/call-campaigns/call-campaigns.routes';
import { emergencyLocationRoutes } from './modules/emergency-locations/emergency-locations.routes';
import { healthRoutes } from './modules/health/health.routes';
import { phoneNumberRoutes } from './modules/phone-numbers/phone-numbers.routes';
import { savedFilterRoutes } from './modules/saved-filters/saved-filters.routes';
import { reportRunRoutes } from './modules/scheduled-reports/report-runs.routes';
import { webhookDeliveryRoutes } from './modules/webhooks/deliveries.routes';
import { webhookRoutes } from './modules/webhooks/webhooks.routes';
import { callRoutes } from './modules/calls/calls.routes';
import { ingestRoutes } from './modules/pbx-logs/ingest.routes';
import { pbxImportRoutes } from './modules/pbx-logs/pbx-imports.routes';
import { pbxConfigRoutes } from './modules/pbx-config/pbx-config.routes';
import { queueReportRoutes } from './modules/queue-reports/queue-reports.routes';
import { agentRoutes, liveQueueRoutes } from './modules/live-queues/live.routes';
import type { LiveStreamOptions } from './modules/live-queues/live-stream';
import { consoleRoutes } from './modules/console/console.routes';
import { mountConsole } from './modules/console/console-assets';

export interface AppOptions {
  /** Check every response against its schema (tests). */
  readonly checkResponses?: boolean;
  /** Heartbeat, refresh and slow-client limits of the live stream (tests shorten them). */
  readonly liveStreams?: LiveStreamOptions;
}

/** Every route of the server, in registration order (fixed paths before parameterised ones). */
export function allRoutes(deps: AppDeps, opts: AppOptions = {}): RouteDef[] {
  // The OpenAPI route describes this very list, itself included: it reads it when first asked.
  const routes: RouteDef[] = [
    ...healthRoutes(deps),
    ...apiDocsRoutes(() => routes),
    ...authRoutes(deps),
    ...accountRoutes(deps),
    ...consoleRoutes({ ...deps, lifetimeSeconds: deps.config.tokenTtlSeconds }),
    ...savedFilterRoutes(deps),
    ...reportRunRoutes(deps),
    ...phoneNumberRoutes(deps),
    ...emergencyLocationRoutes(deps),
    ...callCampaignRoutes(deps),
    ...branchRoutes(deps),
    ...extensionRoutes(deps),
    ...agentRoutes(deps),
    ...queueRoutes(deps),
    ...tenantRoutes(deps),
    ...userAdminRoutes(deps),
    ...webhookRoutes(deps),
    ...webhookDeliveryRoutes(deps),
    ...queueReportRoutes(deps),
    ...liveQueueRoutes(deps, opts.liveStreams),
    ...callRoutes(deps),
    ...ingestRoutes(deps),
    ...pbxImportRoutes(deps),
    ...pbxConfigRoutes(deps),
  ];
  return routes;
}

/** Builds the Express app; never listens (src/cli/serve.ts does, tests call this directly). */
export function createApp(deps: AppDeps, opts: AppOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.trustProxy);
  app.set('etag', false);
  app.set('case sensitive routing', true);
  app.use(requestLog(deps.log, deps.config.metrics ? deps.metrics : undefined));
  mountRoutes(app, allRoutes(deps, opts), deps, { checkResponses: opts.checkResponses ?? false });
  // Pages besides the JSON API (not in the route table, so not in the OpenAPI document):
  mountDocsPage(app);
  if (deps.config.metrics) mountMetricsPage(app, deps.metrics, deps.config);
  mountConsole(app);
  app.use(unknownRoute);
  app.use(errorHandler(deps.log));
  return app;
}

import { bearerOf } from '../../http/request-caller';
import { publicRoute, publicStreamRoute, route, type RouteDef } from '../../http/route';
import type { LiveStreams } from './live-stream';
import type { LiveDeps } from './live.service';
import {
  createWallboardLink,
  listWallboardLinks,
  openWallboardStream,
  revokeWallboardLink,
  wallboardLive,
} from './wallboard-links.service';

const PERMISSION = 'reporting.wallboards.manage';

/**
 * Read-only wallboard links (the console's TV mode, docs/console.md): made, listed and revoked by a supervisor;
 * their token reads the live state of the link's queues (GET /v2/wallboard/live and its stream) and nothing
 * else: every other route refuses it (401), as it refuses any bearer credential that is not an access token.
 */
export function wallboardLinkRoutes(live: LiveDeps, streams: LiveStreams): RouteDef[] {
  const tag = 'Live queues';
  return [
    route({
      method: 'post',
      path: '/v2/wallboard-links',
      tag,
      summary: "Make a read-only wallboard link to the live state of some of a tenant's queues (its token is shown once)",
      addition: true,
      permission: PERMISSION,
      body: 'wallboard-link-create',
      response: 'wallboard-link',
      handler: ({ caller, body }) => createWallboardLink(live, caller, body),
    }),
    route({
      method: 'get',
      path: '/v2/wallboard-links',
      tag,
      summary: 'The wallboard links of a tenant (without their tokens)',
      addition: true,
      permission: PERMISSION,
      query: 'queue-list-query',
      response: 'wallboard-link-list',
      handler: ({ caller, query }) => listWallboardLinks(live, caller, query),
    }),
    route({
      method: 'delete',
      path: '/v2/wallboard-links/:linkId',
      tag,
      summary: 'Revoke a wallboard link: its token dies and every screen reading it is cut off at once',
      addition: true,
      permission: PERMISSION,
      params: 'wallboard-link-id-params',
      response: 'wallboard-link',
      handler: ({ caller, params }) => revokeWallboardLink(live, streams, caller, params.linkId),
    }),
    publicRoute({
      method: 'get',
      path: '/v2/wallboard/live',
      tag,
      summary: "A wallboard link's live state (its queues now), by the link's token",
      addition: true,
      permission: 'public',
      credential: 'wallboardLink',
      response: 'wallboard-live',
      handler: ({ http }) => wallboardLive(live, bearerOf(http)),
    }),
    publicStreamRoute({
      method: 'get',
      path: '/v2/wallboard/live/stream',
      tag,
      summary: "A wallboard link's live state as Server-Sent Events (as the live stream), by the link's token; ends when it is revoked",
      addition: true,
      permission: 'public',
      credential: 'wallboardLink',
      response: 'live-queues',
      handler: ({ http }) => openWallboardStream(live, streams, bearerOf(http)),
    }),
  ];
}

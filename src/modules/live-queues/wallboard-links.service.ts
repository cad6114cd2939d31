import { createHash, randomBytes } from 'node:crypto';
import { OPERATOR, type Caller } from '../../access/caller';
import { listScope, scopeOfStoredRow } from '../../access/scope';
import { badRequest, notAuthenticated, notFound } from '../../errors';
import type { EventStream } from '../../http/route';
import type { LiveStreams } from './live-stream';
import { liveTenant, TenantView, type LiveDeps } from './live.service';
import {
  deleteWallboardLink,
  findWallboardLinkByToken,
  findWallboardLinks,
  insertWallboardLink,
  touchWallboardLink,
  wallboardLinkExists,
  type WallboardLinkRow,
} from './wallboard-links.repository';

/** A link's token: recognisable by its prefix (a secret scanner can find one pasted somewhere), then 256 random bits. */
const TOKEN_PREFIX = 'tarswb_';
const TOKEN = /^tarswb_[A-Za-z0-9_-]{43}$/;
/** A link's last use is written at most this often. */
const TOUCH_EVERY_MS = 60_000;
const DEAD = 'This wallboard link has been revoked, or never existed: ask a supervisor for a new one';

const hash = (token: string) => createHash('sha256').update(token).digest('hex');
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The stream channel of a link: every wall screen of one link shares it, and revoking the link ends it. */
const channelOf = (linkId: number) => `wallboard-link:${linkId}`;

function linkView(r: WallboardLinkRow) {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    name: r.name,
    queueIds: [...r.queueIds],
    createdBy: r.created_by,
    createdAt: new Date(r.created_at).toISOString(),
    lastUsedAt: iso(r.last_used_at),
  };
}

/** POST /v2/wallboard-links: a link to the live state of some queues of one tenant; its token is in this answer only. */
export async function createWallboardLink(
  deps: LiveDeps,
  caller: Caller,
  input: { tenantId?: number; name: string; queueIds: readonly number[] },
) {
  const { tenantId, scope } = liveTenant(caller.scope, input.tenantId);
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const stored = await insertWallboardLink(deps.db, scope, {
    tenantId,
    name: input.name.trim(),
    tokenHash: hash(token),
    createdBy: caller.user.id,
    createdAt: deps.clock.now(),
    queueIds: input.queueIds,
  });
  if ('missing' in stored)
    throw badRequest(
      `queueIds: ${stored.missing.join(', ')} ${stored.missing.length === 1 ? 'is' : 'are'} not a queue of tenant ${tenantId}`,
    );
  const [row] = await findWallboardLinks(deps.db, scope, stored.id);
  if (!row) throw notFound(`Wallboard link ${stored.id}`);
  return { ...linkView(row), token, tvPath: `/tv#${token}` };
}

/** GET /v2/wallboard-links: the links of the named tenant, or of every tenant the caller reaches; never their tokens. */
export async function listWallboardLinks(deps: LiveDeps, caller: Caller, query: { tenantId?: number }) {
  return (await findWallboardLinks(deps.db, listScope(caller.scope, query.tenantId))).map(linkView);
}

/** DELETE /v2/wallboard-links/{linkId}: the token dies at once, and every wall screen reading it is cut off. */
export async function revokeWallboardLink(deps: LiveDeps, streams: LiveStreams, caller: Caller, linkId: number) {
  const [row] = await findWallboardLinks(deps.db, caller.scope, linkId);
  if (!row || !(await deleteWallboardLink(deps.db, scopeOfStoredRow(row), linkId))) throw notFound(`Wallboard link ${linkId}`);
  streams.end(channelOf(linkId));
  return linkView(row);
}

/** The live link a token names (401 otherwise): the only thing a wallboard token is good for is reading its queues. */
async function linkOfToken(deps: LiveDeps, token: string): Promise<WallboardLinkRow> {
  const link = TOKEN.test(token) ? await findWallboardLinkByToken(deps.db, hash(token)) : undefined;
  if (!link) throw notAuthenticated(DEAD);
  const now = deps.clock.now();
  if (link.last_used_at === null || now - link.last_used_at >= TOUCH_EVERY_MS) await touchWallboardLink(deps.db, link.id, now);
  return link;
}

const viewOf = (link: WallboardLinkRow) => ({ queueIds: link.queueIds, anonymousPbx: true });

/** GET /v2/wallboard/live: the link's queues now, as the live route words them (its PBXs unnamed), with the link's name. */
export async function wallboardLive(deps: LiveDeps, token: string) {
  const link = await linkOfToken(deps, token);
  const view = await TenantView.load(deps, OPERATOR, link.tenant_id, viewOf(link));
  return { name: link.name, live: view.body(deps.live, new Date(deps.clock.now())) };
}

/** GET /v2/wallboard/live/stream: the same as Server-Sent Events; it ends when the link is revoked. */
export async function openWallboardStream(deps: LiveDeps, streams: LiveStreams, token: string): Promise<EventStream> {
  const link = await linkOfToken(deps, token);
  return streams.open(link.tenant_id, scopeOfStoredRow(link), () => wallboardLinkExists(deps.db, link.id), `link:${link.id}`, {
    key: channelOf(link.id),
    ...viewOf(link),
  });
}

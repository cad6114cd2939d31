import { expect } from 'chai';
import { allRoutes } from '../../src/app';
import type { Db } from '../../src/db/database';
import type { RouteDef } from '../../src/http/route';
import { startTestApp, type TestApp } from '../helpers/app';
import { insertExtension } from '../../src/modules/extensions/extensions.repository';
import { insertQueue } from '../../src/modules/queues/queues.repository';
import { buildBranch, buildUser, DEFAULT_PASSWORD, ROLE, tokenFor, twoTenants } from '../helpers/factories';
import {
  ADDRESS,
  buildCampaign,
  buildFailedDelivery,
  buildLocation,
  buildPhoneNumber,
  buildSavedFilter,
  buildWebhook,
} from '../helpers/records';

/**
 * Every route of allRoutes(deps) with a valid request: a body or query naming a tenant, and for a route
 * with an id in its path, how to make a record of its resource in a tenant. A new route without an
 * entry fails the first test below.
 */
interface Sample {
  body?: (tenantId: number) => unknown;
  query?: (tenantId: number) => Record<string, number | string>;
  record?: (db: Db, tenantId: number, userId: number) => Promise<{ id: number; ids?: number[] }>;
  /** The status a role that may call the route gets, when success needs state this matrix does not make (a code sent). */
  status?: number;
  /** The route ends the caller's tokens (a password change): the role signs in again after it. */
  endsTokens?: boolean;
}
const byTenant = (tenantId: number) => ({ tenantId });
const phone = (db: Db, t: number) => buildPhoneNumber(db, t);
const location = (db: Db, t: number) => buildLocation(db, t);
const campaign = (db: Db, t: number) => buildCampaign(db, t);
const webhook = (db: Db, t: number) => buildWebhook(db, t);
/** A failed delivery, addressed by its webhook's id and its own (the path's two ids, in order). */
const failedDelivery = async (db: Db, t: number) => {
  const d = await buildFailedDelivery(db, t);
  return { id: d.webhookId, ids: [d.webhookId, d.id] };
};
const filter = (db: Db, t: number, userId: number) => buildSavedFilter(db, t, userId);
/** Extension numbers and queue names are unique: every call of a sample gets its own. */
let unique = 7000;
const extension = async (db: Db, t: number) => ({
  id: await insertExtension(db, { tenantId: t, extNum: ++unique, peerName: `PJSIP/${unique}` }),
});
const queue = async (db: Db, t: number) => ({
  id: await insertQueue(db, { tenantId: t, name: 'Role matrix', logName: `roles-${++unique}` }),
});
const wallboardLink = async (db: Db, t: number) => {
  const values = { tenant_id: t, name: 'Role matrix', token_hash: `roles-${++unique}`, created_by: null, created_at: 0 };
  const { id } = await db.insertInto('wallboard_links').values(values).returning('id').executeTakeFirstOrThrow();
  await db
    .insertInto('wallboard_link_queues')
    .values({ link_id: id, queue_id: queueOf(t), position: 0 })
    .execute();
  return { id };
};

const SAMPLES: Record<string, Sample> = {
  'post /v2/reporting/saved': { body: (t) => ({ tenantId: t, url: '/v2/reporting/calls', module: 'calls', name: 'Role matrix' }) },
  'get /v2/reporting/saved': { query: byTenant },
  'get /v2/reporting/saved/:id': { record: filter },
  'patch /v2/reporting/saved/:id': { record: filter, body: () => ({ description: 'changed' }) },
  'delete /v2/reporting/saved/:id': { record: filter },
  'get /v2/admin/phone-numbers': { query: byTenant },
  'patch /v2/admin/phone-numbers/caller-id-name/:id': { record: phone, body: () => ({ callerIdName: 'ROLES' }) },
  'get /v2/admin/phone-numbers/:id': { record: phone },
  'delete /v2/admin/phone-numbers/:id': { record: phone },
  'post /v2/admin/phone-numbers': {
    body: (t) => ({ tenantId: t, branchId: branchOf(t), number: `+1555${++unique}`, smsExtId: extensionOf(t) }),
  },
  'post /v2/admin/emergency-locations': { body: (t) => ({ tenantId: t, name: 'Role matrix', address: ADDRESS }) },
  'get /v2/admin/emergency-locations': { query: byTenant },
  'get /v2/admin/emergency-locations/:id': { record: location },
  'patch /v2/admin/emergency-locations/:id': { record: location, body: () => ({ name: 'Changed' }) },
  'delete /v2/admin/emergency-locations/:id': { record: location },
  'post /v2/admin/call-campaigns': { body: (t) => ({ tenantId: t, name: 'Role matrix', type: 'SCHEDULED' }) },
  'get /v2/admin/call-campaigns': { query: byTenant },
  'get /v2/admin/call-campaigns/:campaignId': { record: campaign },
  'patch /v2/admin/call-campaigns/:campaignId': { record: campaign, body: () => ({ state: 'PAUSED' }) },
  'delete /v2/admin/call-campaigns/:campaignId': { record: campaign },
  'post /v2/admin/branches': { body: (t) => ({ tenantId: t, name: 'Role matrix' }) },
  'get /v2/admin/branches': { query: byTenant },
  'get /v2/admin/branches/:id': { record: (db, t) => buildBranch(db, t) },
  'patch /v2/admin/branches/:id': { record: (db, t) => buildBranch(db, t), body: () => ({ name: 'Changed' }) },
  'delete /v2/admin/branches/:id': { record: (db, t) => buildBranch(db, t) },
  'post /v2/extensions': {
    body: (t) => ({ tenantId: t, extNum: ++unique, peerName: `PJSIP/${unique}`, agentAliases: [`Agent ${unique}`] }),
  },
  'get /v2/extensions': { query: byTenant },
  'post /v2/admin/tenants': { body: () => ({ name: 'Role matrix' }) },
  'post /v2/admin/users': {
    body: (t) => ({ tenantId: t, email: `roles-${++unique}@example.test`, password: 'role matrix password', userRole: 5 }),
  },
  'get /v2/admin/users': { query: byTenant },
  'get /v2/admin/users/:userId': { record: (db, t) => buildUser(db, t, ROLE.basic) },
  'patch /v2/admin/users/:userId': { record: (db, t) => buildUser(db, t, ROLE.basic), body: () => ({ userRole: 7 }) },
  'delete /v2/admin/users/:userId': { record: (db, t) => buildUser(db, t, ROLE.basic) },
  'post /v2/admin/users/:userId/mfa-reset': { record: (db, t) => buildUser(db, t, ROLE.basic) },
  'post /v2/admin/users/:userId/password-reset': { record: (db, t) => buildUser(db, t, ROLE.basic) },
  'get /v2/admin/tenants': {},
  'get /v2/admin/tenants/:tenantId': {},
  'patch /v2/admin/tenants/:tenantId': { body: () => ({ name: 'Changed' }) },
  'delete /v2/admin/tenants/:tenantId': {},
  'get /v2/extensions/:extensionId': { record: extension },
  'patch /v2/extensions/:extensionId': { record: extension, body: () => ({ agentAliases: [`Alias ${++unique}`] }) },
  'delete /v2/extensions/:extensionId': { record: extension },
  'get /v2/queues': { query: byTenant },
  'post /v2/queues': { body: (t) => ({ tenantId: t, name: 'Role matrix', logName: `roles-${++unique}` }) },
  'get /v2/queues/:queueId': { record: queue },
  'patch /v2/queues/:queueId': { record: queue, body: () => ({ ringStrategy: 'rrmemory' }) },
  'delete /v2/queues/:queueId': { record: queue },
  'get /v2/webhooks': { query: byTenant },
  'post /v2/webhooks': { body: (t) => ({ tenantId: t, type: 'ENDCALL', url: 'https://hooks.example.test/roles' }) },
  'get /v2/webhooks/list-types': {},
  'get /v2/webhooks/:webhookId': { record: webhook },
  'patch /v2/webhooks/:webhookId': { record: webhook, body: () => ({ url: 'https://hooks.example.test/changed' }) },
  'delete /v2/webhooks/:webhookId': { record: webhook },
  'get /v2/webhooks/:webhookId/deliveries': { record: webhook },
  'get /v2/webhooks/:webhookId/secret': { record: webhook },
  'post /v2/webhooks/:webhookId/secret/rotate': { record: webhook },
  'post /v2/webhooks/:webhookId/deliveries/:deliveryId/retry': { record: failedDelivery },
  'post /v2/reporting/saved/:id/run': { record: filter },
  'get /v2/reporting/saved/:id/runs': { record: filter },
  'post /v2/reporting/queues/stats': { body: (t) => ({ queueId: [queueOf(t)], startDate: '2026-01-01', endDate: '2026-01-31' }) },
  'post /v2/reporting/queues/agent-availability': {
    body: (t) => ({ queueId: queueOf(t), startDate: '2026-01-01', endDate: '2026-01-31' }),
  },
  'post /v2/reporting/queues/service-level': { body: (t) => ({ queueId: [queueOf(t)], startDate: '2026-01-01', endDate: '2026-01-31' }) },
  'post /v2/reporting/queues/agents': { body: (t) => ({ queueId: [queueOf(t)], startDate: '2026-01-01', endDate: '2026-01-31' }) },
  'post /v2/reporting/queues/lost-calls': { body: (t) => ({ queueId: [queueOf(t)], startDate: '2026-01-01', endDate: '2026-01-31' }) },
  'post /v2/reporting/queues/agent-sessions': { body: (t) => ({ queueId: [queueOf(t)], startDate: '2026-01-01', endDate: '2026-01-31' }) },
  'get /v2/reporting/queues/live': { query: byTenant },
  // Every role's user of the matrix has the extension PJSIP/<9000 + tenant> as its own (before()); no PBX is configured: 503.
  'get /v2/queues/agent-status': { query: (t) => ({ peerName: `PJSIP/${9000 + t}` }) },
  'post /v2/queues/agent-login': { body: (t) => ({ peerName: `PJSIP/${9000 + t}`, loggedIn: 1 }), status: 503 },
  'post /v2/queues/agent-pause': { body: (t) => ({ peerName: `PJSIP/${9000 + t}`, paused: 1, pauseReason: 'Roles' }), status: 503 },
  'post /v2/queues/agent-dnd': { body: (t) => ({ peerName: `PJSIP/${9000 + t}`, queueId: queueOf(t), dnd: 1 }), status: 503 },
  'get /v2/reporting/queues/live/stream': { query: byTenant },
  'get /v2/queues/:queueId/alerts': { record: queue },
  'put /v2/queues/:queueId/alerts': { record: queue, body: () => ({ maxCallersWaiting: 5, noAgentAvailable: true }) },
  'post /v2/wallboard-links': { body: (t) => ({ tenantId: t, name: 'Role matrix', queueIds: [queueOf(t)] }) },
  'get /v2/wallboard-links': { query: byTenant },
  'delete /v2/wallboard-links/:linkId': { record: wallboardLink },
  'get /v2/reporting/calls': { query: byTenant },
  'post /v2/reporting/calls': { body: byTenant },
  'post /v2/reporting/ingest/queue-log': { body: () => ({ lines: ['1793427706|1.1|no-such-queue|NONE|ENTERQUEUE||+13125555161|1'] }) },
  'post /v2/reporting/ingest/cdr': {
    body: () => ({
      lines: [
        '"","101","9","from-internal","","PJSIP/101-1","","Hangup","","2026-10-31 10:00:00","","2026-10-31 10:00:01",1,0,"NO ANSWER","DOCUMENTATION","1.1",""',
      ],
    }),
  },
  'get /v2/pbx/imports': { query: byTenant },
  'post /v2/pbx/imports/:id/again': {},
  'get /v2/pbx/config/plan': { query: byTenant },
  // No TARS_PBX_CONFIG_DIR in this app: the platform admin passes every check and is told to set one (409).
  'post /v2/pbx/config/apply': { body: (t) => ({ tenantId: t, planHash: '0'.repeat(64) }), status: 409 },
  'get /v2/users/me': {},
  'post /v2/users/manual-reset-password': {
    body: () => ({ password: 'role matrix password', currentPassword: DEFAULT_PASSWORD }),
    endsTokens: true,
  },
  'post /v2/mfa/auth/setup': { body: () => ({ mode: 'app', password: DEFAULT_PASSWORD }) },
  'post /v2/mfa/auth/verify': { body: () => ({ mode: 'email', otp: '123456' }), status: 400 }, // no e-mail set-up waiting
  'post /v2/mfa/auth/enable': { body: () => ({ mode: 'sms' }), status: 400 }, // SMS not verified
  'post /v2/mfa/auth/disable': { body: () => ({ password: DEFAULT_PASSWORD }), endsTokens: true },
  'post /v2/mfa/auth/disable-mode': { body: () => ({ mode: 'sms', password: DEFAULT_PASSWORD }), endsTokens: true },
  'post /v2/mfa/auth/confirmation-code': { body: () => ({ mode: 'sms' }), status: 400 }, // MFA by SMS not in use
  'post /v2/mfa/auth/resend-otp': { body: () => ({ mode: 'email' }), status: 400 }, // no e-mail set-up waiting
  'patch /v2/users/user-settings/title': { body: () => ({ title: 'Role matrix' }) },
  'patch /v2/users/user-settings/dark-mode': { body: () => ({ darkMode: 1 }) },
  'patch /v2/users/user-settings/dnd': { body: () => ({ dnd: false }) },
  'patch /v2/users/user-settings/call-notifications': { body: () => ({ enableCallNotifications: 1 }) },
  'patch /v2/users/user-settings/text-notifications': { body: () => ({ enableTextNotifications: 1 }) },
  'patch /v2/users/user-settings/mobile/call-notifications': { body: () => ({ enableMobileCallNotifications: 1 }) },
  'patch /v2/users/user-settings/mobile/text-notifications': { body: () => ({ enableMobileTextNotifications: 1 }) },
  'patch /v2/users/user-settings/mobile/chat-notifications': {
    body: () => ({ enableChatNotifications: 1, enableAllNewMessageNotifications: 1, enableDirectMessageNotifications: 1 }),
  },
};

/** Each tenant of the cast gets one queue, with an id derived from the tenant's. */
const queueOf = (tenantId: number) => 500_000 + tenantId;
const branchOf = (tenantId: number) => 600_000 + tenantId;
const extensionOf = (tenantId: number) => 700_000 + tenantId;

/** decisions.md §5, read independently of src/access/permissions.ts: which role may call which route. */
function roleMayCall(role: number, route: RouteDef): boolean {
  // Tenants are above a tenant: platform and partner admins only (test/api/tenants.test.ts covers their reach).
  if (route.permission.startsWith('admin.tenants.')) return role === ROLE.platform || role === ROLE.partner;
  // A server's files (an import read again, the PBX's configuration directory): platform admins only, as the CLI is the machine's owner's.
  if (route.path.startsWith('/v2/pbx/') && route.path !== '/v2/pbx/imports') return role === ROLE.platform;
  if (route.permission === 'authenticated' || [ROLE.platform, ROLE.partner, ROLE.account].includes(role as 1)) return true;
  // A queue's alert thresholds are read with the queue reports (docs/live-queues.md), set by admins.
  const queueReading =
    route.path.startsWith('/v2/reporting/queues/') || (route.method === 'get' && route.path === '/v2/queues/:queueId/alerts');
  // Wallboard links (TV mode) are made by supervisors: queue managers and admins.
  if (route.path.startsWith('/v2/wallboard-links')) return role === ROLE.queues;
  if (role === ROLE.reports)
    return queueReading || (route.path.startsWith('/v2/reporting/') && !route.path.startsWith('/v2/reporting/ingest/'));
  if (role === ROLE.queues) return queueReading;
  return false;
}

const MISSING_ID = 987654;
const keyOf = (r: RouteDef) => `${r.method} ${r.path}`;
/** The path with its ids in order (the last one given for any further). */
const withId = (path: string, id: number, more: readonly number[] = []) => {
  let i = 0;
  return path.replace(/:\w+/g, () => String(more[i++] ?? more[more.length - 1] ?? id));
};

describe('every route: roles (decisions.md §5) and tenant isolation', () => {
  let app: TestApp;
  let cast: Awaited<ReturnType<typeof twoTenants>>;
  let routes: RouteDef[];
  const tokens = new Map<number, string>();
  const users = new Map<number, { id: number }>();
  const send = (route: RouteDef, token: string, tenantId: number, id: number, ids?: readonly number[]) => {
    const s = SAMPLES[keyOf(route)] ?? {};
    return app.request(route.method.toUpperCase(), withId(route.path, id, ids), {
      token,
      body: s.body?.(tenantId),
      query: s.query?.(tenantId),
    });
  };

  before(async () => {
    app = await startTestApp();
    cast = await twoTenants(app);
    routes = allRoutes(app.deps).filter((r) => r.permission !== 'public');
    const db = app.deps.database.db;
    for (const t of [cast.a.id, cast.b.id]) {
      await insertQueue(db, { id: queueOf(t), tenantId: t, name: `Queue ${t}`, logName: `q${t}` });
      await db
        .insertInto('branches')
        .values({ id: branchOf(t), tenant_id: t, name: `Branch ${t}`, timezone: 'UTC', is_default: 0 })
        .execute();
      await insertExtension(db, { id: extensionOf(t), tenantId: t, extNum: 9000 + t, peerName: `PJSIP/${9000 + t}` });
    }
    for (const role of Object.values(ROLE)) {
      const own = { ext_id: extensionOf(cast.a.id), peer_name: `PJSIP/${9000 + cast.a.id}` };
      const user = await buildUser(db, cast.a.id, role, role === ROLE.partner ? { ...own, partner_id: cast.a.partnerId } : own);
      users.set(role, user);
      tokens.set(role, await tokenFor(app, user));
    }
  });
  after(() => app.close());

  it('when the routes are listed, then every signed-in route has a sample request here', () => {
    expect(
      routes.map(keyOf).filter((k) => !(k in SAMPLES)),
      'routes without a sample',
    ).to.deep.equal([]);
  });

  it('when each role calls each route, then the roles that may not get 403 and the others get past the permission check', async () => {
    const wrong: string[] = [];
    for (const route of routes) {
      const sample = SAMPLES[keyOf(route)];
      // A missing id is the next check.
      const allowed = sample?.status ?? (route.path.includes(':') ? 404 : route.method === 'post' ? 201 : 200);
      for (const [name, role] of Object.entries(ROLE)) {
        const res = await send(route, tokens.get(role) as string, cast.a.id, MISSING_ID);
        if (sample?.endsTokens) tokens.set(role, await tokenFor(app, users.get(role) as { id: number }));
        const expected = roleMayCall(role, route) ? allowed : 403;
        if (res.status !== expected)
          wrong.push(`${keyOf(route)} as ${name}: ${res.status}, expected ${expected} (${res.text.slice(0, 120)})`);
      }
    }
    expect(wrong).to.deep.equal([]);
  });

  it("when a route addresses another tenant's record by id, then 404; its own tenant's admin reaches it", async () => {
    const wrong: string[] = [];
    for (const route of routes.filter((r) => SAMPLES[keyOf(r)]?.record)) {
      const record = await (SAMPLES[keyOf(route)]?.record as NonNullable<Sample['record']>)(
        app.deps.database.db,
        cast.b.id,
        cast.adminB.id,
      );
      const foreign = await send(route, cast.tokenA, cast.a.id, record.id, record.ids);
      const own = await send(route, cast.tokenB, cast.b.id, record.id, record.ids);
      const ok = route.method === 'post' ? 201 : 200;
      if (foreign.status !== 404 || own.status !== ok)
        wrong.push(`${keyOf(route)}: another tenant ${foreign.status}, its own ${own.status}`);
    }
    expect(wrong).to.deep.equal([]);
  });

  it("when a route names another tenant's tenantId in its body or query, then 403", async () => {
    const names = (sample: unknown) => typeof sample === 'object' && sample !== null && Object.hasOwn(sample, 'tenantId');
    const naming = routes.filter((r) => names(SAMPLES[keyOf(r)]?.body?.(1)) || names(SAMPLES[keyOf(r)]?.query?.(1)));
    expect(naming.length).to.be.greaterThan(8);
    const wrong: string[] = [];
    for (const route of naming) {
      const res = await send(route, cast.tokenA, cast.b.id, MISSING_ID);
      if (res.status !== 403) wrong.push(`${keyOf(route)}: ${res.status}`);
    }
    expect(wrong).to.deep.equal([]);
  });

  it("when a wallboard link's token is sent to any signed-in route, then 401: it reads its link's live state and nothing else", async () => {
    const made = await app.request('POST', '/v2/wallboard-links', {
      token: cast.tokenA,
      body: { tenantId: cast.a.id, name: 'Role matrix TV', queueIds: [queueOf(cast.a.id)] },
    });
    expect(made.status, made.text).to.equal(201);
    const wrong: string[] = [];
    for (const route of routes) {
      const s = SAMPLES[keyOf(route)] ?? {};
      const res = await app.request(route.method.toUpperCase(), withId(route.path, MISSING_ID), {
        headers: { authorization: `Bearer ${made.body.token}` },
        body: s.body?.(cast.a.id),
        query: s.query?.(cast.a.id),
      });
      if (res.status !== 401) wrong.push(`${keyOf(route)}: ${res.status}`);
    }
    expect(wrong).to.deep.equal([]);
    const live = await app.request('GET', '/v2/wallboard/live', { headers: { authorization: `Bearer ${made.body.token}` } });
    expect(live.status).to.equal(200);
  });

  it("when the console's session cookie comes with a request from another origin, then every signed-in route refuses it with 403", async () => {
    const login = await app.request('POST', '/v2/console/session', {
      body: { email: cast.adminA.email, password: cast.adminA.password },
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect(login.status, login.text).to.equal(201);
    const cookie = (login.headers.get('set-cookie') as string).split(';')[0] as string;
    const wrong: string[] = [];
    for (const route of routes) {
      const s = SAMPLES[keyOf(route)] ?? {};
      const others: Record<string, string>[] = [{ 'sec-fetch-site': 'cross-site' }, { origin: 'https://attacker.example' }];
      for (const other of others) {
        const res = await app.request(route.method.toUpperCase(), withId(route.path, MISSING_ID), {
          headers: { cookie, ...other },
          body: s.body?.(cast.a.id),
          query: s.query?.(cast.a.id),
        });
        if (res.status !== 403) wrong.push(`${keyOf(route)} ${JSON.stringify(other)}: ${res.status}`);
      }
    }
    expect(wrong).to.deep.equal([]);
    const own = await app.request('GET', '/v2/users/me', { headers: { cookie, 'sec-fetch-site': 'same-origin' } });
    expect(own.body.id).to.equal(cast.adminA.id);
  });
});

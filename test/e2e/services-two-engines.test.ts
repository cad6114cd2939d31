import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { resolveCaller, type Caller } from '../../src/access/caller';
import type { Clock } from '../../src/clock';
import { openDatabase, transaction, type Db, type OpenDatabase } from '../../src/db/database';
import { engineOf, openPostgres } from '../../src/db/engine';
import { migrateToLatest } from '../../src/db/migrate';
import { AppError } from '../../src/errors';
import { settle, takePlace } from '../../src/modules/auth/attempt-limits';
import { login, me } from '../../src/modules/auth/auth.service';
import { TokenService } from '../../src/modules/auth/tokens';
import { createMailer } from '../../src/mail/mailer';
import { createSmsGateway } from '../../src/mail/sms';
import { findUserByEmail } from '../../src/modules/auth/credentials.repository';
import { loginRules } from '../../src/modules/auth/throttle';
import { branchPage, changeBranch, createBranch, getBranch, removeBranch } from '../../src/modules/branches/branches.service';
import {
  createCampaign,
  getCampaign,
  listCallCampaigns,
  removeCampaign,
  updateCampaign,
} from '../../src/modules/call-campaigns/call-campaigns.service';
import {
  createLocation,
  getLocation,
  listEmergencyLocations,
  removeLocation,
  updateLocation,
} from '../../src/modules/emergency-locations/emergency-locations.service';
import { extensionsByPeer } from '../../src/modules/extensions/extensions.repository';
import {
  changeExtension,
  createExtension,
  extensionPage,
  getExtension,
  removeExtension,
} from '../../src/modules/extensions/extensions.service';
import { createNumber, getNumber, listNumbers, removeNumber, setCallerIdName } from '../../src/modules/phone-numbers/phone-numbers.service';
import { callQueues, changeQueue, createQueue, getQueue, removeQueue } from '../../src/modules/queues/queues.service';
import {
  createSavedFilter,
  deleteSavedFilter,
  getSavedFilter,
  listFilters,
  updateSavedFilter,
} from '../../src/modules/saved-filters/saved-filters.service';
import { changeTenant, createTenant, getTenant, removeTenant, tenantPage } from '../../src/modules/tenants/tenants.service';
import { changeUser, createUser, getUser, removeUser, resetUserMfa, userPage } from '../../src/modules/users/users-admin.service';
import { changeOwnSettings } from '../../src/modules/users/account.service';
import { rotateSecret, webhookDeliveries, webhookSecret } from '../../src/modules/webhooks/deliveries.service';
import { createWebhook, getWebhook, listTenantWebhooks, removeWebhook, updateWebhook } from '../../src/modules/webhooks/webhooks.service';
import { Validator } from '../../src/validation/validation';
import { ADDRESS } from '../helpers/records';
import { sharedPostgres } from '../helpers/postgres';

/*
 * The services of the directory and account modules give the same answers on PostgreSQL as on SQLite (issue 32;
 * docs/design/postgresql.md §2, step 5): one script of service calls (services are plain functions of deps, a
 * caller and the input) runs on a fresh migrated SQLite file and on a fresh migrated PostgreSQL database, and every
 * answer (or error) is compared. The script goes through each portable fragment (src/db/portable.ts): a partner's
 * scope of several tenants (the JSON id list of tenantIn), the case-insensitive e-mail, log-name and peer-name
 * lookups, the digits filter of the phone numbers, the throttle's rows by id, and the queries compiled once per
 * shape (defineQuery: the caller, a webhook, the phone-number pages), on both engines in one process.
 */

const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);
const clock: Clock = { now: () => NOW };
const validator = new Validator();
const config = { webhookAllow: [] as string[], webhookDeny: [] as string[] };

/** What a call gave: its answer, or the status and message of the AppError it threw; anything else fails the script. */
async function outcome<T>(call: () => Promise<T>): Promise<T | { error: number; message: string }> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof AppError) return { error: err.status, message: err.message };
    throw err;
  }
}

/** A caller of a stored user, resolved as a request's is (the user read by the compiled callerById query). */
async function callerOfUser(db: Db, uid: number): Promise<Caller> {
  const { token_version: ver } = await db.selectFrom('users').select('token_version').where('id', '=', uid).executeTakeFirstOrThrow();
  return resolveCaller(db, { verify: () => ({ uid, ver }) }, 'token');
}

const tokens = new TokenService('a test secret of thirty-two bytes!', 3600);

const whose = (token: string) => {
  const claims = tokens.verify(token);
  return claims ? { uid: claims.uid, ver: claims.ver } : 'invalid';
};

/** An answer with each token replaced by what it says (the tokens themselves carry the second they were made). */
function claimsOf(answer: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(answer).map(([k, v]) => [k, typeof v === 'string' && /^eyJ/.test(v) ? whose(v) : v]));
}

/** Rows of every table of the database, by table (Kysely's migration tables left out). */
async function rowCounts(db: Db): Promise<Record<string, number>> {
  const tables = (await db.introspection.getTables()).map((t) => t.name).filter((n) => !n.startsWith('kysely_'));
  const out: Record<string, number> = {};
  for (const t of tables.sort()) {
    const row = await db
      .selectFrom(t as 'tenants')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    out[t] = Number(row.n);
  }
  return out;
}

/** The script: every answer by step name, and the service functions it ran. */
async function script(db: Db): Promise<{ answers: Record<string, unknown>; ran: string[] }> {
  const answers: Record<string, unknown> = {};
  const ran = new Set<string>();
  const step = async <T>(name: string, fn: string, call: () => Promise<T>): Promise<T> => {
    ran.add(fn);
    const got = await outcome(call);
    answers[name] = got;
    return got as T;
  };

  // The cast: a platform admin's tenant, tenant A (partner 0) holding one of everything, tenants B and C of partner 7.
  const rootTenant = await db.insertInto('tenants').values({ name: 'Platform', partner_id: 0 }).returning('id').executeTakeFirstOrThrow();
  const rootId = (
    await db
      .insertInto('users')
      .values({
        tenant_id: rootTenant.id,
        email: 'root@example.test',
        password_hash: 'x',
        user_role: 1,
        created_at: new Date(NOW).toISOString(),
      })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;
  const root = await callerOfUser(db, rootId);
  const deps = { db, clock, validator, config };

  const a = await step('tenant A', 'createTenant', () => createTenant(deps, root, { name: 'Acme', mfaRequired: 0 }));
  const b = await step('tenant B', 'createTenant', () => createTenant(deps, root, { name: 'Bravo', partnerId: 7 }));
  const c = await step('tenant C', 'createTenant', () => createTenant(deps, root, { name: 'Charlie', partnerId: 7 }));
  await step('tenant A renamed', 'changeTenant', () => changeTenant(deps, root, a.id, { name: 'Acme Corp' }));
  await step('tenant A read', 'getTenant', () => getTenant(deps, root, a.id));

  // A partner admin of partner 7: its scope is tenants B and C (the JSON-list variant of tenantIn).
  const partnerUser = await step('partner admin', 'createUser', () =>
    createUser(deps, root, { tenantId: b.id, email: 'Pat@Partner.example', password: 'correct horse battery', userRole: 11 }),
  );
  const partner = await callerOfUser(db, partnerUser.id);
  answers['partner scope'] = partner.scope.all ? 'all' : partner.scope.tenantIds;
  await step('tenants of the partner', 'tenantPage', () => tenantPage(deps, partner, {}));
  await step('tenant A to the partner', 'getTenant', () => getTenant(deps, partner, a.id));
  await step('every tenant, paged', 'tenantPage', () => tenantPage(deps, root, { page: 2, recordsPerPage: 2 }));

  // Branches.
  const branchA = await step('branch A', 'createBranch', () =>
    createBranch(deps, root, { tenantId: a.id, name: 'HQ', timezone: 'America/Chicago', default: 1 }),
  );
  const branchB = await step('branch B', 'createBranch', () => createBranch(deps, partner, { tenantId: b.id, name: 'Bravo HQ' }));
  await step('branch C', 'createBranch', () => createBranch(deps, partner, { tenantId: c.id, name: 'Charlie HQ' }));
  await step('branch A other', 'createBranch', () => createBranch(deps, root, { tenantId: a.id, name: 'Annex' }));
  await step('branch A renamed', 'changeBranch', () => changeBranch(deps, root, branchA.id, { name: 'Head office' }));
  await step('branch A read', 'getBranch', () => getBranch(deps, root, branchA.id));
  await step('branch A to the partner', 'getBranch', () => getBranch(deps, partner, branchA.id));
  await step('branches of the partner', 'branchPage', () => branchPage(deps, partner, {}));
  await step('branch B removed', 'removeBranch', () => removeBranch(deps, partner, branchB.id));

  // Extensions, inside a transaction: re-resolving the stored lines' agents after a change (pbx-logs, on the raw
  // SQLite connection) is the caller's to do then, and is not part of this step of issue 32.
  const inTrx = <T>(fn: (trx: Db) => Promise<T>) => transaction(db, fn);
  const extDeps = (trx: Db) => ({ db: trx, database: undefined as unknown as OpenDatabase });
  const ext = await step('extension A', 'createExtension', () =>
    inTrx((trx) => createExtension(extDeps(trx), root, { tenantId: a.id, extNum: 101, peerName: 'Alice', agentAliases: ['ALICE-Mobile'] })),
  );
  await step('extension A 2', 'createExtension', () =>
    inTrx((trx) => createExtension(extDeps(trx), root, { tenantId: a.id, extNum: 102, peerName: 'bob' })),
  );
  await step('extension B', 'createExtension', () =>
    inTrx((trx) => createExtension(extDeps(trx), partner, { tenantId: b.id, extNum: 101, peerName: 'alice' })),
  );
  await step('extension C', 'createExtension', () =>
    inTrx((trx) => createExtension(extDeps(trx), partner, { tenantId: c.id, extNum: 201, peerName: 'Carol' })),
  );
  await step('alias taken as a name', 'createExtension', () =>
    inTrx((trx) => createExtension(extDeps(trx), root, { tenantId: a.id, extNum: 103, peerName: 'alice-mobile' })),
  );
  await step('extension A renamed', 'changeExtension', () =>
    inTrx((trx) => changeExtension(extDeps(trx), root, ext.id, { extName: 'Alice A.' })),
  );
  await step('extension A read', 'getExtension', () => getExtension(deps, root, ext.id));
  await step('extensions of the partner', 'extensionPage', () => extensionPage(deps, partner, { recordsPerPage: 10 }));
  answers['peer ALICE, every tenant'] = (await extensionsByPeer(db, root.scope, 'ALICE')).map((e) => [e.tenant_id, e.peer_name]);
  answers['peer ALICE, the partner'] = (await extensionsByPeer(db, partner.scope, 'ALICE')).map((e) => [e.tenant_id, e.peer_name]);
  const ext2 = (await extensionsByPeer(db, root.scope, 'BOB'))[0];
  const extC = await step('extension C 2', 'createExtension', () =>
    inTrx((trx) => createExtension(extDeps(trx), partner, { tenantId: c.id, extNum: 202, peerName: 'Dave' })),
  );
  await step('extension C 2 removed', 'removeExtension', () => inTrx((trx) => removeExtension(extDeps(trx), partner, extC.id)));

  // Queues: queue_log names are unique without ASCII case across the server.
  const queue = await step('queue A', 'createQueue', () =>
    createQueue(deps, root, { tenantId: a.id, name: 'Sales', logName: 'Sales', members: [ext.id] }),
  );
  await step('queue log name taken in another case', 'createQueue', () =>
    createQueue(deps, partner, { tenantId: b.id, name: 'Sales', logName: 'SALES' }),
  );
  const queueC = await step('queue C', 'createQueue', () =>
    createQueue(deps, partner, { tenantId: c.id, name: 'Support', logName: 'support-c' }),
  );
  await step('queue A changed', 'changeQueue', () =>
    changeQueue(deps, root, queue.id, { name: 'Sales team', members: [ext.id, ext2!.id] }),
  );
  await step('queue A read', 'getQueue', () => getQueue(deps, root, queue.id));
  await step('queues of the partner', 'callQueues', () => callQueues(deps, partner, {}));
  await step('queue C removed', 'removeQueue', () => removeQueue(deps, partner, queueC.id));

  // Users: the e-mail is unique without case, and found in another case.
  const user = await step('user A', 'createUser', () =>
    createUser(deps, root, { tenantId: a.id, email: 'Ann@Example.com', password: 'correct horse battery', userRole: 3 }),
  );
  await step('e-mail taken in another case', 'createUser', () =>
    createUser(deps, root, { tenantId: a.id, email: 'ann@EXAMPLE.com', password: 'correct horse battery', userRole: 5 }),
  );
  answers['user by e-mail in another case'] = (await findUserByEmail(db, 'ANN@example.COM'))?.id === user.id;
  answers['no user of an e-mail like it'] = (await findUserByEmail(db, 'ann@example.co')) ?? null;
  await step('user A changed', 'changeUser', () => changeUser(deps, root, user.id, { userRole: 9 }));
  await step('user A read', 'getUser', () => getUser(deps, root, user.id));
  // Signing in (auth.service): the e-mail in another case, a wrong password (401, counted) and the right one.
  const authDeps = { ...deps, tokens, mailer: createMailer(undefined, 'tars@example.test'), sms: createSmsGateway(undefined) };
  await step('login, wrong password', 'login', () =>
    login(authDeps, { email: 'ANN@example.com', password: 'wrong horse', ip: '198.51.100.7' }),
  );
  await step('login', 'login', async () =>
    claimsOf(await login(authDeps, { email: 'ann@EXAMPLE.com', password: 'correct horse battery', ip: '198.51.100.7' })),
  );
  await step('user A MFA reset', 'resetUserMfa', () => resetUserMfa(deps, root, user.id));
  const ann = await callerOfUser(db, user.id);
  await step('user A own settings', 'changeOwnSettings', () =>
    changeOwnSettings(deps, ann, { darkMode: 'dark_mode', title: 'title' }, { darkMode: true, title: 'Boss' }),
  );
  await step('me', 'me', () => me(deps, ann));
  answers['user A settings stored'] = await db
    .selectFrom('users')
    .select(['dark_mode', 'title'])
    .where('id', '=', user.id)
    .executeTakeFirst();
  await step('users of the partner', 'userPage', () => userPage(deps, partner, {}));
  const userC = await step('user C', 'createUser', () =>
    createUser(deps, partner, { tenantId: c.id, email: 'c@charlie.example', password: 'correct horse battery', userRole: 5 }),
  );
  await step('user C removed', 'removeUser', () => removeUser(deps, partner, userC.id));

  // Phone numbers: the digits filter and the pages (the compiled listPage and listCount shapes).
  const numbers = ['+1 (312) 555-0100', '+13125550101', '312.555.0102', '+17205550199', '+1 312 555 0103'];
  const made: { id: number }[] = [];
  for (const number of numbers)
    made.push(
      await step(`number ${number}`, 'createNumber', () =>
        createNumber(deps, root, {
          tenantId: a.id,
          branchId: branchA.id,
          number,
          smsExtId: ext.id,
          fax: number.startsWith('312') ? 'email' : 'no',
        }),
      ),
    );
  await step('number of another tenant', 'createNumber', () =>
    createNumber(deps, partner, { tenantId: c.id, branchId: branchA.id, number: '+13125550104', smsExtId: ext.id }),
  );
  for (const page of [1, 2, 3])
    await step(`numbers with 312-555, page ${page}`, 'listNumbers', () =>
      listNumbers(deps, root, { number: '312-555', page, recordsPerPage: 2 }),
    );
  await step('numbers with 720', 'listNumbers', () => listNumbers(deps, root, { number: '(720)' }));
  await step('numbers with fax, of branch A', 'listNumbers', () => listNumbers(deps, root, { fax: 1, branchId: branchA.id }));
  await step('numbers of the partner', 'listNumbers', () => listNumbers(deps, partner, {}));
  await step('number caller id name', 'setCallerIdName', () => setCallerIdName(deps, root, made[0]!.id, 'ACME SALES'));
  await step('number read', 'getNumber', () => getNumber(deps, root, made[0]!.id));
  await step('number removed', 'removeNumber', () => removeNumber(deps, root, made[4]!.id));

  // E911 locations.
  const loc = await step('location A', 'createLocation', () =>
    createLocation(deps, root, {
      tenantId: a.id,
      name: 'Main',
      address: ADDRESS,
      notificationGroups: [{ name: 'Front desk', number: '3125550100', email: 'desk@example.com', peerName: 'Alice' }],
    }),
  );
  await step('location A changed', 'updateLocation', () => updateLocation(deps, root, loc.id, { name: 'Main office' }));
  await step('location A read', 'getLocation', () => getLocation(deps, root, loc.id));
  await step('locations of A', 'listEmergencyLocations', () => listEmergencyLocations(deps, root, { tenantId: a.id }));
  const locC = await step('location C', 'createLocation', () =>
    createLocation(deps, partner, { tenantId: c.id, name: 'Charlie', address: ADDRESS }),
  );
  await step('locations of the partner', 'listEmergencyLocations', () => listEmergencyLocations(deps, partner, {}));
  await step('location C removed', 'removeLocation', () => removeLocation(deps, partner, locC.id));

  // Call campaigns.
  const campaign = await step('campaign A', 'createCampaign', () =>
    createCampaign(deps, root, { tenantId: a.id, name: 'Win back', type: 'SCHEDULED' }),
  );
  await step('campaign A paused', 'updateCampaign', () => updateCampaign(deps, root, campaign.id, { state: 'PAUSED' } as never));
  await step('campaign A read', 'getCampaign', () => getCampaign(deps, root, campaign.id));
  await step('campaigns', 'listCallCampaigns', () => listCallCampaigns(deps, root, {}));
  const campaignB = await step('campaign B', 'createCampaign', () =>
    createCampaign(deps, partner, { tenantId: b.id, name: 'Bravo', type: 'SCHEDULED' }),
  );
  await step('campaign B removed', 'removeCampaign', () => removeCampaign(deps, partner, campaignB.id));

  // Webhooks: getWebhook reads through the compiled webhookById query.
  const hook = await step('webhook A', 'createWebhook', () =>
    createWebhook(deps, root, { tenantId: a.id, type: 'NEWVOICEMAIL', url: 'https://hooks.example.test/vm' }),
  );
  await step('webhook A read', 'getWebhook', () => getWebhook(deps, root, hook.id));
  await step('webhook A to the partner', 'getWebhook', () => getWebhook(deps, partner, hook.id));
  await step('webhook A changed', 'updateWebhook', () => updateWebhook(deps, root, hook.id, { url: 'https://hooks.example.test/vm2' }));
  // The secret is random: its shape is compared, not its value.
  const shapeOf = (o: object) => Object.entries(o).map(([k, v]) => [k, typeof v === 'string' && k !== 'expiresAt' ? v.length : v]);
  await step('webhook A secret', 'webhookSecret', async () => shapeOf(await webhookSecret(deps, root, hook.id)));
  await step('webhook A secret rotated', 'rotateSecret', async () => shapeOf(await rotateSecret(deps, root, hook.id)));
  await step('webhook A deliveries', 'webhookDeliveries', () => webhookDeliveries(deps, root, hook.id, {}));
  await step('webhooks of A', 'listTenantWebhooks', () => listTenantWebhooks(deps, root, a.id));
  const hookB = await step('webhook B', 'createWebhook', () =>
    createWebhook(deps, partner, { tenantId: b.id, type: 'ENDCALL', url: 'https://hooks.example.test/end' }),
  );
  await step('webhook B read by the partner', 'getWebhook', () => getWebhook(deps, partner, hookB.id));
  await step('webhook B removed', 'removeWebhook', () => removeWebhook(deps, partner, hookB.id));

  // Saved filters.
  const filters = await step('saved filter A', 'createSavedFilter', () =>
    createSavedFilter(deps, root, { tenantId: a.id, url: '/v2/reporting/calls', module: 'calls', name: 'Missed calls' }),
  );
  const filter = filters[0]!;
  await step('saved filter A renamed', 'updateSavedFilter', () => updateSavedFilter(deps, root, filter.id, { name: 'Missed' }));
  await step('saved filter A read', 'getSavedFilter', () => getSavedFilter(deps, root, filter.id));
  await step('saved filters of A', 'listFilters', () => listFilters(deps, root, { tenantId: a.id }));
  const filtersB = await step('saved filter B', 'createSavedFilter', () =>
    createSavedFilter(deps, partner, { tenantId: b.id, url: '/v2/reporting/calls', module: 'calls', name: 'Bravo calls' }),
  );
  await step('saved filter B deleted', 'deleteSavedFilter', () => deleteSavedFilter(deps, partner, filtersB[0]!.id));

  // The login throttle: ten failures of one e-mail fill its count, the eleventh attempt is refused, a success
  // gives its places back (deleted by id).
  const rules = loginRules('someone@example.com', '192.0.2.1');
  for (let i = 0; i < 10; i++) await settle(db, await takePlace(db, rules, clock.now), false);
  ran.add('takePlace').add('settle');
  answers['eleventh attempt'] = await outcome(() => takePlace(db, rules, clock.now));
  const other = loginRules('bob@example.com', '192.0.2.1');
  const place = await takePlace(db, other, clock.now);
  answers['places of an attempt'] = place.ids.length;
  answers['attempts while held'] = await db
    .selectFrom('login_failures')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  await settle(db, place, true);
  answers['attempts after a success'] = await db.selectFrom('login_failures').select(['key', 'at']).orderBy('id').execute();

  // Deleting tenant A: refused without cascade (it owns records), then with cascade nothing of it is left.
  answers['rows before the delete'] = await rowCounts(db);
  await step('tenant A delete refused', 'removeTenant', () => removeTenant(deps, root, a.id));
  await step('tenant A delete by the partner', 'removeTenant', () => removeTenant(deps, partner, a.id, true));
  await step('tenant A deleted', 'removeTenant', () => removeTenant(deps, root, a.id, true));
  await step('tenant A gone', 'getTenant', () => getTenant(deps, root, a.id));
  answers['rows after the delete'] = await rowCounts(db);
  return { answers, ran: [...ran].sort() };
}

describe('the services of the directory and account modules on SQLite and on PostgreSQL', function () {
  this.timeout(180_000);
  let dir: string;
  const open: { close(): Promise<void> }[] = [];

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tars-two-engines-'));
  });
  after(async () => {
    for (const handle of open.splice(0)) await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when the same script of service calls runs on a fresh SQLite file and a fresh PostgreSQL database, then every answer is the same', async () => {
    const sqlite = openDatabase(join(dir, 'tars.db'));
    open.push(sqlite);
    await migrateToLatest(sqlite);
    const cluster = await sharedPostgres();
    const pg = openPostgres(await cluster.createDatabase(), { poolSize: 4 });
    open.push(pg);
    await migrateToLatest(pg);
    expect([engineOf(sqlite.db), engineOf(pg.db)]).to.deep.equal(['sqlite', 'postgres']);

    // Run alternately in one process: the compiled queries (defineQuery) are kept per engine.
    const onSqlite = await script(sqlite.db);
    const onPostgres = await script(pg.db);
    if (process.env.DUMP_TWO_ENGINES) console.log(JSON.stringify(onSqlite, null, 1));
    expect(onPostgres.answers).to.deep.equal(onSqlite.answers);
    expect(onPostgres.ran).to.deep.equal(onSqlite.ran);

    // Not blind: what the script is for happened (on both, by the equality above).
    const got = onSqlite.answers;
    expect(got['partner scope']).to.deep.equal([(got['tenant B'] as { id: number }).id, (got['tenant C'] as { id: number }).id]);
    expect((got['tenants of the partner'] as { records: { name: string }[] }).records.map((t) => t.name)).to.deep.equal([
      'Bravo',
      'Charlie',
    ]);
    expect(got['tenant A to the partner']).to.include({ error: 404 });
    expect(got['peer ALICE, every tenant']).to.have.length(2);
    expect(got['peer ALICE, the partner']).to.deep.equal([[(got['tenant B'] as { id: number }).id, 'alice']]);
    expect(got['alias taken as a name']).to.include({ error: 409 });
    expect(got['queue log name taken in another case']).to.include({ error: 409 });
    expect(got['e-mail taken in another case']).to.include({ error: 409 });
    expect(got['user by e-mail in another case']).to.equal(true);
    expect(got['no user of an e-mail like it']).to.equal(null);
    const page = (n: number) => got[`numbers with 312-555, page ${n}`] as { records: { number: string }[]; totalRecords?: number };
    expect([...page(1).records, ...page(2).records, ...page(3).records].map((r) => r.number)).to.deep.equal(numbersWith312());
    expect(page(3).records).to.have.length(0);
    expect((got['numbers with 720'] as { records: unknown[] }).records).to.have.length(1);
    expect((got['numbers with fax, of branch A'] as { records: { number: string }[] }).records.map((r) => r.number)).to.deep.equal([
      '312.555.0102',
    ]);
    expect(got['eleventh attempt']).to.include({ error: 429 });
    expect(got['places of an attempt']).to.equal(2);
    expect(got['attempts after a success']).to.have.length(22); // 20 of the throttle's burst, 2 of the wrong password
    expect(got['login, wrong password']).to.include({ error: 401 });
    expect(got['login']).to.deep.include({ accessToken: { uid: (got['user A'] as { id: number }).id, ver: 1 } }); // version 1: its role change ended version 0
    expect(got['tenant A delete refused']).to.include({ error: 409 });
    expect(got['tenant A gone']).to.include({ error: 404 });
    const before = got['rows before the delete'] as Record<string, number>;
    const after = got['rows after the delete'] as Record<string, number>;
    for (const table of [
      'extensions',
      'queues',
      'queue_members',
      'phone_numbers',
      'emergency_locations',
      'call_campaigns',
      'webhooks',
      'saved_filters',
    ])
      expect(after[table], table).to.be.lessThan(before[table] as number);
    expect(after.tenants).to.equal(3);
    expect(after.phone_numbers).to.equal(0);
    expect(after.webhooks).to.equal(0);
    expect(after.queue_members).to.equal(0);
  });
});

function numbersWith312(): string[] {
  return ['+1 (312) 555-0100', '+13125550101', '312.555.0102', '+1 312 555 0103'];
}

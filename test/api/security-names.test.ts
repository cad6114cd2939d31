import { expect } from 'chai';
import { LiveCallEvents } from '../../src/modules/live-queues/live-call-events';
import { UTC_ZONE } from '../../src/modules/pbx-logs/pbx-zone';
import { silentLogger } from '../../src/log';
import type { TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { buildBranch, buildTenant, buildUser, ROLE, tokenFor } from '../helpers/factories';
import { startLiveSite, type LiveSite } from '../helpers/live-site';
import { buildExtension, buildPhoneNumber, buildWebhook } from '../helpers/records';
import { rawSqlite } from '../helpers/engine';

/*
 * Issue 27, point 2: Asterisk compares queue and agent names with strcasecmp, which folds ASCII letters only. A
 * name that JavaScript's Unicode case folding makes equal to another tenant's (KELVIN SIGN U+212A lower-cases to
 * `k`) is another name for the PBX, and must stay another name everywhere in TARS: the uniqueness rule, the import,
 * the live layer and the call events.
 */
const KELVIN = '\u212A';

const callerJoin = (queue: string, uniqueid: string) =>
  `Event: QueueCallerJoin\r\nTimestamp: 1795460793.317770\r\nChannel: PJSIP/trunk-${uniqueid}\r\nCallerIDNum: +17735553410\r\n` +
  `CallerIDName: John Young\r\nUniqueid: ${uniqueid}\r\nQueue: ${queue}\r\nPosition: 1\r\nCount: 1\r\n\r\n`;

describe('security: a Unicode case twin of a PBX name does not cross tenants (issue 27)', function () {
  this.timeout(60_000);
  let site: LiveSite;
  let app: TestApp;
  let calls: LiveCallEvents;
  /** Tenant 1 (the lab site) has `kbilling`; tenant `twin` has `Kbilling` written with KELVIN SIGN. */
  let ownQueue: number;
  let twinQueue: number;
  let twinTenant: number;
  let ownToken: string;
  let twinToken: string;

  const startcalls = async (tenantId: number) =>
    (
      await app.deps.database.db
        .selectFrom('webhook_deliveries')
        .select(['payload'])
        .where('event_type', '=', 'STARTCALL')
        .where('tenant_id', '=', tenantId)
        .execute()
    ).map((r) => JSON.parse(r.payload) as { data: { queueId: number } });

  before(async () => {
    site = await startLiveSite();
    app = site.app;
    const db = app.deps.database.db;
    twinTenant = (await buildTenant(db, { partnerId: 9 })).id;
    ownToken = await tokenFor(app, await buildUser(db, 1, ROLE.account));
    twinToken = await tokenFor(app, await buildUser(db, twinTenant, ROLE.account));
    const own = await app.request('POST', '/v2/queues', { token: ownToken, body: { tenantId: 1, name: 'K billing', logName: 'kbilling' } });
    expect(own.status, own.text).to.equal(201);
    ownQueue = own.body.id;
    const twin = await app.request('POST', '/v2/queues', {
      token: twinToken,
      body: { tenantId: twinTenant, name: 'Twin', logName: `${KELVIN}billing` },
    });
    expect(twin.status, 'another name for the PBX: accepted').to.equal(201);
    twinQueue = twin.body.id;
    for (const tenantId of [1, twinTenant]) await buildWebhook(db, tenantId, { type: 'STARTCALL' });
    calls = new LiveCallEvents(app.deps.live, app.deps.database.db, UTC_ZONE, silentLogger, site.clock);
    calls.start();
  });
  after(async () => {
    calls.stop();
    await site.close();
  });

  it("when a name equal to another tenant's without ASCII case is created, then 409 that does not name the other tenant's queue", async () => {
    for (const logName of ['KBILLING', 'kBilling']) {
      const res = await app.request('POST', '/v2/queues', { token: twinToken, body: { tenantId: twinTenant, name: 'Twin 2', logName } });
      expectError(res, 409);
      expect(res.body.message).not.to.match(new RegExp(`\\b${ownQueue}\\b|tenant 1\\b`));
    }
    const renamed = await app.request('PATCH', `/v2/queues/${twinQueue}`, { token: twinToken, body: { logName: 'KBilling' } });
    expectError(renamed, 409);
    expect(renamed.body.message).not.to.match(new RegExp(`\\b${ownQueue}\\b`));
    // In the caller's own reach, the queue may be named.
    const own = await app.request('POST', '/v2/queues', { token: ownToken, body: { tenantId: 1, name: 'Again', logName: 'KBILLING' } });
    expectError(own, 409);
    expect(own.body.message).to.include(`queue ${ownQueue}`);
  });

  it("when a phone number another tenant has is added, then 409 that does not name the other tenant's record", async () => {
    const db = app.deps.database.db;
    const theirs = await buildPhoneNumber(db, 1);
    const body = {
      tenantId: twinTenant,
      branchId: (await buildBranch(db, twinTenant)).id,
      smsExtId: (await buildExtension(db, twinTenant)).id,
      number: theirs.number,
    };
    const res = await app.request('POST', '/v2/admin/phone-numbers', { token: twinToken, body });
    expectError(res, 409);
    expect(res.body.message).not.to.match(new RegExp(`\\b${theirs.id}\\b`));
  });

  it("when a caller joins the PBX's kbilling, then the twin's live view and STARTCALL webhooks show nothing of it", async () => {
    site.peer.write(callerJoin('kbilling', '9100000001.1'));
    await site.settle();
    const twin = await app.request('GET', '/v2/reporting/queues/live', { token: twinToken, query: { tenantId: twinTenant } });
    const twinView = twin.body.queues.find((q: { queueId: number }) => q.queueId === twinQueue);
    expect(twinView).to.include({ callersWaiting: 0 });
    expect(twinView.callers).to.deep.equal([]);
    const own = await app.request('GET', '/v2/reporting/queues/live', { token: ownToken, query: { tenantId: 1 } });
    expect(own.body.queues.find((q: { queueId: number }) => q.queueId === ownQueue)).to.include({ callersWaiting: 1 });
    await site.settle();
    await calls.idle(); // the STARTCALL events AMI sent are written
    expect((await startcalls(twinTenant)).length).to.equal(0);
    expect((await startcalls(1)).map((c) => c.data.queueId)).to.include(ownQueue);
  });

  it("when the twin's admin ingests lines of the PBX's kbilling, then none is stored in the twin's queue", async () => {
    const lines = [
      '1793427706|1793427706.9|kbilling|NONE|ENTERQUEUE||+13125555161|1',
      `1793427707|1793427707.9|${KELVIN}billing|NONE|ENTERQUEUE||+13125555162|1`,
    ];
    const res = await app.request('POST', '/v2/reporting/ingest/queue-log', { token: twinToken, body: { lines } });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.deep.include({ imported: 1, unknownQueues: { kbilling: 1 } });
    const stored = rawSqlite(app.deps.database).prepare('SELECT count(*) FROM queue_events WHERE queue_id = ?').pluck();
    expect(stored.get(twinQueue)).to.equal(1);
  });

  it('when agent names differ only in ASCII case, then they name one agent (a second extension may not take it); a Unicode twin is another name', async () => {
    const post = (body: object) => app.request('POST', '/v2/extensions', { token: ownToken, body: { tenantId: 1, ...body } });
    const first = await post({ extNum: 801, peerName: 'PJSIP/801', agentAliases: ['Kate Agent'] });
    expect(first.status, first.text).to.equal(201);
    expectError(await post({ extNum: 802, peerName: 'pjsip/801' }), 409);
    expectError(await post({ extNum: 802, peerName: 'PJSIP/802', agentAliases: ['KATE AGENT'] }), 409);
    expectError(await post({ extNum: 802, peerName: 'PJSIP/802', agentAliases: ['pjsip/802'] }), 400);
    // The import resolves a name as Asterisk would: the same agent whatever its ASCII case, never a Unicode twin.
    const lines = [
      '1793427800|1793427800.1|kbilling|kate agent|PAUSE|||Lunch',
      `1793427801|1793427801.1|kbilling|${KELVIN}ATE AGENT|PAUSE|||Lunch`,
    ];
    const res = await app.request('POST', '/v2/reporting/ingest/queue-log', { token: ownToken, body: { lines } });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.unknownAgents).to.deep.equal({ [`${KELVIN}ATE AGENT`]: 1 });
    const twin = await post({ extNum: 803, peerName: 'PJSIP/803', agentAliases: [`${KELVIN}ate Agent`] });
    expect(twin.status, 'another name for the PBX: accepted').to.equal(201);
  });
});

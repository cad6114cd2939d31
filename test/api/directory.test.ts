import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { tokenFor } from '../helpers/factories';
import { seedAcmeWithSampleLogs } from '../helpers/pbx-logs';
import { rawSqlite } from '../helpers/engine';

// acme.json: tenant 1 (extensions 1–3: PJSIP/101–103, queues 1 "400" and 2 "401", branch 1), tenant 2 (extension 4, queue 3, branch 2);
// user 2 account admin of tenant 1, 6 of tenant 2, 4 a basic user of tenant 1.
describe('the directory: extensions and queues over the API (issue 18)', () => {
  let app: TestApp;
  let admin: string;
  let globex: string;
  let basic: string;
  const rows = () => rawSqlite(app.deps.database);

  before(async () => {
    app = await startTestApp({ clock: { now: () => Date.parse('2026-11-22T12:00:00Z') } });
    await seedAcmeWithSampleLogs(app);
    admin = await tokenFor(app, { id: 2 });
    globex = await tokenFor(app, { id: 6 });
    basic = await tokenFor(app, { id: 4 });
  });
  after(() => app.close());

  it("when an admin lists its tenant's queues, then it gets the hosted API's CallQueue array; a basic user may not", async () => {
    const res = await app.request('GET', '/v2/queues?tenantId=1', { token: admin });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal([
      {
        id: 1,
        name: 'Support',
        number: '',
        ringStrategy: 'ringall',
        recording: '',
        branchId: null,
        branchName: null,
        serviceLevelSeconds: 30,
      },
      {
        id: 2,
        name: 'Sales',
        number: '',
        ringStrategy: 'ringall',
        recording: '',
        branchId: null,
        branchName: null,
        serviceLevelSeconds: 30,
      },
    ]);
    expectError(await app.request('GET', '/v2/queues?tenantId=1', { token: basic }), 403);
    expectError(await app.request('GET', '/v2/queues?tenantId=2', { token: admin }), 403);
    expectError(await app.request('POST', '/v2/queues', { token: basic, body: { tenantId: 1, name: 'X', logName: 'x' } }), 403);
  });

  it('when an extension is created with an alias, then lines stored under that alias count for it at once', async () => {
    const before = rows().prepare("SELECT count(*) FROM queue_events WHERE agent = (SELECT id FROM agents WHERE peer = 'PJSIP/104')");
    const res = await app.request('POST', '/v2/extensions', {
      token: admin,
      body: { tenantId: 1, extNum: 104, peerName: 'PJSIP/104', extName: 'Dana Reyes', agentAliases: ['SIP/104'], branchId: 1 },
    });
    expect(res.status).to.equal(201);
    expect(res.body).to.deep.include({
      tenantId: 1,
      branchId: 1,
      extNum: 104,
      peerName: 'PJSIP/104',
      agentAliases: ['SIP/104'],
      callerIdNumber: '',
    });
    expect(before.pluck().get()).to.equal(0); // the sample has no line of SIP/104

    // A line sent under the alias is stored for the extension, keeping its own name.
    await app.request('POST', '/v2/reporting/ingest/queue-log', {
      token: admin,
      body: { lines: ['1793500000|NONE|400|SIP/104|ADDMEMBER|'] },
    });
    expect(before.pluck().get()).to.equal(1);
    const patched = await app.request('PATCH', `/v2/extensions/${res.body.id}`, { token: admin, body: { agentAliases: [] } });
    expect(patched.body.agentAliases).to.deep.equal([]);
    expect(before.pluck().get(), 'the alias is gone: the line is SIP/104 again').to.equal(0);
  });

  it('when names collide, ids belong to another tenant or a branch is foreign, then 409, 404 or 400 and nothing changes', async () => {
    const count = () => rows().prepare('SELECT count(*) FROM extensions').pluck().get();
    const n = count();
    const post = (body: object) => app.request('POST', '/v2/extensions', { token: admin, body: { tenantId: 1, ...body } });
    expectError(await post({ extNum: 101, peerName: 'PJSIP/199' }), 409);
    expectError(await post({ extNum: 199, peerName: 'PJSIP/101' }), 409);
    expectError(await post({ extNum: 199, peerName: 'PJSIP/199', agentAliases: ['PJSIP/102'] }), 409);
    expectError(await post({ extNum: 199, peerName: 'PJSIP/199', branchId: 3 }), 400, ['branchId']);
    expectError(await post({ extNum: 199, peerName: 'bad|name' }), 400, ['peerName']);
    expectError(await app.request('PATCH', '/v2/extensions/4', { token: admin, body: { extName: 'x' } }), 404);
    expectError(await app.request('DELETE', '/v2/extensions/4', { token: admin }), 404);
    expectError(await app.request('DELETE', '/v2/extensions/1', { token: admin }), 409); // phone numbers send their SMS to it
    expect(count()).to.equal(n);
    expect((await app.request('GET', '/v2/extensions/4', { token: globex })).body).to.include({ peerName: 'PJSIP/201' });
  });

  it("when a queue is created, changed and deleted, then its logName is unique without case, its members are its tenant's, and one with lines stays", async () => {
    expectError(await app.request('POST', '/v2/queues', { token: admin, body: { tenantId: 1, name: 'Dup', logName: '400' } }), 409);
    const made = await app.request('POST', '/v2/queues', {
      token: admin,
      body: { tenantId: 1, name: 'Overflow', logName: 'Overflow', number: '5000', ringStrategy: 'rrmemory', branchId: 1, members: [2, 1] },
    });
    expect(made.status).to.equal(201);
    expect(made.body).to.deep.include({ logName: 'Overflow', ringStrategy: 'rrmemory', branchName: 'Headquarters', members: [1, 2] });
    expectError(await app.request('POST', '/v2/queues', { token: admin, body: { tenantId: 1, name: 'Dup', logName: 'OVERFLOW' } }), 409);
    expectError(await app.request('PATCH', `/v2/queues/${made.body.id}`, { token: admin, body: { members: [4] } }), 400, ['members']);
    expectError(await app.request('POST', '/v2/queues', { token: admin, body: { tenantId: 1, name: 'None', logName: 'NONE' } }), 400, [
      'logName',
    ]);
    const changed = await app.request('PATCH', `/v2/queues/${made.body.id}`, { token: admin, body: { members: [3] } });
    expect(changed.body.members).to.deep.equal([3]);
    expectError(await app.request('GET', `/v2/queues/${made.body.id}`, { token: globex }), 404);
    const refused = await app.request('DELETE', '/v2/queues/1', { token: admin }); // the sample's lines
    expectError(refused, 409);
    expect(refused.body.message).to.match(/^Queue 1 has \d+ stored queue_log lines .*cascade=1/);
    expect((await app.request('DELETE', `/v2/queues/${made.body.id}`, { token: admin })).status).to.equal(200);
    expect(rows().prepare('SELECT count(*) FROM queue_members WHERE queue_id = ?').pluck().get(made.body.id)).to.equal(0);

    const cascaded = await app.request('DELETE', '/v2/queues/2?cascade=1', { token: admin });
    expect(cascaded.status).to.equal(200);
    for (const table of ['queue_events', 'queue_hour_stats', 'queue_day_stats', 'agent_sessions'])
      expect(rows().prepare(`SELECT count(*) FROM ${table} WHERE queue_id = 2`).pluck().get(), table).to.equal(0);
    expect(rows().prepare('SELECT count(*) FROM queue_events WHERE queue_id = 1').pluck().get()).to.be.greaterThan(0);
  });

  it('when a queue is given a service level threshold, then it is kept, listed, changed alone and refused outside 1-3600 (reporting.md R19)', async () => {
    const made = await app.request('POST', '/v2/queues', {
      token: admin,
      body: { tenantId: 1, name: 'Service level', logName: 'sl-queue', serviceLevelSeconds: 20 },
    });
    expect(made.status).to.equal(201);
    expect(made.body.serviceLevelSeconds).to.equal(20);
    const listed = (await app.request('GET', '/v2/queues?tenantId=1', { token: admin })).body as {
      id: number;
      serviceLevelSeconds: number;
    }[];
    expect(listed.find((q) => q.id === made.body.id)?.serviceLevelSeconds).to.equal(20);
    const renamed = await app.request('PATCH', `/v2/queues/${made.body.id}`, { token: admin, body: { name: 'Renamed' } });
    expect(renamed.body).to.deep.include({ name: 'Renamed', serviceLevelSeconds: 20 }); // a patch without it keeps it
    const changed = await app.request('PATCH', `/v2/queues/${made.body.id}`, { token: admin, body: { serviceLevelSeconds: 3600 } });
    expect(changed.body.serviceLevelSeconds).to.equal(3600);
    for (const bad of [0, 3601, 1.5, '30'])
      expectError(await app.request('PATCH', `/v2/queues/${made.body.id}`, { token: admin, body: { serviceLevelSeconds: bad } }), 400, [
        'serviceLevelSeconds',
      ]);
    expect((await app.request('GET', `/v2/queues/${made.body.id}`, { token: admin })).body.serviceLevelSeconds).to.equal(3600);
    expect(
      (await app.request('POST', '/v2/queues', { token: admin, body: { tenantId: 1, name: 'Plain', logName: 'sl-plain' } })).body,
    ).to.have.property('serviceLevelSeconds', 30);
  });
});

import { expect } from 'chai';
import type { AmiPeer } from '../helpers/ami-peer';
import type { TestApp } from '../helpers/app';
import { buildTenant, buildUser, ROLE, tokenFor } from '../helpers/factories';
import { startLiveSite, type LiveSite } from '../helpers/live-site';
import { until } from '../helpers/until';

interface AgentQueues {
  name: string;
  peerName: string;
  loggedIn: number;
  paused: number;
  pausedReason: string;
  queues: { queueId: number; queueName: string; dnd: number; loggedIn: boolean }[];
}

/**
 * The mobile app's agent routes (src/shared/api/queues/methods.ts) against an AMI peer that answers QueueAdd,
 * QueueRemove and QueuePause as app_queue.c does, on the recorded run's members (at its first QueueStatus:
 * Carol White, 203, is a static member of sales and support).
 */
describe('the agent routes of the hosted API (/v2/queues/agent-*), carried out over AMI', function () {
  this.timeout(60_000);
  let site: LiveSite;
  let peer: AmiPeer;
  let app: TestApp;
  let admin: string;
  const extId = async (extNum: number) =>
    (await app.deps.database.db.selectFrom('extensions').select('id').where('ext_num', '=', extNum).executeTakeFirstOrThrow()).id;
  const settle = () => site.settle();
  const status = async (peerName: string, token = admin) => {
    const res = await app.request('GET', '/v2/queues/agent-status', { token, query: { peerName } });
    expect(res.status, res.text).to.equal(200);
    return res.body as AgentQueues;
  };
  const post = (path: string, body: object, token = admin) => app.request('POST', `/v2/queues/${path}`, { token, body });
  const actions = (name: string) => peer.received.filter((a) => a.Action === name);

  // Each test starts its own site (app and replayed PBX at the recording's first point): it passes alone (mocha --grep).
  beforeEach(async () => {
    site = await startLiveSite();
    ({ app, peer } = site);
    admin = await tokenFor(app, { id: 1 });
  });
  afterEach(() => site.close());

  it("when agent-status is asked, then it says the agent's queues and its state in them, as the PBX has it", async () => {
    const carol = await status('PJSIP/203');
    expect(carol).to.deep.include({ name: 'Carol White', peerName: 'PJSIP/203', loggedIn: 1, paused: 0, pausedReason: '', extDND: '0' });
    expect(carol.queues.map((q) => [q.queueName, q.loggedIn, q.dnd])).to.deep.equal([
      ['Sales', true, 0],
      ['Support', true, 0],
    ]);
    expect(await status('PJSIP/209')).to.deep.include({ name: 'Ivan Petrov', loggedIn: 0, queues: [] });
  });

  it('when agent-pause is asked, then the agent is paused in every queue with its reason, and the answer and the live view say so', async () => {
    const res = await post('agent-pause', { peerName: 'PJSIP/203', paused: 1, pauseReason: 'Lunch' });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.deep.equal({
      message: 'paused in Sales; paused in Support',
      paused: 1,
      peerName: 'PJSIP/203',
      pauseReason: 'Lunch',
    });
    expect(actions('QueuePause').map((a) => [a.Queue, a.Interface, a.Paused, a.Reason])).to.deep.equal([
      ['sales', 'Local/203@agents/n', 'true', 'Lunch'],
      ['support', 'Local/203@agents/n', 'true', 'Lunch'],
    ]);
    await settle();
    expect(await status('PJSIP/203')).to.include({ paused: 1, pausedReason: 'Lunch' });
    const live = await app.request('GET', '/v2/reporting/queues/live', { token: admin, query: { tenantId: 1 } });
    const carol = (live.body.queues as { members: { extNum: number; paused: boolean; pauseReason: string }[] }[]).flatMap((q) =>
      q.members.filter((m) => m.extNum === 203),
    );
    expect(carol.map((m) => [m.paused, m.pauseReason])).to.deep.equal([
      [true, 'Lunch'],
      [true, 'Lunch'],
    ]);
    const back = await post('agent-pause', { peerName: 'PJSIP/203', paused: 0, pauseReason: '' });
    expect(back.body).to.include({ paused: 0, pauseReason: '' });
    await settle();
    expect(await status('PJSIP/203')).to.include({ paused: 0 });
  });

  it('when agent-dnd is asked, then DND in one queue is a pause there with reason DND, and a later pause leaves that queue alone', async () => {
    const res = await post('agent-dnd', { peerName: 'PJSIP/203', queueId: 1, dnd: 1 });
    expect(res.body).to.deep.equal({ message: 'DND on in Sales', peerName: 'PJSIP/203', queueId: 1, dnd: 1 });
    await settle();
    const carol = await status('PJSIP/203');
    expect(carol.queues.map((q) => [q.queueName, q.dnd])).to.deep.equal([
      ['Sales', 1],
      ['Support', 0],
    ]);
    expect(carol.paused, 'DND is not a pause').to.equal(0);
    const before = actions('QueuePause').length;
    await post('agent-pause', { peerName: 'PJSIP/203', paused: 1, pauseReason: 'Break' });
    expect(
      actions('QueuePause')
        .slice(before)
        .map((a) => a.Queue),
    ).to.deep.equal(['support']);
    await post('agent-pause', { peerName: 'PJSIP/203', paused: 0 });
    const off = await post('agent-dnd', { peerName: 'PJSIP/203', queueId: 1, dnd: 0 });
    expect(off.body).to.include({ dnd: 0 });
    await settle();
    expect((await status('PJSIP/203')).queues.every((q) => q.dnd === 0)).to.equal(true);
    const notIn = await post('agent-dnd', { peerName: 'PJSIP/203', queueId: 3, dnd: 1 });
    expect(notIn.status).to.equal(409);
    expect(notIn.body.message).to.equal('Agent PJSIP/203 is not logged in to queue 3');
  });

  it('when agent-login is asked, then the agent is added to the queues it is a configured member of and taken out again; a static member stays', async () => {
    const ivan = await extId(209);
    for (const q of [1, 2])
      expect((await app.request('PATCH', `/v2/queues/${q}`, { token: admin, body: { members: [ivan] } })).status).to.equal(200);
    const login = await post('agent-login', { peerName: 'PJSIP/209', loggedIn: 1 });
    expect(login.body).to.deep.equal({ message: 'logged in to Sales; logged in to Support', loggedIn: 1, peerName: 'PJSIP/209' });
    expect(actions('QueueAdd').map((a) => [a.Queue, a.Interface, a.MemberName])).to.deep.equal([
      ['sales', 'PJSIP/209', 'Ivan Petrov'],
      ['support', 'PJSIP/209', 'Ivan Petrov'],
    ]);
    await settle();
    expect((await status('PJSIP/209')).queues.map((q) => [q.queueName, q.loggedIn])).to.deep.equal([
      ['Sales', true],
      ['Support', true],
    ]);
    const logout = await post('agent-login', { peerName: 'PJSIP/209', loggedIn: 0 });
    expect(logout.body).to.deep.equal({ message: 'logged out of Sales; logged out of Support', loggedIn: 0, peerName: 'PJSIP/209' });
    await settle();
    expect(await status('PJSIP/209')).to.include({ loggedIn: 0 });

    const statik = await post('agent-login', { peerName: 'PJSIP/201', loggedIn: 0 });
    expect(statik.body).to.deep.equal({
      message: 'not done: Sales: a static member (queues.conf) cannot log out',
      loggedIn: 1,
      peerName: 'PJSIP/201',
    });
    const nowhere = await post('agent-login', { peerName: 'PJSIP/205', loggedIn: 1 });
    expect(nowhere.body).to.include({ loggedIn: 1, message: 'nothing to do' });
  });

  it('when Asterisk refuses an action, then the answer says what it said, and what it did do', async () => {
    const ivan = await extId(209);
    await app.request('PATCH', '/v2/queues/1', { token: admin, body: { members: [ivan] } });
    await app.request('PATCH', '/v2/queues/2', { token: admin, body: { members: [] } });
    await app.request('PATCH', '/v2/queues/3', { token: admin, body: { members: [ivan] } });
    peer.refuse = (a) => (a.Action === 'QueueAdd' && a.Queue === 'sales' ? 'Unable to add interface to queue: No such queue' : undefined);
    const res = await post('agent-login', { peerName: 'PJSIP/209', loggedIn: 1 });
    peer.refuse = () => undefined;
    expect(res.body).to.deep.equal({
      message: 'logged in to Billing; not done: Sales: Unable to add interface to queue: No such queue',
      loggedIn: 1,
      peerName: 'PJSIP/209',
    });
    await settle();
    await post('agent-login', { peerName: 'PJSIP/209', loggedIn: 0 });
    // A queue no connected PBX has: nothing is asked, and the answer says why.
    await app.deps.database.db.updateTable('queues').set({ log_name: 'billing-old' }).where('id', '=', 3).execute();
    const gone = await post('agent-login', { peerName: 'PJSIP/209', loggedIn: 1 });
    await app.deps.database.db.updateTable('queues').set({ log_name: 'billing' }).where('id', '=', 3).execute();
    expect(gone.body).to.deep.include({ loggedIn: 1 });
    expect(gone.body.message).to.include('not done: Billing: no connected PBX has the queue billing-old');
  });

  it('when a user acts for an agent, then only for its own extension; a queue manager for any agent of its tenant; another tenant gets 404', async () => {
    const db = app.deps.database.db;
    const carolUser = await buildUser(db, 1, ROLE.basic, { ext_id: await extId(203), peer_name: 'PJSIP/203' });
    const own = await tokenFor(app, carolUser);
    expect((await status('PJSIP/203', own)).name).to.equal('Carol White');
    const other = await app.request('GET', '/v2/queues/agent-status', { token: own, query: { peerName: 'PJSIP/202' } });
    expect(other.status).to.equal(403);
    expect((await post('agent-pause', { peerName: 'PJSIP/202', paused: 1, pauseReason: 'x' }, own)).status).to.equal(403);
    const manager = await tokenFor(app, await buildUser(db, 1, ROLE.queues));
    expect((await status('PJSIP/202', manager)).name).to.equal('Bob Jones');
    const foreign = await buildTenant(db);
    const stranger = await tokenFor(app, await buildUser(db, foreign.id, ROLE.account));
    const res = await app.request('GET', '/v2/queues/agent-status', { token: stranger, query: { peerName: 'PJSIP/203' } });
    expect(res.status).to.equal(404);
    expect(res.body).to.include({ code: 404, message: 'Agent PJSIP/203 not found' });
  });

  it('when the input is bad, then a §2 error and nothing is changed; while the PBX is away, then 503', async () => {
    const before = peer.received.length;
    for (const body of [
      { peerName: 'PJSIP/203', paused: 2 },
      { peerName: 'PJSIP/203\r\nAction: Originate', paused: 1 },
      { peerName: 'PJSIP/203', paused: 1, pauseReason: 'DND' },
      { peerName: '', paused: 1 },
    ]) {
      const res = await post('agent-pause', body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body).to.include({ code: 400, name: 'BadRequest' });
    }
    expect(peer.received.length).to.equal(before);
    peer.goDown();
    await until(() => app.deps.live.pbxs[0]?.status.state !== 'connected');
    const res = await post('agent-pause', { peerName: 'PJSIP/203', paused: 1, pauseReason: 'Lunch' });
    expect(res.status).to.equal(503);
    expect(res.body).to.include({ code: 503, message: 'The PBX is not connected; try again shortly' });
    peer.comeBack();
  });

  it('when Asterisk answers Success but does not show the change, then the answer says the state Asterisk shows, not what was asked', async () => {
    // The PBX says Success to the pause of Carol in Sales and to her DND there, and changes nothing.
    peer.ignore = (a) => a.Action === 'QueuePause' && a.Queue === 'sales';
    const pause = await post('agent-pause', { peerName: 'PJSIP/203', paused: 1, pauseReason: 'Lunch' });
    expect(pause.status, pause.text).to.equal(201);
    // Support did pause her: the answer says so (paused 1, Lunch); asked of Sales only, it would say 0.
    expect(pause.body).to.deep.equal({
      message: 'paused in Sales; paused in Support',
      paused: 1,
      peerName: 'PJSIP/203',
      pauseReason: 'Lunch',
    });
    const dnd = await post('agent-dnd', { peerName: 'PJSIP/203', queueId: 1, dnd: 1 });
    expect(dnd.body).to.deep.equal({ message: 'DND on in Sales', peerName: 'PJSIP/203', queueId: 1, dnd: 0 });
    peer.ignore = (a) => a.Action === 'QueuePause';
    const unpause = await post('agent-pause', { peerName: 'PJSIP/203', paused: 0 });
    expect(unpause.body).to.deep.equal({
      message: 'unpaused in Sales; unpaused in Support',
      paused: 1,
      peerName: 'PJSIP/203',
      pauseReason: 'Lunch',
    });
    peer.ignore = () => false;
    await settle();
    expect(await status('PJSIP/203')).to.include({ paused: 1, pausedReason: 'Lunch' });
  });
});

import { expect } from 'chai';
import { AlertWatcher } from '../../src/modules/live-queues/alerts';
import type { AmiPeer } from '../helpers/ami-peer';
import type { TestApp, TestClock } from '../helpers/app';
import { buildTenant, buildUser, ROLE, tokenFor } from '../helpers/factories';
import { startLiveSite, type LiveSite } from '../helpers/live-site';
import { buildWebhook } from '../helpers/records';
import { startSmtp, type TestSmtp } from '../helpers/smtp';
import { until } from '../helpers/until';

const join1 = (id: string, position: number) =>
  `Event: QueueCallerJoin\r\nQueue: sales\r\nUniqueid: ${id}\r\nChannel: PJSIP/trunk-${id}\r\nCallerIDNum: +15550100\r\nCallerIDName: Alert test\r\nPosition: ${position}\r\nCount: ${position}\r\n\r\n`;
const leave = (id: string) =>
  `Event: QueueCallerLeave\r\nQueue: sales\r\nUniqueid: ${id}\r\nChannel: PJSIP/trunk-${id}\r\nPosition: 1\r\nCount: 0\r\n\r\n`;

describe('queue alerts: thresholds per queue, QUEUEALERT and QUEUEALERTCLEARED webhook events, e-mail, cool-down', function () {
  this.timeout(60_000);
  let site: LiveSite;
  let clock: TestClock;
  let peer: AmiPeer;
  let smtp: TestSmtp;
  let app: TestApp;
  let admin: string;
  let watcher: AlertWatcher;
  const settle = () => site.settle();
  /** The QUEUEALERT* events in the outbox, oldest first. */
  const events = async () =>
    (
      await app.deps.database.db
        .selectFrom('webhook_deliveries')
        .select(['event_type', 'payload'])
        .where('event_type', 'like', 'QUEUEALERT%')
        .orderBy('id')
        .execute()
    ).map((r) => ({
      type: r.event_type,
      ...(JSON.parse(r.payload).data as { queueId: number; alert: string; state: string; value: number | null }),
    }));

  /** The thresholds the tests judge: more than no caller waiting on Sales, mailed, a cool-down of 120 s. */
  const setSalesAlerts = async () => {
    const res = await app.request('PUT', '/v2/queues/1/alerts', {
      token: admin,
      body: { maxCallersWaiting: 0, email: 'supervisor@asterisk-lab.test', cooldownSeconds: 120 },
    });
    expect(res.status, res.text).to.equal(200);
    return res;
  };

  // Each test starts its own site, mail server and watcher: it passes alone (mocha --grep).
  beforeEach(async () => {
    smtp = await startSmtp();
    site = await startLiveSite({ env: { TARS_SMTP_URL: smtp.url } });
    ({ app, peer, clock } = site);
    admin = await tokenFor(app, { id: 1 });
    for (const type of ['QUEUEALERT', 'QUEUEALERTCLEARED']) await buildWebhook(app.deps.database.db, 1, { type });
    watcher = new AlertWatcher(app.deps);
  });
  afterEach(async () => {
    watcher.stop();
    await site.close();
    await smtp.close();
  });

  it('when a queue has no thresholds, then all are off; when they are set, then they read back as set', async () => {
    const none = await app.request('GET', '/v2/queues/1/alerts', { token: admin });
    expect(none.body).to.deep.equal({
      queueId: 1,
      maxCallersWaiting: null,
      maxLongestWaitSeconds: null,
      minServiceLevelPercent: null,
      noAgentAvailable: false,
      email: '',
      cooldownSeconds: 300,
    });
    const set = await setSalesAlerts();
    expect(set.body).to.include({
      maxCallersWaiting: 0,
      noAgentAvailable: false,
      email: 'supervisor@asterisk-lab.test',
      cooldownSeconds: 120,
    });
    expect((await app.request('GET', '/v2/queues/1/alerts', { token: admin })).body).to.deep.equal(set.body);
  });

  it("when thresholds are bad (400), the queue another tenant's (404) or the user may not change queues (403), then nothing changes", async () => {
    await setSalesAlerts();
    for (const body of [{ maxCallersWaiting: -1 }, { email: 'not an address' }, { minServiceLevelPercent: 101 }, { cooldown: 5 }]) {
      const res = await app.request('PUT', '/v2/queues/1/alerts', { token: admin, body });
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body).to.include({ code: 400, name: 'BadRequest' });
    }
    const other = await buildTenant(app.deps.database.db);
    const stranger = await tokenFor(app, await buildUser(app.deps.database.db, other.id, ROLE.account));
    expect((await app.request('PUT', '/v2/queues/1/alerts', { token: stranger, body: {} })).status).to.equal(404);
    const manager = await tokenFor(app, await buildUser(app.deps.database.db, 1, ROLE.queues));
    expect((await app.request('PUT', '/v2/queues/1/alerts', { token: manager, body: {} })).status).to.equal(403);
    expect((await app.request('GET', '/v2/queues/1/alerts', { token: manager })).body).to.include({
      maxCallersWaiting: 0,
      cooldownSeconds: 120,
    });
  });

  it('when a threshold is crossed, then the alert is raised once, cleared when it no longer is, and not raised again within the cool-down', async () => {
    await setSalesAlerts();
    peer.write(join1('alert.1', 1));
    await settle();
    await watcher.evaluate();
    await watcher.evaluate(); // judged twice: still one event
    expect(await events()).to.deep.equal([
      { type: 'QUEUEALERT', queueId: 1, queueName: 'Sales', alert: 'callersWaiting', state: 'raised', value: 1, threshold: 0 },
    ]);
    const mail = await smtp.next();
    expect(mail.to).to.deep.equal(['supervisor@asterisk-lab.test']);
    expect(mail.parsed.subject).to.equal('Queue alert: Sales: 1 callers waiting (more than 0)');

    peer.write(leave('alert.1'));
    await settle();
    await watcher.evaluate();
    expect((await events()).map((e) => [e.type, e.state])).to.deep.equal([
      ['QUEUEALERT', 'raised'],
      ['QUEUEALERTCLEARED', 'cleared'],
    ]);
    expect((await smtp.next()).parsed.subject).to.equal('Queue alert cleared: Sales: callersWaiting: back within its threshold');

    // Crossed again within the cool-down (120 s): nothing; after it: raised again.
    peer.write(join1('alert.2', 1));
    await settle();
    clock.advance(60_000);
    await watcher.evaluate();
    expect(await events()).to.have.length(2);
    clock.advance(61_000);
    await watcher.evaluate();
    expect((await events()).map((e) => [e.type, e.alert])).to.deep.equal([
      ['QUEUEALERT', 'callersWaiting'],
      ['QUEUEALERTCLEARED', 'callersWaiting'],
      ['QUEUEALERT', 'callersWaiting'],
    ]);
  });

  it('when the PBX is away, then no alert is raised or cleared on its stale data', async () => {
    await setSalesAlerts();
    peer.write(join1('away.1', 1));
    await settle();
    await watcher.evaluate();
    expect((await events()).map((e) => [e.type, e.queueId, e.state])).to.deep.equal([['QUEUEALERT', 1, 'raised']]);
    // Away, Sales shows no caller (a clear if it were judged) and Support no agent available (a raise if it were judged).
    expect((await app.request('PUT', '/v2/queues/2/alerts', { token: admin, body: { noAgentAvailable: true } })).status).to.equal(200);
    peer.goDown();
    await until(() => app.deps.live.pbxs[0]?.status.state !== 'connected');
    await watcher.evaluate();
    expect((await events()).map((e) => [e.type, e.queueId, e.state])).to.deep.equal([['QUEUEALERT', 1, 'raised']]);
    peer.comeBack();
    await until(() => app.deps.live.pbxs[0]?.status.state === 'connected' && app.deps.live.pbxs[0].snapshotAt);
  });

  it('when the webhook types are listed, then the alert events are among them', async () => {
    const res = await app.request('GET', '/v2/webhooks/list-types', { token: admin });
    expect((res.body as { type: string }[]).map((t) => t.type)).to.include.members(['QUEUEALERT', 'QUEUEALERTCLEARED']);
  });
});

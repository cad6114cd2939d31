import { expect } from 'chai';
import { silentLogger } from '../../src/log';
import { LiveCallEvents } from '../../src/modules/live-queues/live-call-events';
import type { AmiPeer } from '../helpers/ami-peer';
import { amiTranscript } from '../helpers/ami-transcript';
import type { TestApp } from '../helpers/app';
import { tokenFor } from '../helpers/factories';
import { startLiveSite, type LiveSite } from '../helpers/live-site';
import { buildWebhook } from '../helpers/records';

const callerJoin = (queue: string, uniqueid: string) =>
  `Event: QueueCallerJoin\r\nTimestamp: 1795460793.317770\r\nChannel: PJSIP/trunk-${uniqueid}\r\nCallerIDNum: +17735553410\r\n` +
  `CallerIDName: John Young\r\nUniqueid: ${uniqueid}\r\nQueue: ${queue}\r\nPosition: 1\r\nCount: 1\r\n\r\n`;

describe('call webhook events from AMI as they happen (STARTCALL), once per call and queue with the queue_log', function () {
  this.timeout(60_000);
  const transcript = amiTranscript();
  let site: LiveSite;
  let peer: AmiPeer;
  let app: TestApp;
  let calls: LiveCallEvents;
  const settle = () => site.settle();
  const startcalls = async () =>
    (
      await app.deps.database.db
        .selectFrom('webhook_deliveries')
        .select(['payload'])
        .where('event_type', '=', 'STARTCALL')
        .orderBy('id')
        .execute()
    ).map((r) => JSON.parse(r.payload) as { id: string; occurredAt: string; data: { callId: string; queueId: number; source: string } });

  before(async () => {
    site = await startLiveSite();
    ({ app, peer } = site);
    await buildWebhook(app.deps.database.db, 1, { type: 'STARTCALL' });
    calls = new LiveCallEvents(app.deps.live, app.deps.database.sqlite, silentLogger, () => site.clock.now());
    calls.start();
  });
  after(async () => {
    calls.stop();
    await site.close();
  });

  it('sends STARTCALL when a caller joins a queue, with the time Asterisk gave; nothing for a queue of no tenant', async () => {
    peer.write(callerJoin('sales', '9000000001.26') + callerJoin('nobodys-queue', '9000000001.99'));
    await settle();
    expect(await startcalls()).to.deep.equal([
      {
        id: (await startcalls())[0]?.id,
        type: 'STARTCALL',
        tenantId: 1,
        occurredAt: '2026-11-23T19:06:33.318Z',
        data: { callId: '9000000001.26', queueId: 1, queueName: 'Sales', callerIdNum: '+17735553410', source: 'ami' },
      },
    ]);
  });

  it('its queue_log line sends nothing more; a line AMI did not announce still sends its STARTCALL', async () => {
    const token = await tokenFor(app, { id: 1 });
    const res = await app.request('POST', '/v2/reporting/ingest/queue-log', {
      token,
      body: {
        lines: [
          '1795460793|9000000001.26|sales|NONE|ENTERQUEUE||+17735553410|1',
          '1795460800|9000000002.31|support|NONE|ENTERQUEUE||+13125550000|1',
        ],
      },
    });
    expect(res.status, res.text).to.equal(201);
    expect((await startcalls()).map((e) => [e.data.callId, e.data.queueId, e.data.source])).to.deep.equal([
      ['9000000001.26', 1, 'ami'],
      ['9000000002.31', 2, 'queue_log'],
    ]);
    // The same call moved to another queue is a new STARTCALL there (as its second ENTERQUEUE line is).
    peer.write(callerJoin('billing', '9000000001.26'));
    await settle();
    expect((await startcalls()).map((e) => [e.data.callId, e.data.queueId])).to.deep.equal([
      ['9000000001.26', 1],
      ['9000000002.31', 2],
      ['9000000001.26', 3],
    ]);
  });

  it("replaying the recorded run sends one STARTCALL per QueueCallerJoin of the site's queues", async () => {
    const before = (await startcalls()).length;
    peer.playTo(transcript.checkpoints.length - 1);
    await settle();
    const first = transcript.checkpoints[0]?.after ?? 0;
    const last = transcript.checkpoints.at(-1)?.after ?? 0;
    const joins = transcript.events.slice(first, last).filter((e) => e.message.Event === 'QueueCallerJoin');
    expect(joins.length).to.be.greaterThan(300);
    expect((await startcalls()).length - before).to.equal(joins.length);
  });
});

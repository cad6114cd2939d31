import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { toCallRecord } from '../../src/modules/calls/calls.service';
import { silentLogger } from '../../src/log';
import { LiveCallEvents } from '../../src/modules/live-queues/live-call-events';
import { UTC_ZONE } from '../../src/modules/pbx-logs/pbx-zone';
import { claimCallEvent, forgetCallEvents } from '../../src/modules/webhooks/outbox.repository';
import type { AmiPeer } from '../helpers/ami-peer';
import { amiTranscript } from '../helpers/ami-transcript';
import type { TestApp } from '../helpers/app';
import { tokenFor } from '../helpers/factories';
import { startLiveSite, type LiveSite } from '../helpers/live-site';
import { FIXTURES } from '../helpers/fixtures';
import { buildWebhook } from '../helpers/records';
import { rawSqlite } from '../helpers/engine';

const callerJoin = (queue: string, uniqueid: string) =>
  `Event: QueueCallerJoin\r\nTimestamp: 1795460793.317770\r\nChannel: PJSIP/trunk-${uniqueid}\r\nCallerIDNum: +17735553410\r\n` +
  `CallerIDName: John Young\r\nUniqueid: ${uniqueid}\r\nQueue: ${queue}\r\nPosition: 1\r\nCount: 1\r\n\r\n`;

describe('call webhook events from AMI as they happen (STARTCALL, ENDCALL), each sent once with the logs', function () {
  this.timeout(60_000);
  const transcript = amiTranscript();
  let site: LiveSite;
  let peer: AmiPeer;
  let app: TestApp;
  let calls: LiveCallEvents;
  const settle = () => site.settle();
  const outbox = async (type: string) =>
    (
      await app.deps.database.db.selectFrom('webhook_deliveries').select(['payload']).where('event_type', '=', type).orderBy('id').execute()
    ).map((r) => JSON.parse(r.payload) as { occurredAt: string; data: Record<string, unknown> });
  const startcalls = async () =>
    (
      await app.deps.database.db
        .selectFrom('webhook_deliveries')
        .select(['payload'])
        .where('event_type', '=', 'STARTCALL')
        .orderBy('id')
        .execute()
    ).map((r) => JSON.parse(r.payload) as { id: string; occurredAt: string; data: { callId: string; queueId: number; source: string } });

  // Each test starts its own site (app, replayed PBX, webhooks, subscriber): it passes alone (mocha --grep).
  beforeEach(async () => {
    site = await startLiveSite();
    ({ app, peer } = site);
    for (const type of ['STARTCALL', 'ENDCALL', 'NEWVOICEMAIL']) await buildWebhook(app.deps.database.db, 1, { type });
    calls = new LiveCallEvents(app.deps.live, rawSqlite(app.deps.database), UTC_ZONE, silentLogger, site.clock);
    calls.start();
  });
  afterEach(async () => {
    calls.stop();
    await site.close();
  });

  it('when a caller joins a queue, then STARTCALL is sent with the time Asterisk gave; for a queue of no tenant, nothing', async () => {
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

  it('when AMI announced a call, then its queue_log line sends nothing more; a line AMI did not announce still sends its STARTCALL', async () => {
    peer.write(callerJoin('sales', '9000000001.26'));
    await settle();
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

  it("when the recorded run is replayed, then one STARTCALL is sent per QueueCallerJoin of the site's queues", async () => {
    const before = (await startcalls()).length;
    peer.playTo(transcript.checkpoints.length - 1);
    await settle();
    const first = transcript.checkpoints[0]?.after ?? 0;
    const last = transcript.checkpoints.at(-1)?.after ?? 0;
    const joins = transcript.events.slice(first, last).filter((e) => e.message.Event === 'QueueCallerJoin');
    expect(joins.length).to.be.greaterThan(300);
    expect((await startcalls()).length - before).to.equal(joins.length);
  });

  it("when AMI sends a call's Cdr, then ENDCALL goes out with the call as the CDR importer places it, and its Master.csv row sends nothing", async () => {
    peer.playTo(transcript.checkpoints.length - 1);
    await settle();
    const fromAmi = await outbox('ENDCALL');
    expect(fromAmi.length).to.be.greaterThan(500);
    const token = await tokenFor(app, { id: 1 });
    const lines = readFileSync(join(FIXTURES, 'asterisk', 'Master.csv'), 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const res = await app.request('POST', '/v2/reporting/ingest/cdr', { token, body: { lines } });
    expect(res.status, res.text).to.equal(201);
    // Every row the importer places in a tenant was announced by AMI; the rows it skips (no tenant's) were not.
    expect(res.body.imported).to.equal(fromAmi.length);
    expect(await outbox('ENDCALL'), 'no ENDCALL twice').to.have.length(fromAmi.length);
    // Every call AMI announced is a stored row, field for field: not the id (AMI's came before the row) nor the
    // uniqueid (which AMI has and cdr_csv by default does not write).
    const stored = (await app.deps.database.db.selectFrom('cdr_calls').selectAll().execute()).map((row) => {
      const { id: _id, uniqueId: _u, ...record } = toCallRecord(row);
      return JSON.stringify(record);
    });
    for (const e of fromAmi) {
      const { id, uniqueId, ...record } = e.data;
      expect(id).to.equal(null);
      expect(uniqueId).to.match(/^\d+\.\d+$/);
      expect(stored, JSON.stringify(record)).to.include(JSON.stringify(record));
    }
  });

  it('when a call event was sent, then it is remembered two days (the hourly job forgets it after), so the other source stays silent till then', () => {
    const sqlite = rawSqlite(app.deps.database);
    const claim = { type: 'STARTCALL', callId: 'forget.1', queueId: 1 };
    const twoDays = 2 * 24 * 3600 * 1000; // written out: the test checks the constant, it does not read it
    const t = Date.UTC(2026, 10, 23, 12);
    expect(claimCallEvent(sqlite, claim, t)).to.equal(true);
    expect(claimCallEvent(sqlite, claim, t + 1000)).to.equal(false);
    expect(forgetCallEvents(sqlite, t + twoDays)).to.equal(0);
    expect(claimCallEvent(sqlite, claim, t + twoDays)).to.equal(false);
    expect(forgetCallEvents(sqlite, t + twoDays + 1)).to.equal(1);
    expect(claimCallEvent(sqlite, claim, t + twoDays + 2)).to.equal(true);
  });
});

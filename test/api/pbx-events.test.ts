import { expect } from 'chai';
import { Dispatcher } from '../../src/modules/webhooks/dispatcher';
import { readFixtureFile, seedFixture } from '../../src/seed/seed';
import { startTestApp, type TestApp } from '../helpers/app';
import { startReceiver, type HttpReceiver } from '../helpers/http-receiver';
import { tokenFor } from '../helpers/factories';
import { FIXTURES } from '../helpers/pbx-logs';

/* Webhook events from PBX data that arrives live over HTTP (POST /v2/reporting/ingest/…), tenant 1 of acme.json. */
const ENTER = '1793700000|1793700000.900|400|NONE|ENTERQUEUE||+13125559999|1';
const ABANDON = '1793700040|1793700000.900|400|NONE|ABANDON|1|1|40';
const DIAL =
  '"","+18155552363","102","from-did-direct","""WIRELESS CALLER"" <+18155552363>","PJSIP/voip-trunk-00000901","PJSIP/102-00000902","Dial","PJSIP/102,30,tr","2026-11-03 17:03:16","2026-11-03 17:03:22","2026-11-03 17:06:20",184,178,"ANSWERED","DOCUMENTATION","1793800000.901",""';
const VOICEMAIL =
  '"","+18155550000","101","from-did-direct","""CALLER"" <+18155550000>","PJSIP/voip-trunk-00000903","","VoiceMail","101@default,u","2026-11-03 18:00:00","2026-11-03 18:00:05","2026-11-03 18:01:05",65,60,"ANSWERED","DOCUMENTATION","1793800000.902",""';

describe('webhook events from live PBX data (HTTP ingest)', () => {
  let app: TestApp;
  let receiver: HttpReceiver;
  let admin: string;

  const events = () =>
    receiver.requests.map(
      (r) => JSON.parse(r.body) as { type: string; tenantId: number; occurredAt: string; data: Record<string, unknown> },
    );
  const ingest = (kind: 'queue-log' | 'cdr', lines: string[], token = admin) =>
    app.request('POST', `/v2/reporting/ingest/${kind}`, { token, body: { lines } });

  before(async () => {
    receiver = await startReceiver();
    app = await startTestApp({ env: { TARS_WEBHOOK_ALLOW: '127.0.0.1' } }); // the receiver is on loopback (issue 16)
    await seedFixture(app.deps.database, app.deps.validator, await readFixtureFile(`${FIXTURES}acme.json`), new Date());
    admin = await tokenFor(app, { id: 2 });
    for (const type of ['STARTCALL', 'ENDCALL', 'NEWVOICEMAIL', 'QUEUECALLABANDONED']) {
      const res = await app.request('POST', '/v2/webhooks', { token: admin, body: { tenantId: 1, type, url: `${receiver.url}/${type}` } });
      expect(res.status).to.equal(201);
    }
  });
  after(async () => {
    await app.close();
    await receiver.close();
  });

  it('when queue_log lines arrive, then ENTERQUEUE fires STARTCALL and ABANDON fires QUEUECALLABANDONED, delivered by the server', async () => {
    expect((await ingest('queue-log', [ENTER, ABANDON])).status).to.equal(201);
    await new Dispatcher(app.deps).drain();
    expect(events().map((e) => [e.type, e.tenantId, e.occurredAt, e.data])).to.deep.equal([
      [
        'STARTCALL',
        1,
        '2026-11-03T10:00:00.000Z',
        { callId: '1793700000.900', queueId: 1, queueName: 'Support', callerIdNum: '+13125559999', source: 'queue_log' },
      ],
      ['QUEUECALLABANDONED', 1, '2026-11-03T10:00:40.000Z', { callId: '1793700000.900', queueId: 1, queueName: 'Support', waitTime: 40 }],
    ]);
  });

  it('when the same lines arrive again, then nothing fires twice', async () => {
    receiver.requests.length = 0;
    const res = await ingest('queue-log', [ENTER, ABANDON]);
    expect(res.body.duplicates).to.equal(2);
    await new Dispatcher(app.deps).drain();
    expect(receiver.requests).to.deep.equal([]);
  });

  it('when CDR records arrive, then each fires ENDCALL with the call as the calls report shows it; a direct call STARTCALL first, voicemail NEWVOICEMAIL', async () => {
    receiver.requests.length = 0;
    expect((await ingest('cdr', [DIAL, VOICEMAIL])).status).to.equal(201);
    await new Dispatcher(app.deps).drain();
    const got = events();
    expect(got.map((e) => `${e.type} ${e.data.uniqueId}`).sort()).to.deep.equal([
      'ENDCALL 1793800000.901',
      'ENDCALL 1793800000.902',
      'NEWVOICEMAIL 1793800000.902',
      'STARTCALL 1793800000.901',
      'STARTCALL 1793800000.902',
    ]);
    const end = got.find((e) => e.type === 'ENDCALL' && e.data.uniqueId === '1793800000.901');
    const calls = await app.request('GET', '/v2/reporting/calls', {
      token: admin,
      query: { tenantId: 1, startDate: '2026-11-03', endDate: '2026-11-03' },
    });
    expect(end?.data).to.deep.equal(calls.body.records.find((r: { uniqueId: string }) => r.uniqueId === '1793800000.901'));
    expect(got.find((e) => e.type === 'NEWVOICEMAIL')?.data.mailbox).to.equal('101@default');
  });

  it("when another tenant's admin sends lines of tenant 1's queues, then they are skipped and fire nothing", async () => {
    receiver.requests.length = 0;
    const res = await ingest(
      'queue-log',
      ['1793700100|1793700100.901|400|NONE|ENTERQUEUE||+13125550000|1'],
      await tokenFor(app, { id: 6 }),
    );
    expect(res.body.imported).to.equal(0);
    await new Dispatcher(app.deps).drain();
    expect(receiver.requests).to.deep.equal([]);
  });
});

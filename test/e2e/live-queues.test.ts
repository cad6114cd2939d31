import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { AmiPeer } from '../helpers/ami-peer';
import { amiTranscript } from '../helpers/ami-transcript';
import { send } from '../helpers/app';
import { runTars, startServe, type RunningServer } from '../helpers/cli';
import { startReceiver, type HttpReceiver } from '../helpers/http-receiver';
import { ASTERISK_FIXTURE } from '../helpers/live-site';
import { SseClient } from '../helpers/sse';
import { until } from '../helpers/until';

/*
 * The live layer in the real program: `tars serve` with TARS_AMI_URL connects to an AMI peer replaying the
 * recorded Asterisk 22 run, serves the live view and its stream, delivers STARTCALL from AMI and a queue
 * alert to a real HTTP receiver, and on SIGTERM ends the streams and exits 0.
 */
describe('live queues in `tars serve` (e2e)', function () {
  this.timeout(120_000);
  let dir: string;
  let peer: AmiPeer;
  let receiver: HttpReceiver;
  let server: RunningServer | undefined;
  let token: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tars-live-'));
    peer = new AmiPeer(amiTranscript());
    await peer.listen();
    receiver = await startReceiver();
    expect((await runTars(['seed', ASTERISK_FIXTURE, '--data-dir', join(dir, 'data')])).code).to.equal(0);
    server = await startServe(['--data-dir', join(dir, 'data')], { env: { TARS_AMI_URL: peer.url, TARS_WEBHOOK_ALLOW: '127.0.0.1' } });
    const login = await send(server.url, 'POST', '/v2/authentication/', {
      body: { email: 'admin@asterisk-lab.test', password: 'ast22-lab-admin' },
    });
    token = login.body.accessToken;
  });
  after(async () => {
    await server?.stop();
    await peer.close();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when tars serve starts with TARS_AMI_URL, then it connects to the PBX and shows its queues now', async () => {
    const body = await until(async () => {
      const res = await send(server?.url ?? '', 'GET', '/v2/reporting/queues/live', { token, query: { tenantId: 1 } });
      return res.body.connected ? res.body : undefined;
    });
    const sales = (body.queues as { logName: string; live: boolean; members: { extNum: number | null }[] }[]).find(
      (q) => q.logName === 'sales',
    );
    expect(sales?.live).to.equal(true);
    expect(sales?.members.map((m) => m.extNum).sort()).to.deep.equal([201, 202, 203]);
    expect(server?.output()).to.not.include('tars-ami-secret');
  });

  it('when a caller joins, then STARTCALL and a queue alert are delivered to a real receiver', async () => {
    for (const type of ['STARTCALL', 'QUEUEALERT']) {
      const res = await send(server?.url ?? '', 'POST', '/v2/webhooks', {
        token,
        body: { tenantId: 1, type, url: `${receiver.url}/${type}` },
      });
      expect(res.status).to.equal(201);
    }
    const put = await send(server?.url ?? '', 'PUT', '/v2/queues/1/alerts', { token, body: { maxCallersWaiting: 0 } });
    expect(put.status).to.equal(200);
    peer.write(
      'Event: QueueCallerJoin\r\nChannel: PJSIP/trunk-1\r\nCallerIDNum: +15550100\r\nCallerIDName: E2E\r\nUniqueid: e2e.1\r\nQueue: sales\r\nPosition: 1\r\nCount: 1\r\n\r\n',
    );
    const bodies = (path: string) => receiver.requests.filter((r) => r.path === path).map((r) => JSON.parse(r.body));
    const [start] = await until(() => (bodies('/STARTCALL').length > 0 ? bodies('/STARTCALL') : undefined));
    expect(start).to.deep.include({ type: 'STARTCALL', tenantId: 1 });
    expect(start.data).to.include({ callId: 'e2e.1', queueId: 1, source: 'ami' });
    const [alert] = await until(() => (bodies('/QUEUEALERT').length > 0 ? bodies('/QUEUEALERT') : undefined));
    expect(alert.data).to.include({ queueId: 1, alert: 'callersWaiting', state: 'raised', value: 1, threshold: 0 });
  });

  it('when it gets SIGTERM, then it ends its streams and exits 0', async () => {
    const client = await SseClient.open(`${server?.url}/v2/reporting/queues/live/stream?tenantId=1`, token);
    expect((await client.nth(1)).event).to.equal('state');
    const code = await server?.stop();
    server = undefined;
    expect(code).to.equal(0);
    await until(() => client.ended, { what: 'the stream to end' });
  });
});

import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import { silentLogger } from '../../src/log';
import { AmiParser } from '../../src/ami/ami-protocol';
import { parseAmiUrl, parseAmiUrls, type AmiStatus } from '../../src/ami/ami-client';
import { LiveQueues, type LivePbx } from '../../src/modules/live-queues/live-queues';
import { AmiPeer, AMI_USER } from '../helpers/ami-peer';
import { amiTranscript, fromAnswer, fromState } from '../helpers/ami-transcript';
import { FIXTURES } from '../helpers/fixtures';
import { until } from '../helpers/until';

/** Asks the PBX for nothing in particular and waits for the answer: every event sent before it has been applied. */
const settled = async (pbx: LivePbx) => void (await pbx.client.action({ Action: 'Ping' }));

describe('the AMI link to a PBX (replaying a real Asterisk 22 run on loopback)', function () {
  this.timeout(30_000);
  const transcript = amiTranscript();
  let peer: AmiPeer;
  let live: LiveQueues | undefined;

  beforeEach(async () => {
    peer = new AmiPeer(transcript);
    await peer.listen();
  });
  afterEach(async () => {
    live?.stop();
    live = undefined;
    await peer.close();
  });

  function connect(url = peer.url, snapshotEveryMs?: number): LivePbx {
    live = new LiveQueues(parseAmiUrls(url), silentLogger, { minBackoffMs: 20, maxBackoffMs: 200, actionTimeoutMs: 2000, snapshotEveryMs });
    live.start();
    return live.pbxs[0] as LivePbx;
  }

  it("when the link is up, then it logs in, reads the queues whole and keeps them by the events, equal to Asterisk's answer at every recorded point", async () => {
    const pbx = connect();
    await until(() => pbx.snapshotAt, { what: 'the first snapshot' });
    expect(pbx.status.state).to.equal('connected');
    expect(pbx.status.banner).to.equal('Asterisk Call Manager/11.0.0');
    expect(peer.received.map((a) => a.Action).slice(0, 2)).to.deep.equal(['Login', 'QueueStatus']);
    expect(peer.received[0]).to.include({ Username: AMI_USER.username, Secret: AMI_USER.secret, Events: 'agent,cdr' });
    expect(fromState(pbx.queues)).to.deep.equal(fromAnswer(transcript.checkpoints[0]!));
    for (let i = 1; i < transcript.checkpoints.length; i++) {
      peer.playTo(i);
      await settled(pbx);
      expect(fromState(pbx.queues), `checkpoint ${i}`).to.deep.equal(fromAnswer(transcript.checkpoints[i]!));
    }
    // Only the first connect asked for a snapshot: the rest came from the events.
    expect(peer.received.filter((a) => a.Action === 'QueueStatus')).to.have.length(1);
  });

  it('when the PBX goes away mid-stream, then the link says so, reconnects and rebuilds the state from a fresh snapshot', async () => {
    const pbx = connect();
    await until(() => pbx.snapshotAt);
    peer.playTo(5);
    await settled(pbx);
    const firstSnapshot = pbx.snapshotAt;
    const states: AmiStatus[] = [];
    pbx.client.on('status', (s) => states.push(s));
    peer.goDown();
    await until(() => states.some((s) => s.state === 'down'), { what: 'the link to be down' });
    expect(states[0]).to.include({ state: 'down', reason: 'the PBX closed the connection' });
    // What happened while the link was down is never seen as events; the snapshot after the reconnect says it.
    peer.playTo(9);
    peer.comeBack();
    await until(() => pbx.snapshotAt !== firstSnapshot && pbx.status.state === 'connected', { what: 'a fresh snapshot' });
    expect(fromState(pbx.queues)).to.deep.equal(fromAnswer(transcript.checkpoints[9]!));
    peer.playTo(12);
    await settled(pbx);
    expect(fromState(pbx.queues)).to.deep.equal(fromAnswer(transcript.checkpoints[12]!));
    // Down, then tries that fail while the PBX is away, then up again.
    const seen = states.map((st) => st.state);
    expect(seen[0]).to.equal('down');
    expect(seen.slice(-2)).to.deep.equal(['connecting', 'connected']);
    expect(new Set(seen)).to.deep.equal(new Set(['down', 'connecting', 'connected']));
  });

  it('when minutes pass, then the queues are read whole again; when the link stops answering, then it is dropped and opened again', async () => {
    const pbx = connect(peer.url, 300);
    await until(() => pbx.snapshotAt);
    await until(() => peer.received.filter((a) => a.Action === 'QueueStatus').length >= 2, { what: 'a second snapshot' });
    const states: AmiStatus[] = [];
    pbx.client.on('status', (st) => states.push(st));
    peer.mute = true;
    await until(() => states.find((st) => st.state === 'down'), { what: 'the silent link to be dropped' });
    expect(states[0]?.reason).to.equal('QueueStatus failed: no answer to QueueStatus within 2000 ms');
    peer.mute = false;
    const dropped = pbx.snapshotAt;
    await until(() => pbx.status.state === 'connected' && pbx.snapshotAt !== dropped, { what: 'a fresh snapshot' });
  });

  it("when the URL is amis://, then it speaks AMI over TLS, checking the PBX's certificate", async () => {
    const cert = readFileSync(join(FIXTURES, 'tls', 'localhost-cert.pem'), 'utf8');
    const key = readFileSync(join(FIXTURES, 'tls', 'localhost-key.pem'), 'utf8');
    const secure = new AmiPeer(transcript);
    await secure.listen({ cert, key });
    const trusting = new LiveQueues(parseAmiUrls(secure.url), silentLogger, { minBackoffMs: 20, maxBackoffMs: 200, ca: cert });
    const untrusting = new LiveQueues(parseAmiUrls(secure.url), silentLogger, { minBackoffMs: 20, maxBackoffMs: 200 });
    try {
      trusting.start();
      untrusting.start();
      const ok = trusting.pbxs[0] as LivePbx;
      await until(() => ok.snapshotAt, { what: 'a snapshot over TLS' });
      expect(ok.label).to.match(/^amis:\/\/tars@127\.0\.0\.1:\d+$/);
      expect(fromState(ok.queues)).to.deep.equal(fromAnswer(transcript.checkpoints[0]!));
      const refused = untrusting.pbxs[0] as LivePbx;
      const seen: AmiStatus[] = [];
      refused.client.on('status', (st) => seen.push(st));
      await until(() => seen.find((st) => st.state === 'down'), { what: 'an untrusted certificate to be refused' });
      expect(seen.find((st) => st.state === 'down')?.reason).to.equal('self-signed certificate');
      expect(refused.snapshotAt).to.equal(undefined);
    } finally {
      trusting.stop();
      untrusting.stop();
      await secure.close();
    }
  });

  it('when the login is refused, then the link is in a state with Asterisk\'s reason, never "connected", and the secret is in no label', async () => {
    const pbx = connect(`ami://${AMI_USER.username}:wrong-secret@127.0.0.1:${new URL(peer.url.replace('ami:', 'http:')).port}`);
    await until(() => pbx.status.state === 'refused', { what: 'the login to be refused' });
    expect(pbx.status.reason).to.equal('login refused: Authentication failed');
    expect(pbx.label).to.not.include('wrong-secret');
    expect(pbx.snapshotAt).to.equal(undefined);
    // It asks again (after the longest backoff), but never for anything but a login.
    expect(new Set(peer.received.map((a) => a.Action))).to.deep.equal(new Set(['Login']));
  });

  it('when a message arrives in two writes, then it is applied once, whole; when the peer is not an AMI, then it is refused', async () => {
    const pbx = connect();
    await until(() => pbx.snapshotAt);
    const join =
      'Event: QueueCallerJoin\r\nPrivilege: agent,all\r\nChannel: PJSIP/trunk-000001\r\nCallerIDNum: +15550001\r\n' +
      'CallerIDName: Zoë Ünicode\r\nUniqueid: 99.1\r\nQueue: sales\r\nPosition: 1\r\nCount: 1\r\n\r\n';
    const before = pbx.queues.get('sales')?.callers.size ?? 0;
    peer.write(join.slice(0, 61));
    await new Promise((resolve) => setImmediate(resolve));
    peer.write(join.slice(61));
    await settled(pbx);
    expect(pbx.queues.get('sales')?.callers.get('99.1')).to.include({ callerIdName: 'Zoë Ünicode', position: 1 });
    expect(pbx.queues.get('sales')?.callers.size).to.equal(before + 1);

    const http = createServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      live?.stop();
      const other = connect(`ami://u:p@127.0.0.1:${(http.address() as AddressInfo).port}`);
      const seen: AmiStatus[] = [];
      other.client.on('status', (st) => seen.push(st));
      await until(() => seen.find((st) => st.state === 'down'), { what: 'the link to be refused' });
      expect(seen.find((st) => st.state === 'down')?.reason).to.equal(
        'not an Asterisk manager interface (banner "HTTP/1.1 400 Bad Request")',
      );
    } finally {
      http.close();
    }
  });

  it('when a byte stream is cut at any place, a UTF-8 character cut in two included, then it is read the same', () => {
    const text = 'Asterisk Call Manager/11.0.0\r\nEvent: A\r\nName: Zoë\r\n\r\nResponse: Success\r\nActionID: x\r\n\r\n';
    const bytes = Buffer.from(text, 'utf8');
    for (let cut = 1; cut < bytes.length; cut++) {
      const parser = new AmiParser();
      const got = [...parser.push(bytes.subarray(0, cut)), ...parser.push(bytes.subarray(cut))];
      expect(got, `cut at ${cut}`).to.deep.equal([
        { Event: 'A', Name: 'Zoë' },
        { Response: 'Success', ActionID: 'x' },
      ]);
      expect(parser.bannerLine).to.equal('Asterisk Call Manager/11.0.0');
    }
  });

  it('when AMI URLs are read, then a bad one is refused saying what is wrong, without echoing its secret', () => {
    expect(parseAmiUrl('ami://tars:s%40cret@pbx.example')).to.deep.equal({
      host: 'pbx.example',
      port: 5038,
      tls: false,
      username: 'tars',
      secret: 's@cret',
      label: 'ami://tars@pbx.example',
    });
    expect(parseAmiUrl('amis://u:p@[::1]:6000')).to.include({ host: '::1', port: 6000, tls: true });
    expect(parseAmiUrls('ami://a:b@one, ami://c:d@two').map((t) => t.host)).to.deep.equal(['one', 'two']);
    expect(() => parseAmiUrls('http://a:b@one,ami://nosecret@two')).to.throw(
      'URL 1: an AMI URL starts with ami:// or amis://, not http://; URL 2: an AMI URL carries the manager user and secret: ami://user:secret@host',
    );
    expect(() => parseAmiUrls('ami://u:topsecret@'))
      .to.throw()
      .with.property('message')
      .that.does.not.include('topsecret');
  });
});

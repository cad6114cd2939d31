import { connect } from 'node:net';
import { expect } from 'chai';
import type { AmiPeer } from '../helpers/ami-peer';
import { amiTranscript } from '../helpers/ami-transcript';
import type { TestApp } from '../helpers/app';
import { buildTenant, buildUser, ROLE, tokenFor } from '../helpers/factories';
import { startLiveSite, type LiveSite } from '../helpers/live-site';
import { SseClient, type SseEvent } from '../helpers/sse';
import { until } from '../helpers/until';

const PATH = '/v2/reporting/queues/live/stream?tenantId=1';

interface QueueView {
  queueId: number;
  members: { interface: string; state: string; paused: boolean; pauseReason: string }[];
  callers: { position: number; callerIdNum: string }[];
}

/** What a client knows after these events: the last whole state with every later queue change put in. */
function viewOf(events: readonly SseEvent[]): Map<number, QueueView> {
  const view = new Map<number, QueueView>();
  for (const e of events) {
    if (e.event === 'state') {
      view.clear();
      for (const q of e.data.queues as QueueView[]) view.set(q.queueId, q);
    } else if (e.event === 'queue') view.set((e.data as QueueView).queueId, e.data as QueueView);
  }
  return view;
}

/** The parts of a queue that change with AMI events (not the wait seconds, which grow with the clock). */
const live = (q: QueueView | undefined) => ({
  members: q?.members.map((m) => `${m.interface} ${m.state} ${m.paused} ${m.pauseReason}`).sort(),
  callers: q?.callers.map((c) => `${c.position} ${c.callerIdNum}`),
});

describe('GET /v2/reporting/queues/live/stream (Server-Sent Events from a replayed Asterisk 22 run)', function () {
  this.timeout(120_000);
  const transcript = amiTranscript();
  let site: LiveSite;
  let peer: AmiPeer;
  let app: TestApp;
  let token: string;
  const clients: SseClient[] = [];
  const open = async (headers: Record<string, string> = {}, as = token) => {
    const c = await SseClient.open(app.url + PATH, as, headers);
    clients.push(c);
    return c;
  };
  const settle = () => site.settle();
  /** A client that reads the answer's first bytes (so it is surely connected) and then never reads again. */
  const stuckClient = async () => {
    const state = { socket: connect(Number(new URL(app.url).port), '127.0.0.1'), closed: false };
    state.socket.on('close', () => (state.closed = true));
    state.socket.on('error', () => (state.closed = true));
    state.socket.write(`GET ${PATH} HTTP/1.1\r\nHost: tars\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    await new Promise<void>((resolve) =>
      state.socket.once('data', () => {
        state.socket.pause();
        resolve();
      }),
    );
    return state;
  };
  const json = async () => (await app.request('GET', '/v2/reporting/queues/live', { token, query: { tenantId: 1 } })).body;

  before(async () => {
    // 200 streams of one user: past the cap of a real server (MAX_STREAMS_PER_USER), which test/api/security-resources.test.ts checks.
    site = await startLiveSite({ liveStreams: { heartbeatMs: 100, refreshMs: 200, maxBufferedBytes: 1 << 20, maxStreamsPerUser: 250 } });
    ({ app, peer } = site);
    token = await tokenFor(app, { id: 1 });
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
  });
  after(() => site.close());

  it('when a client connects, then it gets the whole state first and then each change as it happens, and holds what the JSON route answers', async () => {
    const client = await open();
    expect(client.status).to.equal(200);
    const first = await client.nth(1);
    expect(first.event).to.equal('state');
    expect(first.id).to.match(/^[0-9a-z]+\.\d+$/);
    expect(app.deps.validator.problems('live-queues', first.data)).to.deep.equal([]);
    expect(first.data.queues.map((q: { logName: string }) => q.logName)).to.deep.equal(['sales', 'support', 'billing']);
    peer.playTo(2);
    await settle();
    const now = await json();
    await until(
      () =>
        client.events.length > 1 && JSON.stringify([...viewOf(client.events).values()].map(live)) === JSON.stringify(now.queues.map(live)),
      {
        what: 'the stream to agree with the JSON route',
      },
    );
    const changes = client.events.filter((e) => e.event === 'queue');
    expect(changes.length, 'queue events (a burst read at once is one per queue)').to.be.greaterThan(0);
    for (const e of changes.slice(0, 20))
      expect(app.deps.validator.problems('live-queues', { ...now, queues: [e.data] })).to.deep.equal([]);
    await until(() => client.comments > 0, { what: 'a heartbeat' });
  });

  it('when a client comes back with Last-Event-ID, then it gets exactly the events it missed, or the whole state for an id the server no longer has', async () => {
    const steady = await open();
    const leaving = await open();
    await leaving.nth(1);
    peer.playTo(3);
    await settle();
    await until(() => leaving.events.length > 3);
    const lastSeen = leaving.events.at(-1) as SseEvent;
    leaving.close();
    peer.playTo(4);
    await settle();
    await until(() => steady.events.at(-1)?.id !== lastSeen.id && steady.events.length > leaving.events.length);
    const back = await open({ 'last-event-id': lastSeen.id });
    const after = steady.events.slice(steady.events.findIndex((e) => e.id === lastSeen.id) + 1);
    expect(after.length).to.be.greaterThan(0);
    await until(() => back.events.length >= after.length);
    expect(back.events.map((e) => e.id)).to.deep.equal(after.map((e) => e.id));
    expect(back.events.every((e) => e.event === 'queue')).to.equal(true);

    const stranger = await open({ 'last-event-id': 'zzzz.5' });
    expect((await stranger.nth(1)).event).to.equal('state');
  });

  it('when one client never reads, then 200 others still get every change while it stays behind', async () => {
    const many = await Promise.all(Array.from({ length: 200 }, () => open()));
    await until(() => many.every((c) => c.events.length >= 1), { what: '200 first states' });
    const stuck = await stuckClient();
    for (let i = 5; i < transcript.checkpoints.length; i++) {
      peer.playTo(i);
      await settle();
    }
    const last = (many[0] as SseClient).events.at(-1)?.id;
    await until(() => many.every((c) => c.events.at(-1)?.id === last), { what: 'every client to have the last event', ms: 30_000 });
    expect(new Set(many.map((c) => c.events.length)).size, 'every client got the same events').to.equal(1);
    expect((many[0] as SseClient).events.length).to.be.greaterThan(20);
    // Slowed none of them: when every reader had the last event, the client that never reads was still connected and
    // still behind (bytes sent to it that it has not read), so the readers were not served at its pace.
    expect(stuck.closed, 'the stuck client is still connected').to.equal(false);
    expect(stuck.socket.readableLength, 'bytes the stuck client has not read').to.be.greaterThan(0);
    stuck.socket.destroy();
  });

  it('when a queue changes in a burst, then one event is sent; when a client falls maxBufferedBytes behind, then it is dropped and the reader goes on', async () => {
    const reader = await open();
    await reader.nth(1);
    const stuck = await stuckClient();
    const flip = (i: number) =>
      `Event: QueueMemberPause\r\nQueue: sales\r\nMemberName: Alice Smith\r\nInterface: Local/201@agents/n\r\n` +
      `StateInterface: Local/201@agents/n\r\nMembership: static\r\nStatus: 1\r\nPaused: ${i % 2}\r\nPausedReason: flip ${i}\r\n\r\n`;
    // One write of 2,000 changes: one event (a burst is coalesced per turn of the event loop).
    const before = reader.events.length;
    peer.write(Array.from({ length: 2000 }, (_, i) => flip(i)).join(''));
    await settle();
    await until(() => reader.events.at(-1)?.data.members?.some((m: { pauseReason: string }) => m.pauseReason === 'flip 1999'));
    expect(reader.events.length - before).to.be.below(20);
    // Large events, one per turn: 500 callers waiting make each about 100 kB; far more than the socket buffers hold.
    let joins = '';
    for (let i = 0; i < 500; i++)
      joins += `Event: QueueCallerJoin\r\nQueue: sales\r\nUniqueid: flood.${i}\r\nChannel: PJSIP/flood-${i}\r\nCallerIDNum: +1555${String(i).padStart(7, '0')}\r\nCallerIDName: Flood caller ${i}\r\nPosition: ${i + 1}\r\nCount: ${i + 1}\r\n\r\n`;
    peer.write(joins);
    await settle();
    for (let i = 0; i < 600; i++) {
      peer.write(flip(i));
      await settle();
    }
    await until(() => reader.events.at(-1)?.data.members?.some((m: { pauseReason: string }) => m.pauseReason === 'flip 599'));
    expect(reader.events.at(-1)?.data.callers).to.have.length(500);
    expect(reader.bytes).to.be.greaterThan(40_000_000);
    // A paused socket notices nothing: read what the server had sent before it gave up, then the end.
    let stuckBytes = 0;
    stuck.socket.on('data', (chunk: Buffer) => (stuckBytes += chunk.length));
    stuck.socket.resume();
    await until(() => stuck.closed, { what: 'the stuck client to have been dropped' });
    expect(stuckBytes).to.be.below(reader.bytes / 2);
    expect(reader.ended).to.equal(false);
    stuck.socket.destroy();
  });

  it('when asked with HEAD, then the headers of the stream are answered and it ends', async () => {
    const res = await fetch(app.url + PATH, { method: 'HEAD', headers: { authorization: `Bearer ${token}` } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/event-stream; charset=utf-8');
    expect(await res.text()).to.equal('');
  });

  it("when a stream's caller loses access, then the stream ends; another tenant's user never gets one (403)", async () => {
    const db = app.deps.database.db;
    const user = await buildUser(db, 1, ROLE.reports);
    const client = await open({}, await tokenFor(app, user));
    await client.nth(1);
    await db.updateTable('users').set({ user_role: ROLE.basic }).where('id', '=', user.id).execute();
    await until(() => client.ended, { what: 'the stream to end' });

    const other = await buildTenant(db);
    const stranger = await buildUser(db, other.id, ROLE.account);
    const res = await app.request('GET', PATH, { token: await tokenFor(app, stranger) });
    expect(res.status).to.equal(403);
    expect(res.body).to.include({ code: 403, name: 'Forbidden' });
  });
});

import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createApp } from '../../src/app';
import { bindAddress, closeBound, serveApp, SERVER_TIMEOUTS, type ServerTimeouts } from '../../src/cli/bind';
import { createLogger } from '../../src/log';
import { startTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';
import { expectError } from '../helpers/errors';
import { buildUser, ROLE, tokenFor } from '../helpers/factories';
import { startLiveSite, type LiveSite } from '../helpers/live-site';
import { SseClient } from '../helpers/sse';
import { until } from '../helpers/until';

const PATH = '/v2/reporting/queues/live/stream?tenantId=1';

/* Issue 27, point 7: one user cannot hold an unbounded number of event streams. */
describe('security: event streams per user (issue 27)', function () {
  this.timeout(60_000);
  let site: LiveSite;
  let app: TestApp;
  const clients: SseClient[] = [];
  const open = async (token: string) => {
    const c = await SseClient.open(app.url + PATH, token);
    clients.push(c);
    return c;
  };

  before(async () => {
    site = await startLiveSite({ liveStreams: { maxStreamsPerUser: 3 } });
    app = site.app;
  });
  after(async () => {
    for (const c of clients) c.close();
    await site.close();
  });

  it('when one user opens more streams than the cap at once, then exactly the cap is served and the rest get 429 in the error shape', async () => {
    const token = await tokenFor(app, await buildUser(app.deps.database.db, 1, ROLE.reports));
    const burst = await Promise.all(Array.from({ length: 8 }, () => open(token)));
    expect(burst.filter((c) => c.status === 200)).to.have.length(3);
    expect(burst.filter((c) => c.status === 429)).to.have.length(5);
    const refused = await app.request('GET', PATH, { token });
    expectError(refused, 429);
    expect(refused.body.message).to.match(/3 event streams/);
    expect(Number(refused.headers.get('retry-after'))).to.be.greaterThan(0);
    // Another user of the same tenant has streams of its own.
    const other = await open(await tokenFor(app, await buildUser(app.deps.database.db, 1, ROLE.reports)));
    expect(other.status).to.equal(200);
    // A stream that ends gives its place back.
    const served = burst.filter((c) => c.status === 200);
    served[0]?.close();
    await until(async () => (await open(token)).status === 200, { what: 'a place given back' });
  });

  it('when HEAD asks for the stream, then it holds no place', async () => {
    const token = await tokenFor(app, await buildUser(app.deps.database.db, 1, ROLE.reports));
    for (let i = 0; i < 5; i++) expect((await app.request('HEAD', PATH, { token })).status).to.equal(200);
    const streams = await Promise.all(Array.from({ length: 3 }, () => open(token)));
    expect(streams.map((c) => c.status)).to.deep.equal([200, 200, 200]);
  });
});

/*
 * Issue 27, point 7: slow clients are cut off. `tars serve` binds with SERVER_TIMEOUTS (src/cli/bind.ts); here the
 * same bindAddress gets small values, and each slow client must be answered 408 and disconnected by the server.
 */
describe('security: slow clients of tars serve are cut off (issue 27)', function () {
  this.timeout(60_000);
  const SMALL: ServerTimeouts = { headersMs: 300, requestMs: 800, keepAliveMs: 200, checkEveryMs: 50 };
  let app: TestApp;
  let server: Server;
  let port: number;
  const logged: Record<string, unknown>[] = [];

  /** A raw client that sends `parts` one every 100 ms (forever, for a generator), and what it saw when the server closed it. */
  const trickle = (parts: Iterable<string>) =>
    new Promise<{ answer: string; sent: number }>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      const it = parts[Symbol.iterator]();
      let answer = '';
      let sent = 0;
      const timer = setInterval(() => {
        const next = it.next();
        if (!next.done && !socket.destroyed) {
          socket.write(next.value);
          sent++;
        }
      }, 100);
      socket.on('data', (d) => (answer += d.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(timer);
        resolve({ answer, sent });
      });
    });
  function* forever(first: string, then: (i: number) => string) {
    yield first;
    for (let i = 0; ; i++) yield then(i);
  }

  before(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) logged.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    app = await startTestApp({ log: createLogger('info', sink) });
    server = await bindAddress('127.0.0.1', 0, SMALL);
    serveApp(server, createApp(app.deps));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    closeBound(server);
    await app.close();
  });

  it('when tars serve binds, then it uses the appliance timeouts, not Node defaults', async () => {
    const real = await bindAddress('127.0.0.1', 0);
    try {
      expect([real.headersTimeout, real.requestTimeout, real.keepAliveTimeout]).to.deep.equal([
        SERVER_TIMEOUTS.headersMs,
        SERVER_TIMEOUTS.requestMs,
        SERVER_TIMEOUTS.keepAliveMs,
      ]);
      expect(SERVER_TIMEOUTS.headersMs).to.be.at.most(10_000);
      expect(SERVER_TIMEOUTS.requestMs).to.be.at.most(30_000);
    } finally {
      closeBound(real);
    }
  });

  it('when a client sends its headers a line at a time without end, then the server answers 408 and closes it', async () => {
    const { answer } = await trickle(forever('GET /healthz HTTP/1.1\r\nHost: tars\r\n', (i) => `X-Slow-${i}: a\r\n`));
    expect(answer).to.match(/^HTTP\/1\.1 408 /);
  });

  it('when a client connects and sends nothing, then the server closes it', async () => {
    const { answer } = await trickle([]);
    expect(answer).to.match(/^HTTP\/1\.1 408 /);
  });

  it('when a body comes a byte at a time, then the server answers 408, closes it, and logs no server error', async () => {
    const head = 'POST /v2/authentication HTTP/1.1\r\nHost: tars\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{';
    const { answer } = await trickle(forever(head, () => ' '));
    expect(answer).to.match(/^HTTP\/1\.1 408 /);
    // The handler that was reading the body has ended by the time later requests on new connections are answered.
    for (let i = 0; i < 3; i++) expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).to.equal(200);
    expect(logged.filter((l) => Number(l.level) >= 50 || l.msg === 'request failed')).to.deep.equal([]);
  });

  it('when a kept-alive connection stays idle after its answer, then the server closes it; a normal request is served', async () => {
    const { answer } = await trickle(['GET /healthz HTTP/1.1\r\nHost: tars\r\n\r\n']);
    expect(answer).to.match(/^HTTP\/1\.1 200 /);
  });
});

#!/usr/bin/env -S npx tsx
// The live-stream benchmark (docs/performance.md, "Live queues"):
//   npm run bench:live         (builds, then: npx tsx scripts/bench-live.ts [--clients N] [--events E] [--interval MS])
// In one run:
// 1. an AMI peer on loopback in this process (test/helpers/ami-peer.ts: the recorded Asterisk 22 run at its
//    first QueueStatus) and the real CLI `node dist/tars.cjs serve` on a fresh data directory seeded with
//    test/fixtures/asterisk/fixture.json, TARS_AMI_URL pointing at the peer, in a child process;
// 2. N clients (default 200) of GET /v2/reporting/queues/live/stream?tenantId=1 (plain HTTP requests from
//    this process, as the account admin); then E events (default 300, after 50 of warm-up), one every MS
//    milliseconds (default 20): a QueueMemberPause of Alice Smith in sales whose PausedReason is `bench-<i>`,
//    written to TARS's AMI connection. For each client and event: from the write to the client reading the
//    event that carries `bench-<i>` (the sales queue whole, ~2-3 kB). Latency p50 / p99 / max over all;
// 3. the floor (scripts/bench-live-floor.mjs, a child process): the same N clients and E events through a
//    bare node:http + node:net relay that writes, per event, one event of the same size as TARS's to every
//    client; the same figures. The target: TARS's p99 at most 2x the floor's;
// 4. memory: TARS's resident memory (VmRSS) before the clients connect and with them connected, after the
//    events: the difference per client;
// 5. the rest of the API while the stream is busy: GET /v2/reporting/queues/live (autocannon, 10
//    connections, 5 s) alone, then while the events flow to the N clients: the rate with the stream busy
//    over the rate without.
// Any error fails the run (exit 1). The figures are printed and written to DIR/results.json.
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { AmiPeer } from '../test/helpers/ami-peer';
import { amiTranscript } from '../test/helpers/ami-transcript';
import { FIXTURES, login, newDataDir, rssMb, startScript, startTars } from './http-bench-kit';

const { values: opts } = parseArgs({
  options: {
    clients: { type: 'string', default: '200' },
    events: { type: 'string', default: '300' },
    interval: { type: 'string', default: '20' },
  },
});
const CLIENTS = Number(opts.clients);
const EVENTS = Number(opts.events);
const INTERVAL = Number(opts.interval);
const WARMUP = 50;
const ADMIN = { email: 'admin@asterisk-lab.test', password: 'ast22-lab-admin' };

/** A stream client that notes when each `bench-<i>` event arrives (performance.now(), this process's clock). */
class Client {
  readonly arrived = new Map<number, number>();
  frameBytes = 0;
  private pending = '';
  private constructor(private readonly req: ReturnType<typeof request>) {}

  static open(url: string, token?: string): Promise<Client> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (token) headers.authorization = `Bearer ${token}`;
      const req = request(url, { headers, agent: false }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`stream: ${res.statusCode}`));
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => client.read(chunk));
        resolve(client);
      });
      const client = new Client(req);
      req.on('error', reject);
      req.end();
    });
  }

  private read(chunk: string): void {
    const now = performance.now();
    this.pending += chunk;
    let end: number;
    while ((end = this.pending.indexOf('\n\n')) >= 0) {
      const frame = this.pending.slice(0, end);
      this.pending = this.pending.slice(end + 2);
      for (const m of frame.matchAll(/"pauseReason":"bench-(\d+)"/g)) {
        const i = Number(m[1]);
        if (!this.arrived.has(i)) this.arrived.set(i, now);
        this.frameBytes = frame.length + 2;
      }
    }
  }

  close(): void {
    this.req.destroy();
  }
}

const pauseEvent = (i: number) =>
  `Event: QueueMemberPause\r\nPrivilege: agent,all\r\nQueue: sales\r\nMemberName: Alice Smith\r\nInterface: Local/201@agents/n\r\n` +
  `StateInterface: Local/201@agents/n\r\nMembership: static\r\nPenalty: 0\r\nCallsTaken: 0\r\nLastCall: 0\r\nLastPause: 0\r\n` +
  `LoginTime: 1795460774\r\nInCall: 0\r\nStatus: 1\r\nPaused: 1\r\nPausedReason: bench-${i}\r\nRinginuse: 0\r\nWrapuptime: 0\r\n\r\n`;

/** Sends the events one every INTERVAL ms through `write`; returns when each was written. */
async function sendEvents(write: (text: string) => void, from: number, count: number): Promise<Map<number, number>> {
  const sent = new Map<number, number>();
  for (let i = from; i < from + count; i++) {
    sent.set(i, performance.now());
    write(pauseEvent(i));
    await sleep(INTERVAL);
  }
  return sent;
}

/** Latencies (ms) of the measured events at every client; fails when one never arrived. */
async function latencies(clients: readonly Client[], sent: Map<number, number>): Promise<number[]> {
  const deadline = Date.now() + 10_000;
  const last = Math.max(...sent.keys());
  while (clients.some((c) => !c.arrived.has(last)) && Date.now() < deadline) await sleep(20);
  const out: number[] = [];
  for (const c of clients)
    for (const [i, t0] of sent) {
      const t1 = c.arrived.get(i);
      if (t1 === undefined) throw new Error(`event ${i} never reached a client`);
      out.push(t1 - t0);
    }
  return out.sort((a, b) => a - b);
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
const figures = (sorted: number[]) => ({
  p50: +pct(sorted, 50).toFixed(2),
  p99: +pct(sorted, 99).toFixed(2),
  max: +(sorted.at(-1) as number).toFixed(2),
});

async function rate(url: string, token: string): Promise<number> {
  const r = await autocannon({ url, connections: 10, duration: 5, headers: { authorization: `Bearer ${token}` } });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return r.requests.average;
}

const dataDir = newDataDir('bench-live');
const peer = new AmiPeer(amiTranscript());
await peer.listen();
const tars = await startTars(dataDir, { TARS_AMI_URL: peer.url, TARS_LOG_LEVEL: 'warn' }, [], [], join(FIXTURES, 'asterisk/fixture.json'));
const cleanups: (() => Promise<void> | void)[] = [() => tars.stop(), () => peer.close()];
try {
  const token = await login(tars.url, ADMIN);
  while (peer.clients === 0) await sleep(20);
  await sleep(200); // its first QueueStatus answered
  const streamUrl = `${tars.url}/v2/reporting/queues/live/stream?tenantId=1`;
  const liveUrl = `${tars.url}/v2/reporting/queues/live?tenantId=1`;

  // 5 first (no clients yet): the API alone.
  const alone = await rate(liveUrl, token);
  const rssBefore = rssMb(tars.pid);
  const clients = await Promise.all(Array.from({ length: CLIENTS }, () => Client.open(streamUrl, token)));
  await sendEvents((t) => peer.write(t), 0, WARMUP);
  const tarsSent = await sendEvents((t) => peer.write(t), WARMUP, EVENTS);
  const tarsLat = await latencies(clients, tarsSent);
  const rssWith = rssMb(tars.pid);
  const frameBytes = clients[0]?.frameBytes ?? 0;
  // The API while the stream is busy: events keep flowing to every client during the measurement.
  let busy = true;
  const flowing = (async () => {
    for (let i = WARMUP + EVENTS; busy; i++) {
      peer.write(pauseEvent(i));
      await sleep(INTERVAL);
    }
  })();
  const underLoad = await rate(liveUrl, token);
  busy = false;
  await flowing;
  for (const c of clients) c.close();

  // The floor: the same clients and events through a bare relay, frames of TARS's size.
  const floor = await startScript('bench-live-floor.mjs', ['--frame-bytes', String(frameBytes)], join(dataDir, 'floor.log'));
  cleanups.push(() => floor.stop());
  const port = Number(/source port (\d+)/.exec(readFileSync(floor.logFile, 'utf8'))?.[1]);
  const source: Socket = connect(port, '127.0.0.1');
  source.setNoDelay(true);
  await new Promise((r) => source.once('connect', r));
  const floorClients = await Promise.all(Array.from({ length: CLIENTS }, () => Client.open(`${floor.url}/stream`)));
  await sendEvents((t) => source.write(t), 0, WARMUP);
  const floorSent = await sendEvents((t) => source.write(t), WARMUP, EVENTS);
  const floorLat = await latencies(floorClients, floorSent);
  for (const c of floorClients) c.close();
  source.destroy();

  const results = {
    clients: CLIENTS,
    events: EVENTS,
    intervalMs: INTERVAL,
    frameBytes,
    tars: figures(tarsLat),
    floor: figures(floorLat),
    p99Ratio: +(pct(tarsLat, 99) / pct(floorLat, 99)).toFixed(2),
    memory: { rssBeforeMb: rssBefore, rssWithClientsMb: rssWith, perClientKb: Math.round(((rssWith - rssBefore) * 1024) / CLIENTS) },
    api: { aloneRps: Math.round(alone), busyRps: Math.round(underLoad), ratio: +(underLoad / alone).toFixed(2) },
  };
  writeFileSync(join(dataDir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.log(`live stream: ${CLIENTS} clients, ${EVENTS} events every ${INTERVAL} ms, frames of ${frameBytes} bytes`);
  console.log(`  event to client, ms      p50      p99      max`);
  console.log(`  TARS             ${[results.tars.p50, results.tars.p99, results.tars.max].map((v) => String(v).padStart(8)).join(' ')}`);
  console.log(
    `  floor            ${[results.floor.p50, results.floor.p99, results.floor.max].map((v) => String(v).padStart(8)).join(' ')}`,
  );
  console.log(`  p99 TARS / floor: ${results.p99Ratio} (target: at most 2)`);
  console.log(`  memory: ${rssBefore} MB before the clients, ${rssWith} MB with them: ${results.memory.perClientKb} kB per client`);
  console.log(
    `  GET /v2/reporting/queues/live: ${results.api.aloneRps} req/s alone, ${results.api.busyRps} req/s while the stream is busy (${results.api.ratio})`,
  );
  console.log(`results: ${join(dataDir, 'results.json')}`);
} finally {
  for (const c of cleanups.reverse()) await c();
}

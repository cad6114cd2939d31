#!/usr/bin/env -S npx tsx
// The memory soak (docs/performance.md, "HTTP API"):
//   npm run soak                          (builds, then: npx tsx scripts/soak-http.ts [--minutes 10] [--connections 20])
// Run no other benchmark on the machine meanwhile. It starts the real CLI (`node dist/tars.cjs
// serve`, seeded with test/fixtures/acme.json, the sample PBX logs imported; scripts/http-bench-kit.ts)
// and sends it, from N connections (default 20) as fast as it answers, for M minutes (default 10), a mix of
// requests, each with the one status it must get:
//   40 % GET /v2/webhooks/1 (200)              15 % GET /v2/admin/phone-numbers/?tenantId=1 (200)
//   10 % POST /v2/reporting/queues/stats (201)  10 % POST /v2/webhooks/ (201) then DELETE it (200)
//    5 % PATCH a caller ID name (200)            8 % GET /v2/webhooks/999999 (404)
//    8 % POST /v2/webhooks/ with a bad body (400) 2 % a forged token (401)     2 % a login (201, scrypt)
// Every ~10 s it prints the server's resident memory (VmRSS), requests and rate so far. At the end it checks
// that the writes were cleaned up (the same webhooks and caller ID names as at the start) and that the
// server logged no error. It fails (exit 1) on any request that got another status or no answer, on an
// error in the server's log, and on a sustained rise of RSS after the warm-up (the first 20 % of the run,
// at least one minute): the least-squares slope of the later samples above 1 MB/min AND the mean of their
// last third more than 8 MB above the mean of their first third (either alone is within what the garbage
// collector's rhythm gives).
import { parseArgs } from 'node:util';
import { ADMIN, importSampleLogs, login, newDataDir, REPORTS_USER, rssMb, startTars, STATS_BODY } from './http-bench-kit';

const { values: opts } = parseArgs({
  options: { minutes: { type: 'string', default: '10' }, connections: { type: 'string', default: '20' } },
});
const MINUTES = Number(opts.minutes);
const CONNECTIONS = Number(opts.connections);
const SAMPLE_MS = 10_000;

const dataDir = newDataDir('soak-http');
const tars = await startTars(dataDir);
importSampleLogs(dataDir);
const token = await login(tars.url, ADMIN);
const forged = `${token.slice(0, -4)}AAAA`;

interface Call {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly token?: string | null;
}

const counts = new Map<string, number>();
const failures: string[] = [];
let requests = 0;

async function call(kind: string, c: Call, expected: number): Promise<unknown> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const bearer = c.token === undefined ? token : c.token;
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  requests++;
  try {
    const res = await fetch(tars.url + c.path, {
      method: c.method,
      headers,
      body: c.body === undefined ? undefined : JSON.stringify(c.body),
    });
    const text = await res.text();
    counts.set(`${kind} ${res.status}`, (counts.get(`${kind} ${res.status}`) ?? 0) + 1);
    if (res.status !== expected) {
      failures.push(`${c.method} ${c.path}: ${res.status} (expected ${expected}) ${text.slice(0, 200)}`);
      return undefined;
    }
    return text ? JSON.parse(text) : undefined;
  } catch (err) {
    counts.set(`${kind} error`, (counts.get(`${kind} error`) ?? 0) + 1);
    failures.push(`${c.method} ${c.path}: ${(err as Error).message}`);
    return undefined;
  }
}

/** One step of the mix, chosen by r in [0, 1). */
async function step(r: number, n: number): Promise<void> {
  if (r < 0.4) await call('webhook', { method: 'GET', path: '/v2/webhooks/1' }, 200);
  else if (r < 0.55) await call('phone numbers', { method: 'GET', path: '/v2/admin/phone-numbers/?tenantId=1' }, 200);
  else if (r < 0.65) await call('queue stats', { method: 'POST', path: '/v2/reporting/queues/stats', body: STATS_BODY }, 201);
  else if (r < 0.75) {
    const made = (await call(
      'webhook create',
      { method: 'POST', path: '/v2/webhooks/', body: { tenantId: 1, type: 'ENDCALL', url: `http://127.0.0.1:9/soak/${n}` } },
      201,
    )) as { id: number } | undefined;
    if (made) await call('webhook delete', { method: 'DELETE', path: `/v2/webhooks/${made.id}` }, 200);
  } else if (r < 0.8)
    await call(
      'caller id',
      { method: 'PATCH', path: '/v2/admin/phone-numbers/caller-id-name/2', body: { callerIdName: 'ACME SALES' } },
      200,
    );
  else if (r < 0.88) await call('not found', { method: 'GET', path: '/v2/webhooks/999999' }, 404);
  else if (r < 0.96)
    await call('bad body', { method: 'POST', path: '/v2/webhooks/', body: { tenantId: 1, type: 'NO-SUCH-TYPE', url: 'ftp://x' } }, 400);
  else if (r < 0.98) await call('forged token', { method: 'GET', path: '/v2/webhooks/1', token: forged }, 401);
  else await call('login', { method: 'POST', path: '/v2/authentication/', body: REPORTS_USER, token: null }, 201);
}

/** A small deterministic generator (mulberry32), so that two runs send the same mix. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const state = async () =>
  JSON.stringify([
    await call('check', { method: 'GET', path: '/v2/webhooks/?tenantId=1' }, 200),
    await call('check', { method: 'GET', path: '/v2/admin/phone-numbers/?tenantId=1' }, 200),
  ]);
const before = await state();

const started = Date.now();
const deadline = started + MINUTES * 60_000;
const samples: Array<{ minutes: number; rss: number }> = [];
const sample = () => {
  const minutes = (Date.now() - started) / 60_000;
  const rss = rssMb(tars.pid);
  samples.push({ minutes, rss });
  console.log(
    `${(minutes * 60).toFixed(0).padStart(5)} s  RSS ${rss.toFixed(1).padStart(6)} MB  ${String(requests).padStart(8)} requests  ${Math.round(requests / (minutes * 60 || 1))} req/s  ${failures.length} failures`,
  );
};
console.log(`soak: ${MINUTES} min, ${CONNECTIONS} connections, server pid ${tars.pid}, data ${dataDir}`);
sample();
const timer = setInterval(sample, SAMPLE_MS);
await Promise.all(
  Array.from({ length: CONNECTIONS }, async (_, w) => {
    const next = random(w + 1);
    for (let n = 0; Date.now() < deadline; n++) await step(next(), w * 1e9 + n);
  }),
);
clearInterval(timer);
sample();
const after = await state();
if (after !== before) failures.push(`the writes were not all cleaned up:\n  before ${before}\n  after  ${after}`);
await tars.stop();
const errorLines = tars.errorLines();
if (errorLines.length > 0) failures.push(`the server logged ${errorLines.length} errors, e.g. ${errorLines[0]}`);

// The trend after the warm-up.
const warm = samples.filter((s) => s.minutes >= Math.max(1, MINUTES * 0.2));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
let verdict = 'too short to judge a trend (fewer than 6 samples after the warm-up)';
if (warm.length >= 6) {
  const mx = mean(warm.map((s) => s.minutes));
  const my = mean(warm.map((s) => s.rss));
  const slope = warm.reduce((a, s) => a + (s.minutes - mx) * (s.rss - my), 0) / warm.reduce((a, s) => a + (s.minutes - mx) ** 2, 0);
  const third = Math.floor(warm.length / 3);
  const rise = mean(warm.slice(-third).map((s) => s.rss)) - mean(warm.slice(0, third).map((s) => s.rss));
  verdict = `after the warm-up: slope ${slope.toFixed(2)} MB/min, last third ${rise >= 0 ? '+' : ''}${rise.toFixed(1)} MB against the first`;
  if (slope > 1 && rise > 8) failures.push(`RSS keeps rising: ${verdict}`);
}

const rsses = samples.map((s) => s.rss);
console.log(
  `\n${requests} requests in ${MINUTES} min (${Math.round(requests / (MINUTES * 60))} req/s); RSS first ${rsses[0]} MB, min ${Math.min(...rsses)} MB, max ${Math.max(...rsses)} MB, last ${rsses.at(-1)} MB; ${verdict}`,
);
console.log(
  [...counts]
    .sort()
    .map(([k, v]) => `  ${k}: ${v}`)
    .join('\n'),
);
if (failures.length > 0) {
  console.error(`\nFAILED (${failures.length}):\n  ${failures.slice(0, 20).join('\n  ')}`);
  process.exit(1);
}
console.log('no errors, no 5xx, no unexpected status');

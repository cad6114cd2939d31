#!/usr/bin/env -S npx tsx
// Instructions per request, TARS against the floor, counted by valgrind (docs/performance.md, "HTTP API"):
//   npm run build && npx tsx scripts/bench-instructions.ts [--request webhook|list|stats|all] [--warmup N] [--requests N]
// Needs valgrind (Debian package valgrind). The rates of `npm run bench` move with whatever else the machine
// runs (±15 % here between runs); a count of instructions does not, so this tells whether a change made a
// request cheaper when the rates cannot. It is not a measure of time: memory stalls and the garbage
// collector's copying cost time out of proportion to their instructions.
// 1. a fresh data directory under .tmp/, seeded with test/fixtures/acme.json by the real CLI, the sample
//    PBX logs imported, one login (the fixture's account admin of tenant 1, as in npm run bench);
// 2. `tars serve` and the floor (scripts/bench-floor.mjs) each under `valgrind --tool=callgrind`, side by side
//    (a count does not depend on the load beside it);
// 3. for each request of npm run bench: --warmup requests (default 6000: V8 keeps optimising TARS's code for
//    the first thousands), then the counters are zeroed (callgrind_control -z), --requests requests (default
//    2000) are sent, and the counters dumped (callgrind_control -d): all threads' instructions, divided by the
//    requests. autocannon, 50 connections; any non-2xx answer fails the run. Under valgrind a request takes
//    about 50 times as long: the default run takes about 5 minutes a request.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import {
  ADMIN,
  importSampleLogs,
  login,
  MEASURED,
  newDataDir,
  startFloor,
  startTars,
  type BenchRequest,
  type Server,
} from './http-bench-kit';

const { values: opts } = parseArgs({
  options: {
    request: { type: 'string', default: 'webhook' },
    warmup: { type: 'string', default: '6000' },
    requests: { type: 'string', default: '2000' },
  },
});
const REQUESTS = Number(opts.requests);
const WARMUP = Number(opts.warmup);

const chosen = opts.request === 'all' ? Object.values(MEASURED) : [MEASURED[opts.request as keyof typeof MEASURED]];
if (chosen.some((t) => !t)) throw new Error(`--request must be one of ${Object.keys(MEASURED).join(', ')}, all`);

try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  throw new Error('valgrind is not installed (Debian: apt-get install valgrind)');
}

const dataDir = newDataDir('bench-instructions');
const seeded = await startTars(dataDir);
importSampleLogs(dataDir);
const token = await login(seeded.url, ADMIN);
await seeded.stop();

async function send(server: Server, t: BenchRequest, amount: number): Promise<void> {
  const r = await autocannon({
    url: server.url + t.path,
    method: t.method,
    body: t.body,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    connections: 50,
    amount,
    timeout: 120,
  });
  const wrong = r.errors + r.timeouts + r.non2xx;
  if (wrong > 0)
    throw new Error(`${t.name} on ${server.url}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx of ${r.requests.total}`);
}

/** Instructions per request of one server under callgrind, counted after the warm-up. */
async function count(who: 'tars' | 'floor', t: BenchRequest): Promise<number> {
  const prefix = `callgrind.${who}.${Date.now()}`;
  const wrapper = ['valgrind', '--tool=callgrind', `--callgrind-out-file=${join(dataDir, prefix)}`, '--dump-instr=no'];
  const server = who === 'tars' ? await startTars(dataDir, {}, [], wrapper) : await startFloor(dataDir, wrapper);
  try {
    await send(server, t, WARMUP);
    execFileSync('callgrind_control', ['-z', String(server.pid)], { stdio: 'ignore' });
    await send(server, t, REQUESTS);
    const before = new Set(readdirSync(dataDir));
    execFileSync('callgrind_control', ['-d', String(server.pid)], { stdio: 'ignore' });
    const dump = readdirSync(dataDir).find((f) => f.startsWith(prefix) && !before.has(f));
    if (!dump) throw new Error(`callgrind wrote no dump for ${who}`);
    const total = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dataDir, dump), 'utf8'))?.[1];
    if (!total) throw new Error(`no total in ${dump}`);
    return Number(total) / REQUESTS;
  } finally {
    await server.stop();
  }
}

console.log(`instructions per request (valgrind callgrind, all threads), after ${WARMUP} requests of warm-up, over ${REQUESTS}:`);
for (const t of chosen) {
  const [mine, bare] = await Promise.all([count('tars', t), count('floor', t)]);
  const k = (n: number) => `${Math.round(n / 1000)} k`;
  console.log(`${t.name.padEnd(40)} TARS ${k(mine).padStart(7)}   floor ${k(bare).padStart(7)}   floor/TARS ${(bare / mine).toFixed(2)}`);
}
console.log(`data: ${dataDir}`);

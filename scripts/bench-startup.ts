#!/usr/bin/env -S npx tsx
// Start-up of TARS against a bare server (docs/performance.md, "Start-up"):
//   npm run build && npm run build:binary && npx tsx scripts/bench-startup.ts [--rounds N] [--settle MS] [--no-binary]
// The floor is scripts/bench-floor.mjs, the floor of the HTTP benchmark: Express 5 and better-sqlite3 opening
// the same database file (plus the JWT key and four prepared statements). Both start on one data directory that
// TARS has made and migrated, alternating (the order flips every round), and for each start this measures
//   (a) the time from spawning the process to its first answer to an HTTP request (GET /healthz, polled every
//       2 ms) that is not a 503: `tars serve` binds its address first of all and answers 503 while it opens the
//       database (src/cli/bind.ts), so a TCP connection alone says nothing about being ready; the floor answers
//       404 as soon as it listens; and
//   (b) its resident memory once it has been idle for --settle ms (default 2000).
// Cases: `node dist/tars.cjs serve` against `node scripts/bench-floor.mjs` (Node of this machine), and the
// executable dist/tars against the floor built the same way (esbuild bundle, the same Node 24 with its code
// cache, better-sqlite3 13's addon as an asset: .tmp/floor-exe). It prints the medians and the ratios and
// exits 1 when TARS takes more than 1.5× the floor's time or holds more than 1.3× its memory.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';
import { binaryParts, makeExecutable } from './build-binary.mjs';
import { newDataDir, ROOT } from './http-bench-kit';

const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    settle: { type: 'string', default: '2000' },
    'no-binary': { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(opts.rounds);
const SETTLE_MS = Number(opts.settle);
const TARGET = { time: 1.5, rss: 1.3 };
const ENV = { TARS_ADMIN_EMAIL: 'admin@startup.example', TARS_ADMIN_PASSWORD: 'startup-bench-pass', TARS_LOG_LEVEL: 'warn' };

interface Case {
  readonly name: string;
  readonly cmd: string;
  args(dataDir: string, port: number): string[];
}

const TARS_EXE = join(ROOT, 'dist/tars');
const tarsArgs = (dataDir: string, port: number) => ['serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir];
const floorArgs = (dataDir: string, port: number) => ['--data-dir', dataDir, '--port', String(port), '--host', '127.0.0.1'];

/** The floor as an executable made the way dist/tars is made. */
async function buildFloorExe(): Promise<string> {
  const { node24, sqliteDir, addon } = binaryParts();
  const bundle = join(ROOT, '.tmp/floor-sea.cjs');
  const exe = join(ROOT, '.tmp/floor-exe');
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: ['scripts/bench-floor.mjs'],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
    alias: { 'better-sqlite3': `${sqliteDir}/lib/index.js` },
    // better-sqlite3 looks for its addon on disk; in an executable it is an asset (scripts/sea-bindings.cjs).
    plugins: [
      {
        name: 'sea-binding',
        setup: (b) => b.onResolve({ filter: /^\.\/binding$/ }, () => ({ path: join(ROOT, 'scripts/sea-bindings.cjs') })),
      },
    ],
  });
  makeExecutable({ node24, main: bundle, assets: { 'better_sqlite3.node': addon }, exe });
  return exe;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.once('error', reject);
  });
}

/** Whether the server on `port` answers an HTTP request, other than with the 503 of `tars serve` while it starts. */
function ready(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode !== 503);
    });
    req.once('error', () => resolve(false));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

/** One start: ms to the first answer that is not a 503, MB resident after SETTLE_MS idle. */
async function measure(c: Case, dataDir: string, settleMs = SETTLE_MS): Promise<{ ms: number; mb: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(c.cmd, c.args(dataDir, port), { env: { ...process.env, ...ENV }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise((r) => child.once('exit', r));
  try {
    while (!(await ready(port))) {
      if (child.exitCode !== null || performance.now() - started > 30_000) throw new Error(`${c.name} did not start: ${stderr}`);
      await sleep(2);
    }
    const ms = performance.now() - started;
    await sleep(settleMs);
    return { ms, mb: rssMb(child.pid as number) };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function main(): Promise<number> {
  if (!existsSync(join(ROOT, 'dist/tars.cjs'))) throw new Error('run npm run build first');
  const dataDir = newDataDir('startup');
  const pairs: [Case, Case][] = [
    [
      { name: 'node dist/tars.cjs serve', cmd: process.execPath, args: (d, p) => [join(ROOT, 'dist/tars.cjs'), ...tarsArgs(d, p)] },
      {
        name: 'node scripts/bench-floor.mjs',
        cmd: process.execPath,
        args: (d, p) => [join(ROOT, 'scripts/bench-floor.mjs'), ...floorArgs(d, p)],
      },
    ],
  ];
  if (!opts['no-binary']) {
    if (!existsSync(TARS_EXE)) throw new Error('run npm run build:binary first (or pass --no-binary)');
    const floorExe = await buildFloorExe();
    pairs.push([
      { name: 'dist/tars serve', cmd: TARS_EXE, args: tarsArgs },
      { name: 'floor executable', cmd: floorExe, args: floorArgs },
    ]);
  }
  const cases = pairs.flat();
  // A round not counted: TARS makes the data directory (database, migrations, JWT secret, first administrator),
  // and every program is read once into the page cache.
  for (const c of cases) await measure(c, dataDir, 0);
  const results = new Map(cases.map((c) => [c, { ms: [] as number[], mb: [] as number[] }]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of round % 2 === 0 ? cases : [...cases].reverse()) {
      const r = await measure(c, dataDir);
      results.get(c)?.ms.push(r.ms);
      results.get(c)?.mb.push(r.mb);
    }
  }
  let missed = false;
  console.log(`${ROUNDS} rounds, medians; idle memory after ${SETTLE_MS} ms`);
  for (const [tars, floor] of pairs) {
    const t = results.get(tars) as { ms: number[]; mb: number[] };
    const f = results.get(floor) as { ms: number[]; mb: number[] };
    const time = median(t.ms) / median(f.ms);
    const rss = median(t.mb) / median(f.mb);
    console.log(
      `${tars.name}: ${median(t.ms).toFixed(0)} ms, ${median(t.mb).toFixed(1)} MB (all: ${t.ms.map((x) => x.toFixed(0)).join(' ')} ms)`,
    );
    console.log(
      `${floor.name}: ${median(f.ms).toFixed(0)} ms, ${median(f.mb).toFixed(1)} MB (all: ${f.ms.map((x) => x.toFixed(0)).join(' ')} ms)`,
    );
    const ok = time <= TARGET.time && rss <= TARGET.rss;
    console.log(
      `  ratios: time ${time.toFixed(2)} (target ≤ ${TARGET.time}), idle RSS ${rss.toFixed(2)} (target ≤ ${TARGET.rss}): ${ok ? 'met' : 'MISSED'}`,
    );
    missed ||= !ok;
  }
  return missed ? 1 : 0;
}

process.exitCode = await main();

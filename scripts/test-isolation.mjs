#!/usr/bin/env node
// Every test must pass alone (the house rule: each test sets up its own state). This runs them so:
//   npm run build && node scripts/test-isolation.mjs [--files GLOB] [--sample N] [--seed S] [--only files|tests]
// 1. every test file of GLOB (default: test/{unit,api,e2e}/**/*.test.ts, what `npm test` runs) alone, in its own
//    mocha process: each must pass with as many tests as the whole run counts for it;
// 2. a sample of N single tests (default 40, drawn with a seeded shuffle, seed 28 unless --seed; at least one of
//    every file when N allows) each alone, by `mocha FILE --grep '^<its full title>$'`: each must run exactly one
//    test and pass.
// It prints one line per run and a summary, writes .tmp/test-isolation.json, and exits 1 when any run failed,
// ran no test or ran another number of tests than expected. e2e tests start dist/tars.cjs: build first.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({
  options: {
    files: { type: 'string', default: 'test/{unit,api,e2e}/**/*.test.ts' },
    sample: { type: 'string', default: '40' },
    seed: { type: 'string', default: '28' },
    only: { type: 'string' },
  },
});
const MOCHA = 'node_modules/.bin/mocha';

/** Runs mocha with these arguments; resolves with its exit code and its JSON report (null when it printed none). */
function mocha(args) {
  return new Promise((resolve) => {
    const child = spawn(MOCHA, [...args, '--reporter', 'json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      resolve({ code, report: reportIn(out), err });
    });
  });
}

/** The JSON report in a run's output (tests may print before it); null when there is none. */
function reportIn(out) {
  const start = out.indexOf('{\n  "stats"');
  if (start < 0) return null;
  try {
    return JSON.parse(out.slice(start));
  } catch {
    return null;
  }
}

/** Every test of GLOB, as mocha lists them without running them: its file and full title. */
async function listTests() {
  const { report } = await mocha(['--dry-run', opts.files]);
  if (!report) throw new Error('mocha --dry-run gave no report');
  return report.tests.map((t) => ({ file: relative(process.cwd(), t.file), title: t.fullTitle }));
}

/** A seeded shuffle (mulberry32), so that a sample can be drawn again. */
function shuffled(list, seed) {
  let a = seed >>> 0;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const results = [];
function record(kind, what, expected, { code, report, err }) {
  const ran = report ? report.stats.tests : 0;
  const failed = report ? report.stats.failures : 0;
  const ok = code === 0 && report !== null && ran === expected && failed === 0;
  const why = ok
    ? ''
    : report === null
      ? ` (no report; exit ${code}: ${err.trim().split('\n').slice(-3).join(' / ')})`
      : ` (ran ${ran}, expected ${expected}, ${failed} failed)`;
  results.push({ kind, what, expected, ran, failed, ok, failures: report ? report.failures.map((f) => f.fullTitle) : [] });
  process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${kind} ${what}: ${ran} test(s)${why}\n`);
  for (const f of report?.failures ?? [])
    process.stdout.write(`       failed: ${f.fullTitle}\n         ${String(f.err?.message ?? '').split('\n')[0]}\n`);
}

const tests = await listTests();
const byFile = new Map();
for (const t of tests) byFile.set(t.file, [...(byFile.get(t.file) ?? []), t]);
process.stdout.write(`${tests.length} tests in ${byFile.size} files\n`);

if (opts.only !== 'tests') {
  for (const [file, ofFile] of byFile) record('file', file, ofFile.length, await mocha([file]));
}
if (opts.only !== 'files') {
  const n = Number(opts.sample);
  // One of every file first (as far as N goes), then the rest of the shuffle.
  const order = shuffled(tests, Number(opts.seed));
  const firstOfFile = [...new Map(order.map((t) => [t.file, t])).values()];
  const sample = [...new Set([...shuffled(firstOfFile, Number(opts.seed)), ...order])].slice(0, n);
  for (const t of sample) record('test', `${t.file} "${t.title}"`, 1, await mocha([t.file, '--grep', `^${escape(t.title)}$`]));
}

const bad = results.filter((r) => !r.ok);
const files = results.filter((r) => r.kind === 'file');
const single = results.filter((r) => r.kind === 'test');
const summary = {
  tests: tests.length,
  files: { run: files.length, passed: files.filter((r) => r.ok).length, tests: files.reduce((s, r) => s + r.ran, 0) },
  single: { run: single.length, passed: single.filter((r) => r.ok).length, seed: Number(opts.seed) },
  failed: bad.map((r) => ({ kind: r.kind, what: r.what, failures: r.failures })),
};
mkdirSync('.tmp', { recursive: true });
writeFileSync('.tmp/test-isolation.json', `${JSON.stringify({ summary, results }, null, 2)}\n`);
process.stdout.write(
  `\nfiles alone: ${summary.files.passed} of ${summary.files.run} passed (${summary.files.tests} tests); ` +
    `single tests alone (seed ${summary.single.seed}): ${summary.single.passed} of ${summary.single.run} passed\n`,
);
process.exit(bad.length > 0 ? 1 : 0);

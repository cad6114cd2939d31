#!/usr/bin/env -S npx tsx
// The console's benchmarks and budgets (docs/performance.md, "The console"):
//   npm run bench:console      (builds, then: npx tsx scripts/bench-console.ts [--pages 50] [--events 40] [--loads 20])
// In one run, with Debian's chromium driven by playwright-core:
// 1. Wallboard, event to DOM: the real program (a copy of dist/tars.cjs and dist/console under .tmp/) on the
//    recorded Asterisk run's site (test/helpers/console-site.ts: TARS_AMI_URL pointing at an AMI peer in this
//    process), PAGES browser contexts (default 50, each its own connections, as 50 screens) signed in with the
//    console's cookie. EVENTS callers join Sales one by one (after 10 of warm-up), each written to TARS's AMI
//    link 250 ms after the one before: from the write (Date.now() here) to each page's DOM showing the new number
//    of callers (a MutationObserver's Date.now() in the page: the same machine's clock). The same in the floor:
//    PAGES pages that read the same stream with EventSource and write each frame's data into a <pre>, unchanged.
//    Two rounds of each, alternated; p50 / p95 / max over all pages and events. Target: the wallboard's p95 at
//    most 2x the floor's.
// 2. Sign-in first paint: LOADS loads (default 20) of /sign-in, each in a new context (nothing cached), against as
//    many of a static page of the same size served by the same program (its files beside the console's, with
//    Brotli and gzip forms alike: the sign-in form's markup as the console draws it, the same style sheet, and the
//    console's scripts as an HTML comment for their bytes), alternated: Chromium's first-contentful-paint (target:
//    the median at most 1.5x the static page's), and the largest-contentful-paint (the sign-in form on both pages).
// 3. Budgets: the bytes each first load (sign-in, wallboard) transfers, compressed (Brotli, as Chromium asks),
//    the live stream left out; at most 200 kB each.
// 4. `--chart DATA_DIR` (only this): a year of daily statistics of 20 queues on the queue statistics screen, against the
//    API's own time for the same request. DATA_DIR is a data directory of scripts/gen-pbx-year.mjs's year, imported
//    (scripts/bench-reporting.ts keeps one under .tmp/bench/), served by a copy of the built program. In one page:
//    the screen's time, from the click on "Show" to the new chart drawn (a MutationObserver sees uPlot's new chart,
//    then uPlot's own microtask that draws its canvas) and to it painted (the browser's next frame), against the
//    API's: a fetch of the same POST in the same page until its whole body has arrived. `--chart-rounds` rounds each
//    (default 9, after 2 of warm-up), alternated, each first in every other round; medians. Target: the chart drawn,
//    median at most 1.5x the API's (the painted figure is printed too).
// The figures are printed; any error fails the run (exit 1).
// Code run in the page is typed loosely: this tsconfig has no DOM library (as in test/browser).
/* eslint-disable @typescript-eslint/no-explicit-any */
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM, FLAGS } from '../test/helpers/browser';
import { startServe } from '../test/helpers/cli';
import { ROLE_IDS, startConsoleSite, type ConsoleSite } from '../test/helpers/console-site';
import { MAX_STREAMS_PER_USER } from '../src/modules/live-queues/live-stream';
import { ROOT } from './http-bench-kit';

const { values: opts } = parseArgs({
  options: {
    pages: { type: 'string', default: '50' },
    events: { type: 'string', default: '40' },
    loads: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '2' },
    // Chromium's own counters (CDP Performance.getMetrics) of every page over a round's events: where the time goes.
    profile: { type: 'boolean', default: false },
    'skip-paint': { type: 'boolean', default: false },
    chart: { type: 'string' },
    'chart-rounds': { type: 'string', default: '9' },
  },
});
const PAGES = Number(opts.pages);
const EVENTS = Number(opts.events);
const LOADS = Number(opts.loads);
const ROUNDS = Number(opts.rounds);
const WARMUP = 10;
const SPACING_MS = 250;

/** CPU seconds (user + system) a process's descendants have used (Linux /proc), by Chromium's process type. */
function cpuOfTree(root: number): Map<string, number> {
  const parents = new Map<number, number>();
  const cpu = new Map<number, { s: number; type: string }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      const type = /--type=([a-z-]+)/.exec(cmd)?.[1] ?? (cmd.includes('chromium') ? 'browser' : 'other');
      const sub = /--utility-sub-type=([a-zA-Z.]+)/.exec(cmd)?.[1];
      parents.set(Number(name), Number(f[1]));
      cpu.set(Number(name), { s: (Number(f[11]) + Number(f[12])) / 100, type: sub ? sub.replace(/\.mojom\..*/, '') : type });
    } catch {
      // the process ended meanwhile
    }
  }
  const inTree = (pid: number): boolean => {
    for (let p: number | undefined = pid; p; p = parents.get(p)) if (p === root) return true;
    return false;
  };
  const sums = new Map<string, number>();
  for (const [pid, c] of cpu) if (inTree(pid)) sums.set(c.type, (sums.get(c.type) ?? 0) + c.s);
  return sums;
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * (s.length - 1)))] as number;
};
const ms = (n: number) => `${n.toFixed(1)} ms`;

/** A copy of the built program with the static floor page among the console's files (served as they are). */
function programCopy(): string {
  const dir = join(ROOT, '.tmp', 'bench-console');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  cpSync(join(ROOT, 'dist', 'tars.cjs'), join(dir, 'tars.cjs'));
  cpSync(join(ROOT, 'dist', 'console'), join(dir, 'console'), { recursive: true });
  return dir;
}

/** Adds a file to the copy's console files, with its compressed forms, as scripts/build-console.mjs does. */
function addConsoleFile(dir: string, name: string, body: string): void {
  const file = join(dir, 'console', name);
  writeFileSync(file, body);
  writeFileSync(`${file}.br`, brotliCompressSync(Buffer.from(body)));
  writeFileSync(`${file}.gz`, gzipSync(Buffer.from(body), { level: 9 }));
  const manifest = JSON.parse(readFileSync(join(dir, 'console', 'manifest.json'), 'utf8'));
  manifest.files.push(name);
  writeFileSync(join(dir, 'console', 'manifest.json'), JSON.stringify(manifest));
}

const FLOOR_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>floor</title></head><body><pre id="frame"></pre>
<script>const pre = document.getElementById('frame');
const es = new EventSource('/v2/reporting/queues/live/stream?tenantId=1');
for (const type of ['state', 'queue']) es.addEventListener(type, (e) => { pre.textContent = e.data; });
</script></body></html>`;

/**
 * What a page shows as Sales's number of callers: the wallboard's tile, or the floor's last frame (a watcher, not the
 * page's work). Returns the number shown when it starts: the round counts from there (the site's queue may have
 * callers of the recorded run waiting already).
 */
function installWatcher(kind: 'wallboard' | 'floor'): number | undefined {
  const g = globalThis as any;
  g.seen = [] as { n: number; at: number }[];
  const read = (): number | undefined => {
    if (kind === 'floor') {
      const text: string = g.document.getElementById('frame')?.textContent ?? '';
      const i = text.indexOf('"queueId":1,');
      if (i < 0) return undefined;
      const m = /"callersWaiting":(\d+)/.exec(text.slice(i));
      return m ? Number(m[1]) : undefined;
    }
    const tile = [...g.document.querySelectorAll('li.tile')].find((el: any) => el.querySelector('h2').textContent.startsWith('Sales'));
    const value = tile && [...tile.querySelectorAll('.figure')].find((f: any) => f.querySelector('dt').textContent === 'Waiting');
    return value ? Number(value.querySelector('.value').textContent) : undefined;
  };
  let last = read();
  new g.MutationObserver(() => {
    const n = read();
    if (n !== undefined && n !== last) {
      last = n;
      g.seen.push({ n, at: Date.now() });
    }
  }).observe(g.document.body, { subtree: true, childList: true, characterData: true });
  return last;
}

async function wallboardRound(
  browser: Browser,
  site: ConsoleSite,
  cookies: readonly string[],
  kind: 'wallboard' | 'floor',
  start: number,
): Promise<number[] | undefined> {
  const contexts: BrowserContext[] = [];
  const pages: Page[] = [];
  const baselines: number[] = [];
  for (let i = 0; i < PAGES; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const cookie = cookies[Math.floor(i / MAX_STREAMS_PER_USER)] as string;
    await context.addCookies([{ name: 'tars_session', value: cookie, url: site.url, httpOnly: true, sameSite: 'Strict' }]);
    const page = await context.newPage();
    if (kind === 'floor') {
      await page.goto(`${site.url}/assets/bench-floor.html`);
      await page.waitForFunction(() => ((globalThis as any).document.getElementById('frame')?.textContent ?? '').includes('"queueId":1,'));
    } else {
      await page.goto(`${site.url}/wallboard`);
      await page.locator('li.tile').first().waitFor({ timeout: 60_000 });
    }
    // tsx names functions through a helper of its own (__name): the page gets a stand-in before the watcher.
    await page.evaluate('globalThis.__name ??= (f) => f');
    const baseline = await page.evaluate(installWatcher, kind);
    if (baseline === undefined) throw new Error(`${kind}: a page shows no number of callers for Sales`);
    baselines.push(baseline);
    contexts.push(context);
    pages.push(page);
  }
  const sessions = opts.profile ? await Promise.all(pages.map((p) => p.context().newCDPSession(p))) : [];
  for (const s of sessions) await s.send('Performance.enable');
  const metrics = async () => {
    const sum = new Map<string, number>();
    for (const s of sessions)
      for (const m of (await s.send('Performance.getMetrics')).metrics) sum.set(m.name, (sum.get(m.name) ?? 0) + m.value);
    return sum;
  };
  await sleep(1000);
  const before = await metrics();
  const cpuBefore = { all: cpuOfTree(process.pid), at: Date.now() };
  // Each event adds one caller to what the page showed: the i-th of the round is shown as baseline + i + 1.
  const sent: { added: number; at: number }[] = [];
  for (let i = 0; i < WARMUP + EVENTS; i++) {
    const n = start + i + 1;
    const at = Date.now();
    site.peer.write(
      `Event: QueueCallerJoin\r\nPrivilege: agent,all\r\nQueue: sales\r\nUniqueid: bench-${n}\r\nChannel: PJSIP/bench-${n}\r\nCallerIDNum: +1555000${n}\r\nCallerIDName: Bench\r\nPosition: ${n}\r\nCount: ${n}\r\n\r\n`,
    );
    if (i >= WARMUP) sent.push({ added: i + 1, at });
    await sleep(SPACING_MS);
  }
  await sleep(2000);
  if (opts.profile) {
    const cpu = { all: cpuOfTree(process.pid), at: Date.now() };
    const used = [...cpu.all].map(([type, s]) => [type, s - (cpuBefore.all.get(type) ?? 0)] as const).filter(([, s]) => s >= 0.05);
    console.log(
      `  ${kind} CPU seconds over ${((cpu.at - cpuBefore.at) / 1000).toFixed(1)} s: ` +
        used.map(([type, s]) => `${type === 'other' ? 'TARS' : type} ${s.toFixed(1)}`).join(', '),
    );
    const after = await metrics();
    const d = (k: string) => ((after.get(k) ?? 0) - (before.get(k) ?? 0)) / PAGES;
    const perPage = (k: string) => `${(d(k) * 1000).toFixed(0)} ms`;
    console.log(
      `  ${kind} profile, per page over the round (${WARMUP + EVENTS} events, ${(((WARMUP + EVENTS) * SPACING_MS + 2000) / 1000).toFixed(1)} s): ` +
        `tasks ${perPage('TaskDuration')}, script ${perPage('ScriptDuration')}, style ${perPage('RecalcStyleDuration')} (${d('RecalcStyleCount').toFixed(0)}), ` +
        `layout ${perPage('LayoutDuration')} (${d('LayoutCount').toFixed(0)}), nodes ${d('Nodes').toFixed(0)}`,
    );
  }
  const latencies: number[] = [];
  let reconciled = false;
  for (const [p, page] of pages.entries()) {
    const seen = (await page.evaluate(() => (globalThis as any).seen)) as { n: number; at: number }[];
    const baseline = baselines[p] as number;
    // Only joins were sent: a number going down is TARS reading the queues whole again (QueueStatus, every 5 minutes),
    // the AMI peer answering with the recording's callers and not the round's. The round is then run again.
    if (seen.some((x, i) => x.n < (i === 0 ? baseline : (seen[i - 1] as { n: number }).n))) {
      reconciled = true;
      break;
    }
    for (const s of sent) {
      // The first time the page showed this event (or a later one: two frames read in one task draw once).
      const want = baseline + s.added;
      const shown = seen.find((x) => x.n >= want);
      if (!shown) throw new Error(`${kind}: a page never showed ${want} callers (it started at ${baseline})`);
      latencies.push(shown.at - s.at);
    }
  }
  for (const c of contexts) await c.close();
  // The callers leave again, so that the next round starts from the same queue.
  for (let n = start + 1; n <= start + WARMUP + EVENTS; n++)
    site.peer.write(
      `Event: QueueCallerLeave\r\nPrivilege: agent,all\r\nQueue: sales\r\nUniqueid: bench-${n}\r\nChannel: PJSIP/bench-${n}\r\nPosition: 1\r\nCount: 0\r\n\r\n`,
    );
  await sleep(1000);
  return reconciled ? undefined : latencies;
}

/** Waits until the program's AMI link is up (an event written before that reaches nobody). */
async function connected(site: ConsoleSite): Promise<void> {
  for (let tries = 0; tries < 150; tries++) {
    const res = await site.call('GET', '/v2/reporting/queues/live', { token: site.admin.token, query: { tenantId: 1 } });
    if (res.body?.connected === true) return;
    await sleep(100);
  }
  throw new Error('the AMI link never came up after the restart');
}

/**
 * A cold load's first contentful paint and its largest contentful paint (the sign-in form, on both pages: what the
 * user waits for), from the page's Performance API.
 */
async function firstPaint(browser: Browser, url: string): Promise<{ fcp: number; lcp: number }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(url);
  const fcp = await page.waitForFunction(
    () => (globalThis as any).performance.getEntriesByName('first-contentful-paint')[0]?.startTime as number | undefined,
    undefined,
    { polling: 50 },
  );
  await page.locator('input[name=email]').waitFor();
  await sleep(300); // the form's frame is painted
  const lcp = await page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        new (globalThis as any).PerformanceObserver((list: any) => resolve(list.getEntries().at(-1).startTime)).observe({
          type: 'largest-contentful-paint',
          buffered: true,
        });
      }),
  );
  const value = { fcp: (await fcp.jsonValue()) as number, lcp };
  await context.close();
  return value;
}

/** The bytes a first load transfers (bodies as sent, compressed, and headers), the live stream left out. */
async function firstLoadBytes(browser: Browser, url: string, cookie?: { value: string; url: string }, ready?: string) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  if (cookie)
    await context.addCookies([{ name: 'tars_session', value: cookie.value, url: cookie.url, httpOnly: true, sameSite: 'Strict' }]);
  const page = await context.newPage();
  const responses: Promise<{ url: string; bytes: number }>[] = [];
  page.on('response', (r) =>
    responses.push(
      (async () => {
        if (r.url().includes('/stream')) return { url: r.url(), bytes: 0 };
        const sizes = await r.request().sizes();
        return { url: r.url(), bytes: sizes.responseBodySize + sizes.responseHeadersSize };
      })(),
    ),
  );
  await page.goto(url);
  if (ready) await page.locator(ready).first().waitFor();
  await page.waitForLoadState('networkidle').catch(() => undefined);
  const all = await Promise.all(responses);
  await context.close();
  return all.reduce((s, r) => s + r.bytes, 0);
}

/** The year's request: the screen sends it when its form says Custom, 2025-01-01 to 2025-12-31, by day, every queue. */
const YEAR = { startDate: '2025-01-01', endDate: '2025-12-31', distribution: 'daily' };

/** 4. A year of daily statistics of 20 queues: the screen's chart against the API's answer, in one page. */
async function chartBench(dataDir: string): Promise<void> {
  const copy = programCopy();
  const server = await startServe(['--data-dir', dataDir], { program: join(copy, 'tars.cjs'), env: { TARS_LOG_LEVEL: 'warn' } });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  try {
    const signIn = await fetch(`${server.url}/v2/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ email: 'admin@bench.example', password: 'benchmark-password' }),
    });
    const cookie = /tars_session=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1];
    if (!cookie) throw new Error(`console sign-in: ${signIn.status} ${await signIn.text()} (is ${dataDir} the year's data directory?)`);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([{ name: 'tars_session', value: cookie, url: server.url }]);
    const page = await context.newPage();
    await page.goto(`${server.url}/reports/queues`);
    await page.getByRole('heading', { name: 'Queue statistics' }).waitFor();
    await page.locator('input[name=queue]').first().waitFor();
    const queues = await page.locator('input[name=queue]:checked').count();
    await page.locator('#stats-preset').selectOption('custom');
    await page.locator('#stats-startDate').fill(YEAR.startDate);
    await page.locator('#stats-endDate').fill(YEAR.endDate);
    await page.locator('#stats-rows-daily').check();
    const queueId = await page.locator('input[name=queue]:checked').evaluateAll((els) => els.map((e: any) => Number(e.value)));

    const screenRound = () =>
      page.evaluate(
        () =>
          new Promise<{ drawn: number; painted: number }>((resolve) => {
            const d = (globalThis as any).document;
            const old = d.querySelector('.uplot');
            const started = performance.now();
            const seen = new (globalThis as any).MutationObserver(() => {
              const chart = d.querySelector('.uplot');
              if (!chart || chart === old) return;
              seen.disconnect();
              // Drawn: after uPlot's own microtask that draws its canvas. Painted: the browser's next frame done.
              let drawn = 0;
              queueMicrotask(() => (drawn = performance.now() - started));
              (globalThis as any).requestAnimationFrame(() => setTimeout(() => resolve({ drawn, painted: performance.now() - started })));
            });
            seen.observe(d.body, { childList: true, subtree: true });
            d.querySelector('form.report-form button[type=submit]').click();
          }),
      );
    const apiRound = () =>
      page.evaluate(
        async (body) => {
          const started = performance.now();
          const res = await fetch('/v2/reporting/queues/stats', {
            method: 'POST',
            headers: { accept: 'application/json', 'content-type': 'application/json' },
            body: JSON.stringify(body),
            credentials: 'same-origin',
          });
          const bytes = (await res.arrayBuffer()).byteLength;
          if (res.status !== 201) throw new Error(`stats: ${res.status}`);
          return { ms: performance.now() - started, bytes };
        },
        { ...YEAR, queueId },
      );

    const screen: number[] = [];
    const drawn: number[] = [];
    const api: number[] = [];
    let bytes = 0;
    const rounds = Number(opts['chart-rounds']);
    for (let i = 0; i < rounds + 2; i++) {
      // Which goes first alternates too: neither always follows the other's garbage.
      const [a, s] =
        i % 2 === 0 ? [await apiRound(), await screenRound()] : await screenRound().then(async (t) => [await apiRound(), t] as const);
      bytes = a.bytes;
      if (i < 2) continue;
      api.push(a.ms);
      screen.push(s.painted);
      drawn.push(s.drawn);
    }
    if (opts.profile) {
      // Where the screen's time goes: the self time of the page's functions over three more rounds (CDP profiler).
      const cdp = await context.newCDPSession(page);
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp.send('Profiler.start');
      for (let i = 0; i < 3; i++) await screenRound();
      const { profile } = (await cdp.send('Profiler.stop')) as any;
      const self = new Map<string, number>();
      const dt = new Map<number, number>();
      profile.samples.forEach((id: number, i: number) => dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
      for (const n of profile.nodes) {
        const f = n.callFrame;
        const name = `${f.functionName || '(anonymous)'} ${String(f.url).split('/').pop()}:${f.lineNumber}`;
        self.set(name, (self.get(name) ?? 0) + (dt.get(n.id) ?? 0));
      }
      for (const [name, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${ms(t / 3).padStart(10)}  ${name}`);
      // And the renderer's own work (style, layout, paint, parsing) from a trace of three more rounds.
      const events: any[] = [];
      cdp.on('Tracing.dataCollected', (e: any) => events.push(...e.value));
      const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
      await cdp.send('Tracing.start', { categories: 'devtools.timeline,v8', transferMode: 'ReportEvents' });
      for (let i = 0; i < 3; i++) await screenRound();
      await cdp.send('Tracing.end');
      await done;
      const byName = new Map<string, number>();
      for (const e of events) if (e.ph === 'X' && e.dur) byName.set(e.name, (byName.get(e.name) ?? 0) + e.dur / 1000);
      for (const [name, t] of [...byName].sort((a, b) => b[1] - a[1]).slice(0, 20))
        console.log(`  ${ms(t / 3).padStart(10)}  trace ${name}`);
    }
    const rows = await page.locator('table caption', { hasText: 'Statistics by queue' }).count();
    if (rows !== 1) throw new Error('the screen shows no statistics table');
    console.log(
      `\nA year of daily statistics, ${queueId.length} of ${queues} queues (${(bytes / 1e6).toFixed(2)} MB of JSON), ${rounds} rounds each, alternated:`,
    );
    console.log(`  API, fetch until the whole body: median ${ms(quantile(api, 0.5))}, p95 ${ms(quantile(api, 0.95))}`);
    console.log(`  screen, "Show" to the chart drawn (its canvas): median ${ms(quantile(drawn, 0.5))}, p95 ${ms(quantile(drawn, 0.95))}`);
    console.log(
      `  screen, "Show" to the chart painted (the next frame): median ${ms(quantile(screen, 0.5))}, p95 ${ms(quantile(screen, 0.95))}`,
    );
    console.log(`  ratio of medians, drawn: ${(quantile(drawn, 0.5) / quantile(api, 0.5)).toFixed(2)} (target: at most 1.5)`);
    console.log(`  ratio of medians, painted: ${(quantile(screen, 0.5) / quantile(api, 0.5)).toFixed(2)}`);
  } finally {
    await browser.close();
    await server.stop();
    rmSync(copy, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (opts.chart) return chartBench(opts.chart);
  const copy = programCopy();
  const site = await startConsoleSite({ program: join(copy, 'tars.cjs') });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  try {
    // A user holds at most MAX_STREAMS_PER_USER live streams: the pages are shared among as many managers as that takes.
    const cookies: string[] = [];
    for (let i = 0; i < Math.ceil(PAGES / MAX_STREAMS_PER_USER); i++) {
      const manager = await site.makeUser(ROLE_IDS.queues);
      const signIn = await site.call('POST', '/v2/console/session', {
        body: { email: manager.email, password: manager.password },
        headers: { 'sec-fetch-site': 'same-origin' },
      });
      const got = /tars_session=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1];
      if (!got) throw new Error(`console sign-in: ${signIn.status} ${signIn.text}`);
      cookies.push(got);
    }
    const cookie = cookies[0] as string;

    // 3. Budgets first (a fresh server: nothing cached anywhere).
    const signInBytes = await firstLoadBytes(browser, `${site.url}/sign-in`, undefined, 'input[name=email]');
    const wallboardBytes = await firstLoadBytes(browser, `${site.url}/wallboard`, { value: cookie, url: site.url }, 'li.tile');

    // 2. First paint: the sign-in page against a static page of the same size from the same program.
    const probe = await browser.newContext();
    const p = await probe.newPage();
    const scripts: string[] = [];
    p.on('response', async (r) => {
      if (r.url().endsWith('.js')) scripts.push(await r.text());
    });
    await p.goto(`${site.url}/sign-in`);
    await p.locator('input[name=email]').waitFor();
    await sleep(500);
    const markup = await p.evaluate(() => {
      const d = (globalThis as any).document;
      const clone = d.documentElement.cloneNode(true);
      for (const s of clone.querySelectorAll('script, link[rel=modulepreload]')) s.remove();
      return `<!doctype html>\n${clone.outerHTML}`;
    });
    await probe.close();
    const filler = scripts.join('\n').replace(/--/g, '- -');
    const index = (await (await fetch(`${site.url}/sign-in`, { headers: { accept: 'text/html' } })).text()).length;
    const consoleBytes = index + scripts.reduce((sum, s) => sum + s.length, 0);
    const floorHtml = markup.replace('</body>', `<!--${filler}--></body>`);
    addConsoleFile(copy, 'assets/bench-first-paint.html', floorHtml);
    addConsoleFile(copy, 'assets/bench-floor.html', FLOOR_PAGE);
    await site.restart(); // the program reads its files' list at its first request: start it again to serve the floors
    await connected(site); // and its AMI link is up again before any event is written to it
    const consolePaints: { fcp: number; lcp: number }[] = [];
    const staticPaints: { fcp: number; lcp: number }[] = [];
    if (!opts['skip-paint']) {
      await firstPaint(browser, `${site.url}/sign-in`); // warm-up: the program's own first requests
      await firstPaint(browser, `${site.url}/assets/bench-first-paint.html`);
    }
    for (let i = 0; i < (opts['skip-paint'] ? 0 : LOADS); i++) {
      staticPaints.push(await firstPaint(browser, `${site.url}/assets/bench-first-paint.html`));
      consolePaints.push(await firstPaint(browser, `${site.url}/sign-in`));
    }

    // 1. The wallboard against the floor, two rounds each, alternated.
    const wall: number[] = [];
    const floor: number[] = [];
    let start = 0;
    const kinds = Array.from({ length: ROUNDS }, () => ['floor', 'wallboard'] as const).flat();
    for (const kind of kinds) {
      let got: number[] | undefined;
      for (let attempt = 1; !got; attempt++) {
        got = await wallboardRound(browser, site, cookies, kind, start);
        start += WARMUP + EVENTS;
        if (!got) console.log(`  ${kind} round cut by TARS's QueueStatus reconciliation: run again`);
        if (!got && attempt === 3) throw new Error(`${kind}: three rounds cut by a reconciliation`);
      }
      (kind === 'floor' ? floor : wall).push(...got);
      console.log(`  ${kind} round: p95 ${ms(quantile(got, 0.95))}`);
    }

    const kB = (n: number) => `${(n / 1000).toFixed(1)} kB`;
    if (ROUNDS > 0) {
      console.log(
        `\nWallboard, from an AMI event written to TARS to the DOM showing it, ${PAGES} open pages, ${ROUNDS * EVENTS} events each:`,
      );
      console.log(`  wallboard: p50 ${ms(quantile(wall, 0.5))}, p95 ${ms(quantile(wall, 0.95))}, max ${ms(Math.max(...wall))}`);
      console.log(`  floor:     p50 ${ms(quantile(floor, 0.5))}, p95 ${ms(quantile(floor, 0.95))}, max ${ms(Math.max(...floor))}`);
      console.log(`  p95 ratio: ${(quantile(wall, 0.95) / quantile(floor, 0.95)).toFixed(2)} (target: at most 2)`);
    }
    if (!opts['skip-paint']) {
      console.log(
        `\nSign-in first paint, ${LOADS} cold loads each (page and scripts ${consoleBytes} characters, the static page ${floorHtml.length}; the same style sheet):`,
      );
      const paint = (xs: { fcp: number; lcp: number }[], k: 'fcp' | 'lcp') => xs.map((x) => x[k]);
      for (const k of ['fcp', 'lcp'] as const) {
        console.log(k === 'fcp' ? '  first contentful paint:' : '  largest contentful paint (the sign-in form):');
        console.log(
          `    console sign-in: median ${ms(quantile(paint(consolePaints, k), 0.5))}, p95 ${ms(quantile(paint(consolePaints, k), 0.95))}`,
        );
        console.log(
          `    static page:     median ${ms(quantile(paint(staticPaints, k), 0.5))}, p95 ${ms(quantile(paint(staticPaints, k), 0.95))}`,
        );
        console.log(
          `    ratio: median ${(quantile(paint(consolePaints, k), 0.5) / quantile(paint(staticPaints, k), 0.5)).toFixed(2)}, p95 ${(quantile(paint(consolePaints, k), 0.95) / quantile(paint(staticPaints, k), 0.95)).toFixed(2)}${k === 'fcp' ? ' (target: the median at most 1.5)' : ''}`,
        );
      }
    }
    console.log(`\nFirst load, compressed (target: at most 200 kB each): sign-in ${kB(signInBytes)}, wallboard ${kB(wallboardBytes)}`);
  } finally {
    await browser.close();
    await site.close();
    rmSync(copy, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

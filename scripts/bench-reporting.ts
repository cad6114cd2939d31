#!/usr/bin/env -S npx tsx
// The reporting benchmark (docs/performance.md), in one run:
//   npm run build && npx tsx scripts/bench-reporting.ts [DIR]        (DIR default: .tmp/bench)
// 1. generates a year of data into DIR with scripts/gen-pbx-year.mjs unless DIR/queue_log exists;
// 2. import floor: a fresh database, the same queue_log read with the importer's line reader, one row per
//    line inserted into the same table (same indexes) with one prepared statement in one transaction, the
//    fields cut with split() and nothing checked;
// 3. imports queue_log, then Master.csv, with the built CLI (`node dist/tars.cjs import …`) into a database
//    seeded with DIR/fixture.json: lines per second and the process's peak resident memory;
// 4. reports, warm (median of 7 after 2 warm-up runs), over HTTP against the running app (until the whole
//    response is received) and in-process (the service function, no HTTP or JSON): queues/stats for all 20
//    queues, daily, the whole year; agent-availability for queue 1 over June. Each against a floor: one
//    hand-written SQL statement giving the same sums from the same stored rows. Then the supervisor reports
//    (reporting.md R19–R23, scripts/bench-supervisor.ts) against their floors, and a year of lost calls exported
//    as CSV and XLSX by `tars serve` under a small --max-old-space-size (the bounded heap of R24).
// Prints a summary and writes DIR/results.json. `--reports DATA_DIR` measures only step 4, on a data
// directory a previous run left behind (its path is printed at the end). `--queue-log` measures only the
// queue_log import and its floor (steps 2 and 3 without the CDR), to iterate on the importer. With `--reports`,
// `--cases TEXT` measures only the supervisor reports whose name contains TEXT (e.g. `--cases hourly`), nothing else;
// `--export` only the bounded export of a year of lost calls (after npm run build: it runs dist/tars.cjs).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { openDataDir } from '../src/runtime';
import { silentLogger } from '../src/log';
import { buildDeps } from '../src/runtime';
import { LineReader } from '../src/modules/pbx-logs/line-reader';
import { callerOf } from '../src/access/caller';
import { queueStats } from '../src/modules/queue-reports/queue-stats.service';
import { agentAvailability } from '../src/modules/queue-reports/availability.service';
import { localDay, startOfDay } from '../src/time/zone';
import { boundedExport, supervisorReports } from './bench-supervisor';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: { reports: { type: 'string' }, 'queue-log': { type: 'boolean' }, cases: { type: 'string' }, export: { type: 'boolean' } },
});
const dir = resolve(positionals[0] ?? '.tmp/bench');
const root = resolve(import.meta.dirname, '..');
const TZ = 'America/Chicago';
const mb = (kb: number) => Math.round(kb / 1024);

if (!existsSync(join(dir, 'queue_log')))
  execFileSync(process.execPath, [join(root, 'scripts/gen-pbx-year.mjs'), dir], { stdio: 'inherit' });

async function importFloor(file: string): Promise<{ lines: number; seconds: number }> {
  const dataDir = mkdtempSync(join(dir, 'floor-'));
  const database = await openDataDir(dataDir);
  database.sqlite.pragma('synchronous = NORMAL');
  database.sqlite.pragma('cache_size = -65536');
  const insert = database.sqlite.prepare(
    'INSERT OR IGNORE INTO queue_events (queue_id, anchor, time, line_key, seq, event, callid, agent, wait_time, talk_time, ring_ms, pause_reason) VALUES (?, ?, ?, ?, ?, 0, ?, 0, 0, 0, 0, NULL)',
  );
  const reader = new LineReader(file);
  await reader.open();
  const started = performance.now();
  let n = 0;
  database.sqlite.exec('BEGIN');
  for (let lines = await reader.next(20_000, true); lines.length > 0; lines = await reader.next(20_000, true)) {
    for (const line of lines) {
      const f = line.split('|');
      const time = Number(f[0]);
      insert.run(Number(f[2]) - 499, time, time, ++n, n, f[1]);
    }
  }
  database.sqlite.exec('COMMIT');
  const seconds = (performance.now() - started) / 1000;
  await reader.close();
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });
  return { lines: n, seconds };
}

/** Runs the built CLI; its peak RSS comes from a preloaded module that reports it at exit. */
function cli(args: string[]): { seconds: number; peakMb: number; out: string } {
  const preload = join(dir, 'peak-rss.cjs');
  writeFileSync(preload, "process.on('exit', () => process.stderr.write(`PEAK_RSS_KB=${process.resourceUsage().maxRSS}\\n`));\n");
  const started = performance.now();
  const r = spawnSync(process.execPath, ['--require', preload, join(root, 'dist/tars.cjs'), ...args], { encoding: 'utf8' });
  const seconds = (performance.now() - started) / 1000;
  if (r.status !== 0) throw new Error(`tars ${args.join(' ')} failed: ${r.stderr}`);
  return { seconds, peakMb: mb(Number(/PEAK_RSS_KB=(\d+)/.exec(r.stderr)?.[1] ?? 0)), out: r.stdout.trim() };
}

const parse = (body: ArrayBuffer): unknown => JSON.parse(Buffer.from(body).toString('utf8'));

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

async function timeIt(run: () => Promise<unknown> | unknown): Promise<number> {
  for (let i = 0; i < 2; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  return Math.round(median(times) * 10) / 10;
}

const QUEUES = Array.from({ length: 20 }, (_, i) => i + 1).join(', ');
// The daily rows of the year straight from the rows the report reads (whole local days are stored).
const STATS_FLOOR = `
  SELECT queue_id, day_start, inbound, answered, talk, under30, wait_sum, wait_n, wait_min, wait_max, ring, abandons, abandons_u10,
    exit_timeout, exit_key, rna, rna_ms, cb_req, cb_ok, cb_fail, ob_total, ob_answered, ob_talk
  FROM queue_day_stats WHERE queue_id IN (${QUEUES}) AND day_start >= :s AND day_start < :e ORDER BY queue_id, day_start`;

const clip = 'sum(max(0, min(coalesce(end_at, :e), :e) - max(start_at, :s)))';
const AVAILABILITY_FLOOR = `
  SELECT 'member', agent, '', ${clip} FROM agent_sessions WHERE queue_id = 1 AND start_at < :e AND (end_at IS NULL OR end_at > :s) GROUP BY agent
  UNION ALL SELECT 'pause', agent, reason, ${clip} FROM agent_pauses WHERE queue_id = 1 AND start_at < :e AND (end_at IS NULL OR end_at > :s) GROUP BY agent, reason
  UNION ALL SELECT 'queue talk', agent, '', sum(talk) FROM agent_talk_hour
    WHERE queue_id IN (${QUEUES}) AND hour >= :s / 3600 AND hour < :e / 3600
      AND agent IN (SELECT agent FROM agent_sessions WHERE queue_id = 1 AND start_at < :e AND (end_at IS NULL OR end_at > :s)) GROUP BY agent
  UNION ALL SELECT 'other talk', agent, '', sum(billsec) FROM (
    SELECT id, src_agent AS agent, billsec FROM cdr_calls INDEXED BY cdr_calls_src_agent WHERE tenant_id = 1 AND start_at >= :s AND start_at < :e AND disposition = 'ANSWERED' AND via_queue = 0
      AND src_agent IN (SELECT agent FROM agent_sessions WHERE queue_id = 1 AND start_at < :e AND (end_at IS NULL OR end_at > :s))
    UNION SELECT id, dst_agent, billsec FROM cdr_calls INDEXED BY cdr_calls_dst_agent WHERE tenant_id = 1 AND start_at >= :s AND start_at < :e AND disposition = 'ANSWERED' AND via_queue = 0
      AND dst_agent IN (SELECT agent FROM agent_sessions WHERE queue_id = 1 AND start_at < :e AND (end_at IS NULL OR end_at > :s))
  ) GROUP BY agent`;

/** The app of a data directory listening on loopback, and a POST as user 1 that returns the whole response. */
async function served(dataDir: string) {
  const deps = await buildDeps(loadConfig({ TARS_LOG_LEVEL: 'silent' }, { 'data-dir': dataDir }), silentLogger);
  const server = createApp(deps).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const token = deps.tokens.issue({ uid: 1, ver: 0 });
  const post = async (path: string, body: unknown) => {
    const send = () =>
      fetch(url + path, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    // A kept-alive connection the server closed while the in-process runs were timed is reset on its first use: once more.
    const res = await send().catch(send);
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.arrayBuffer(); // the whole response received; parsing it is the client's work, not the server's
  };
  const user = await deps.database.db.selectFrom('users').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
  const caller = await callerOf(deps.database.db, user);
  const close = async () => {
    server.close();
    server.closeAllConnections();
    await deps.database.close();
  };
  return { deps, post, caller, close };
}

/** `--cases`: the supervisor reports whose name contains `text`, against their floors. */
async function someSupervisorReports(dataDir: string, text: string) {
  const { deps, post, caller, close } = await served(dataDir);
  const raw = new SqliteDatabase(join(dataDir, 'tars.db'), { readonly: true });
  const figures = await supervisorReports(deps, caller, raw, post, text);
  raw.close();
  await close();
  return figures;
}

async function reports(dataDir: string) {
  const { deps, post, caller, close } = await served(dataDir);
  const statsBody = {
    queueId: Array.from({ length: 20 }, (_, i) => i + 1),
    startDate: '2025-01-01',
    endDate: '2025-12-31',
    distribution: 'daily',
  };
  const availBody = { queueId: 1, startDate: '2025-06-01', endDate: '2025-06-30' };
  const raw = new SqliteDatabase(join(dataDir, 'tars.db'), { readonly: true });
  const statsFloor = raw.prepare(STATS_FLOOR);
  const availFloor = raw.prepare(AVAILABILITY_FLOOR);
  const year = {
    s: startOfDay(TZ, localDay(TZ, Date.parse('2025-01-01T12:00:00Z') / 1000)),
    e: startOfDay(TZ, localDay(TZ, Date.parse('2026-01-01T12:00:00Z') / 1000)),
  };
  const june = {
    s: startOfDay(TZ, localDay(TZ, Date.parse('2025-06-01T12:00:00Z') / 1000)),
    e: startOfDay(TZ, localDay(TZ, Date.parse('2025-07-01T12:00:00Z') / 1000)),
  };
  const result = {
    statsServiceMs: await timeIt(() => queueStats(deps, caller, statsBody as Parameters<typeof queueStats>[2])),
    availabilityServiceMs: await timeIt(() => agentAvailability(deps, caller, availBody)),
    statsRows: (parse(await post('/v2/reporting/queues/stats', statsBody)) as { results: unknown[] }).results.length,
    statsMs: await timeIt(() => post('/v2/reporting/queues/stats', statsBody)),
    statsFloorMs: await timeIt(() => statsFloor.all(year)),
    availabilityAgents: (parse(await post('/v2/reporting/queues/agent-availability', availBody)) as unknown[]).length,
    availabilityMs: await timeIt(() => post('/v2/reporting/queues/agent-availability', availBody)),
    availabilityFloorMs: await timeIt(() => availFloor.all(june)),
    supervisor: await supervisorReports(deps, caller, raw, post),
  };
  raw.close();
  await close();
  return result;
}

if (opts.reports && opts.export) {
  console.log(await boundedExport(root, resolve(opts.reports)));
  process.exit(0);
}
if (opts.reports && opts.cases !== undefined) {
  console.log(await someSupervisorReports(resolve(opts.reports), opts.cases));
  process.exit(0);
}
if (opts.reports) {
  console.log(await reports(resolve(opts.reports)));
  console.log(await boundedExport(root, resolve(opts.reports)));
  process.exit(0);
}
const floor = await importFloor(join(dir, 'queue_log'));
const dataDir = mkdtempSync(join(dir, 'data-'));
cli(['seed', join(dir, 'fixture.json'), '--data-dir', dataDir]);
const queueLog = cli(['import', 'queue-log', join(dir, 'queue_log'), '--data-dir', dataDir]);
if (opts['queue-log']) {
  const rate = Math.round(floor.lines / queueLog.seconds);
  const floorRate = Math.round(floor.lines / floor.seconds);
  console.log(`queue_log import: ${floor.lines} lines in ${queueLog.seconds.toFixed(1)} s = ${rate} lines/s, peak RSS ${queueLog.peakMb} MB
  floor: ${floorRate} lines/s; import/floor = ${(rate / floorRate).toFixed(2)}
  ${queueLog.out}`);
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
}
const cdr = cli(['import', 'cdr', join(dir, 'Master.csv'), '--data-dir', dataDir]);
const cdrRows = Number(/(\d+) lines read/.exec(cdr.out)?.[1]);
const r = await reports(dataDir);
const exported = await boundedExport(root, dataDir);
const results = {
  queueLog: {
    lines: floor.lines,
    seconds: queueLog.seconds,
    linesPerSecond: Math.round(floor.lines / queueLog.seconds),
    peakMb: queueLog.peakMb,
    summary: queueLog.out,
  },
  queueLogFloor: { seconds: floor.seconds, linesPerSecond: Math.round(floor.lines / floor.seconds) },
  cdr: { lines: cdrRows, seconds: cdr.seconds, linesPerSecond: Math.round(cdrRows / cdr.seconds), peakMb: cdr.peakMb, summary: cdr.out },
  reports: r,
  boundedExport: exported,
};
writeFileSync(join(dir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
const ratio = (a: number, b: number) => (a / b).toFixed(2);
console.log(`queue_log import: ${floor.lines} lines in ${queueLog.seconds.toFixed(1)} s = ${results.queueLog.linesPerSecond} lines/s, peak RSS ${queueLog.peakMb} MB
  floor (same rows, one statement, one transaction): ${results.queueLogFloor.linesPerSecond} lines/s; import/floor = ${ratio(results.queueLog.linesPerSecond, results.queueLogFloor.linesPerSecond)}
CDR import: ${cdrRows} lines in ${cdr.seconds.toFixed(1)} s = ${results.cdr.linesPerSecond} lines/s, peak RSS ${cdr.peakMb} MB
queues/stats, 20 queues, daily, 2025 (${r.statsRows} rows): HTTP ${r.statsMs} ms, in-process ${r.statsServiceMs} ms; floor ${r.statsFloorMs} ms; ratios ${ratio(r.statsMs, r.statsFloorMs)} and ${ratio(r.statsServiceMs, r.statsFloorMs)}
agent-availability, queue 1, June 2025 (${r.availabilityAgents} agents): HTTP ${r.availabilityMs} ms, in-process ${r.availabilityServiceMs} ms; floor ${r.availabilityFloorMs} ms; ratios ${ratio(r.availabilityMs, r.availabilityFloorMs)} and ${ratio(r.availabilityServiceMs, r.availabilityFloorMs)}
${Object.entries(r.supervisor)
  .map(
    ([name, f]) =>
      `${name} (${f.rows} rows): HTTP ${f.httpMs} ms, in-process ${f.serviceMs} ms; floor ${f.floorMs} ms; ratios ${ratio(f.httpMs, f.floorMs)} and ${ratio(f.serviceMs, f.floorMs)}`,
  )
  .join('\n')}
lost calls of 2025 exported under --max-old-space-size=${exported.heapMb}: ${JSON.stringify(exported)}
(written to ${join(dir, 'results.json')}; data directory ${dataDir})`);

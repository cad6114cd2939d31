// The call webhook events on SQLite (issue 32, step 4: the outbox moved from the raw better-sqlite3 connection to
// Kysely; docs/performance.md "Call webhook events"). Two measurements on generated PBX data
// (scripts/gen-pbx-year.mjs, --days 10 by default, kept under .tmp/bench-events):
// 1. `tars import queue-log … --emit-events` and `tars import cdr … --emit-events` with the built CLI
//    (dist/tars.cjs: run `node scripts/build.mjs` first) into a seeded data directory whose tenant has STARTCALL,
//    ENDCALL, NEWVOICEMAIL and QUEUEABANDONED webhooks: lines per second, and the deliveries written;
// 2. the live call events in-process (src/modules/pbx-logs/live-events.ts, what AMI's QueueCallerJoin and Cdr
//    events call): one queueJoined per ENTERQUEUE line, one amiCallEnded per Master.csv row (as AMI's Cdr event),
//    events per second.
// Written to run unchanged against the code before step 4 (whose live-event deps were { sqlite, clock }) and
// after it ({ db, clock }): the deps carry both, and each call is awaited. Usage:
//   npx tsx scripts/bench-call-events.ts [--days N] [--live N]
import { spawnSync, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { OPERATOR } from '../src/access/caller';
import { openDatabase } from '../src/db/database';
import { amiCallEnded, queueJoined, UTC_ZONE } from '../src/modules/pbx-logs/pbx-logs.service';
import { parseCdrLine } from '../src/modules/pbx-logs/cdr-line';
import { DATABASE_FILE } from '../src/runtime';

const { values: opts } = parseArgs({
  options: {
    days: { type: 'string', default: '10' },
    live: { type: 'string', default: '20000' },
    // Only the live call events, with the connection's synchronous=OFF: the code's own cost, without the fsync of
    // each event's commit (which is most of an event's time on this machine's disk, and varies with the neighbours').
    'live-only-no-fsync': { type: 'boolean' },
  },
});
const liveOnly = opts['live-only-no-fsync'] === true;
const root = resolve(import.meta.dirname, '..');
const dir = join(root, '.tmp', `bench-events-${opts.days}`);
if (!existsSync(join(dir, 'queue_log'))) {
  mkdirSync(dir, { recursive: true });
  execFileSync(process.execPath, [join(root, 'scripts/gen-pbx-year.mjs'), dir, '--days', String(opts.days)], { stdio: 'inherit' });
}
const lines = (file: string) =>
  readFileSync(join(dir, file), 'utf8')
    .split('\n')
    .filter((l) => l !== '');

function cli(args: string[]): number {
  const started = performance.now();
  const r = spawnSync(process.execPath, [join(root, 'dist/tars.cjs'), ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tars ${args.join(' ')} failed: ${r.stderr}`);
  return (performance.now() - started) / 1000;
}

/** A seeded data directory whose tenants have a webhook of each call event type. */
async function dataDir(): Promise<string> {
  const data = mkdtempSync(join(dir, 'data-'));
  cli(['seed', join(dir, 'fixture.json'), '--data-dir', data]);
  const database = openDatabase(join(data, DATABASE_FILE));
  const tenants = await database.db.selectFrom('tenants').select('id').execute();
  for (const { id } of tenants)
    for (const type of ['STARTCALL', 'ENDCALL', 'NEWVOICEMAIL', 'QUEUECALLABANDONED'])
      await database.db
        .insertInto('webhooks')
        .values({ tenant_id: id, type, url: 'https://hooks.example.test/in', secret: 'whsec_bench', created_at: new Date().toISOString() })
        .execute();
  await database.close();
  return data;
}

async function deliveriesIn(data: string): Promise<number> {
  const database = openDatabase(join(data, DATABASE_FILE));
  const { n } = await database.db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  await database.close();
  return Number(n);
}

// 1. the importer with --emit-events
const queueLog = lines('queue_log');
const master = lines('Master.csv');
const importData = await dataDir();
const qSeconds = liveOnly ? NaN : cli(['import', 'queue-log', join(dir, 'queue_log'), '--data-dir', importData, '--emit-events']);
const cSeconds = liveOnly ? NaN : cli(['import', 'cdr', join(dir, 'Master.csv'), '--data-dir', importData, '--emit-events']);
const imported = await deliveriesIn(importData);

// 2. the live call events, in-process
const liveData = await dataDir();
const database = openDatabase(join(liveData, DATABASE_FILE));
if (liveOnly) database.sqlite.pragma('synchronous = OFF');
const deps = { sqlite: database.sqlite, db: database.db, clock: { now: () => Date.now() } };
const n = Number(opts.live);
const joins = queueLog
  .map((l) => l.split('|'))
  .filter((f) => f[4] === 'ENTERQUEUE')
  .slice(0, n);
const pad = (v: number) => String(v).padStart(2, '0');
const amiTime = (s: number | null) => {
  if (s === null) return '';
  const d = new Date(s * 1000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
};
const cdrs = master
  .map((l) => parseCdrLine(l))
  .flatMap((r) => (typeof r === 'string' ? [] : [r]))
  .slice(0, n)
  .map((r, i) => ({
    Event: 'Cdr',
    Source: r.src,
    Destination: r.dst,
    CallerID: r.clid,
    Channel: r.channel,
    DestinationChannel: r.dstChannel,
    LastApplication: r.lastApp,
    LastData: r.lastData,
    StartTime: amiTime(r.start),
    AnswerTime: amiTime(r.answer),
    EndTime: amiTime(r.end),
    Duration: String(r.duration),
    BillableSeconds: String(r.billsec),
    Disposition: r.disposition,
    UniqueID: `${r.start}.${i}`,
  }));
const started = performance.now();
for (const f of joins)
  await queueJoined(deps as never, OPERATOR, {
    queueName: f[2] ?? '',
    callId: f[1] ?? '',
    callerIdNum: f[6] ?? '',
    occurredAt: new Date(Number(f[0]) * 1000).toISOString(),
  });
const joinSeconds = (performance.now() - started) / 1000;
const ended = performance.now();
for (const m of cdrs) await amiCallEnded(deps as never, OPERATOR, m, UTC_ZONE);
const cdrSeconds = (performance.now() - ended) / 1000;
await database.close();
const live = await deliveriesIn(liveData);
rmSync(importData, { recursive: true, force: true });
rmSync(liveData, { recursive: true, force: true });

const rate = (count: number, seconds: number) => Math.round(count / seconds).toLocaleString('en-US');
console.log(`import queue-log --emit-events: ${queueLog.length} lines in ${qSeconds.toFixed(2)} s = ${rate(queueLog.length, qSeconds)} lines/s
import cdr --emit-events: ${master.length} rows in ${cSeconds.toFixed(2)} s = ${rate(master.length, cSeconds)} rows/s; ${imported} deliveries written
live QueueCallerJoin: ${joins.length} in ${joinSeconds.toFixed(2)} s = ${rate(joins.length, joinSeconds)} events/s
live Cdr: ${cdrs.length} in ${cdrSeconds.toFixed(2)} s = ${rate(cdrs.length, cdrSeconds)} events/s; ${live} deliveries written`);

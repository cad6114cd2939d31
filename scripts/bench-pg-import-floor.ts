#!/usr/bin/env -S npx tsx
// The import floor on PostgreSQL (issue 32: "import on PostgreSQL ≥ 0.7 of a COPY floor"), and the fast paths
// the PostgreSQL importer could take, measured against it in one run:
//   npx tsx scripts/bench-pg-import-floor.ts [DIR] [--days 30] [--rounds 3] [--chunk 10000]
// 1. DIR/queue_log from scripts/gen-pbx-year.mjs (--days days of the simulated call centre; about 13,700 lines a
//    day) unless DIR already holds one (DIR default .tmp/bench-pg-import; .tmp/bench of `bench-reporting.ts`
//    holds a year);
// 2. a throw-away PostgreSQL cluster (test/helpers/postgres.ts) with fsync and synchronous commit on, and
//    queue_events made there by TARS's own migrations (its key and its unique (time, line_key) index, the
//    importer's idempotency key);
// 3. each variant reads the file with the importer's line reader, cuts each line with split() into the same
//    row (queue, time, call id; a line key and seq of their own, nothing else parsed or checked, as the
//    SQLite floor of bench-reporting.ts does), and stores chunks of --chunk lines, one transaction each:
//    - copy:        COPY queue_events FROM STDIN: the floor;
//    - staged:      COPY into a temporary table, then INSERT … SELECT … ON CONFLICT (time, line_key) DO NOTHING
//                   RETURNING seq: idempotent, and says which rows were new (what the importer needs);
//    - staged again: the same file once more into the filled table: every row a duplicate, nothing stored;
//    - copy if new: COPY straight into queue_events when every line of the chunk is newer than the newest stored
//                   line (none can be a duplicate then: the key begins with the time), else staged; importers
//                   take turns (an advisory lock) for this to hold;
//    - insert 64:   multi-row INSERT … ON CONFLICT DO NOTHING RETURNING seq, 64 rows a statement (prepared
//                   once), as the SQLite importer inserts;
//    - sqlite:      the SQLite floor (INSERT OR IGNORE, one prepared statement, same chunks) into TARS's schema;
// rounds alternate the variants; medians of rows per second, and the ratio of each to the COPY floor.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { LineReader } from '../src/modules/pbx-logs/line-reader';
import { openDataDir } from '../src/runtime';
import { startPostgres } from '../test/helpers/postgres';
import { openPostgres } from '../src/db/engine';
import { migrateToLatest } from '../src/db/migrate';
import { columnsOf, copyRows } from './pg-bench-kit';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    days: { type: 'string', default: '30' },
    rounds: { type: 'string', default: '3' },
    chunk: { type: 'string', default: '10000' },
  },
});
const root = resolve(import.meta.dirname, '..');
const dir = resolve(positionals[0] ?? join(root, '.tmp/bench-pg-import'));
const ROUNDS = Number(opts.rounds);
const CHUNK = Number(opts.chunk);
const PER_INSERT = 64;

mkdirSync(dir, { recursive: true });
const file = join(dir, 'queue_log');
if (!existsSync(file))
  execFileSync(process.execPath, [join(root, 'scripts/gen-pbx-year.mjs'), dir, '--days', String(opts.days)], { stdio: 'inherit' });

// TARS's queue_events as its migrations make it, to copy the shape from and for the SQLite floor.
const sqliteDir = mkdtempSync(join(dir, 'sqlite-'));
const database = await openDataDir(sqliteDir, () => undefined);
const { sqlite } = database;
sqlite.pragma('synchronous = NORMAL');
const COLUMNS = columnsOf(sqlite, 'queue_events');
const TIME = COLUMNS.indexOf('time');

/** The floor's row of a line, in COLUMNS order: queue, anchor = time, its own line key and seq, the call id. */
function rowOf(line: string, n: number): unknown[] {
  const f = line.split('|');
  const time = Number(f[0]);
  const named: Record<string, unknown> = {
    queue_id: Number(f[2]) - 499,
    anchor: time,
    time,
    line_key: n,
    seq: n,
    event: 0,
    callid: f[1] ?? '',
    agent: 0,
    wait_time: 0,
    talk_time: 0,
    ring_ms: 0,
    pause_reason: null,
    raw_agent: null,
  };
  return COLUMNS.map((c) => named[c] ?? null);
}

/** Reads the file in chunks of rows and hands each chunk to `store`; returns lines and seconds. */
async function timed(store: (rows: unknown[][]) => Promise<number> | number): Promise<{ lines: number; stored: number; seconds: number }> {
  const reader = new LineReader(file);
  await reader.open();
  const started = performance.now();
  let n = 0;
  let stored = 0;
  try {
    for (let lines = await reader.next(CHUNK, true); lines.length > 0; lines = await reader.next(CHUNK, true)) {
      const rows = lines.map((line) => rowOf(line, ++n));
      stored += await store(rows);
    }
  } finally {
    await reader.close();
  }
  return { lines: n, stored, seconds: (performance.now() - started) / 1000 };
}

const cluster = await startPostgres({ durable: true });
try {
  const url = await cluster.createDatabase('import_floor');
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined); // the cluster's stop ends it when a run failed; the run's error is the one to show
  await client.connect();
  const schema = openPostgres(url);
  await migrateToLatest(schema); // queue_events as TARS makes it on PostgreSQL: its key and its unique (time, line_key) index
  await schema.close();
  const cols = COLUMNS.join(', ');
  await client.query(`CREATE TEMP TABLE events_in (LIKE queue_events) ON COMMIT DELETE ROWS`);
  const insertMany = (k: number) =>
    `INSERT INTO queue_events (${cols}) VALUES ${Array.from({ length: k }, (_, r) => `(${COLUMNS.map((_, c) => `$${r * COLUMNS.length + c + 1}`).join(', ')})`).join(', ')} ON CONFLICT (time, line_key) DO NOTHING RETURNING seq`;
  const sqliteInsert = sqlite.prepare(`INSERT OR IGNORE INTO queue_events (${cols}) VALUES (${COLUMNS.map(() => '?').join(', ')})`);

  const empty = async () => {
    await client.query('TRUNCATE queue_events');
    sqlite.exec('DELETE FROM queue_events');
  };
  const held = async (name: string) =>
    name === 'sqlite'
      ? (sqlite.prepare('SELECT count(*) FROM queue_events').pluck().get() as number)
      : ((await client.query('SELECT count(*)::int AS n FROM queue_events')).rows[0] as { n: number }).n;
  const variants: Record<string, { fresh: boolean; store: (rows: unknown[][]) => Promise<number> | number }> = {
    copy: {
      fresh: true,
      store: async (rows) => {
        await client.query('BEGIN');
        await copyRows(client, 'queue_events', COLUMNS, rows);
        await client.query('COMMIT');
        return rows.length;
      },
    },
    staged: {
      fresh: true,
      store: async (rows) => {
        await client.query('BEGIN');
        await copyRows(client, 'events_in', COLUMNS, rows);
        const r = await client.query(
          `INSERT INTO queue_events (${cols}) SELECT ${cols} FROM events_in ON CONFLICT (time, line_key) DO NOTHING RETURNING seq`,
        );
        await client.query('COMMIT');
        return r.rowCount ?? 0;
      },
    },
    'staged again': { fresh: false, store: (rows) => variants.staged?.store(rows) ?? 0 },
    'copy if new': {
      fresh: true,
      store: async (rows) => {
        // A chunk whose every line is newer than every stored line cannot hold a duplicate (the key starts with
        // the time; a chunk's own keys are distinct): COPY it straight in. Otherwise the staged path.
        await client.query('BEGIN');
        const newest = ((await client.query('SELECT max(time) AS t FROM queue_events')).rows[0] as { t: string | null }).t;
        const oldest = rows.reduce((m, r) => Math.min(m, r[TIME] as number), Infinity);
        if (newest !== null && oldest <= Number(newest)) {
          await client.query('ROLLBACK');
          return (await variants.staged?.store(rows)) ?? 0;
        }
        await copyRows(client, 'queue_events', COLUMNS, rows);
        await client.query('COMMIT');
        return rows.length;
      },
    },
    'insert 64': {
      fresh: true,
      store: async (rows) => {
        await client.query('BEGIN');
        let stored = 0;
        for (let i = 0; i < rows.length; i += PER_INSERT) {
          const group = rows.slice(i, i + PER_INSERT);
          const name = group.length === PER_INSERT ? 'insert-64' : `insert-${group.length}`;
          const r = await client.query({ name, text: insertMany(group.length), values: group.flat() });
          stored += r.rowCount ?? 0;
        }
        await client.query('COMMIT');
        return stored;
      },
    },
    sqlite: {
      fresh: true,
      store: (rows) => {
        let stored = 0;
        sqlite.transaction(() => {
          for (const row of rows) stored += sqliteInsert.run(row).changes;
        })();
        return stored;
      },
    },
  };

  const runs: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  let lines = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, v] of Object.entries(variants)) {
      if (v.fresh) await empty();
      const r = await timed(v.store);
      lines = r.lines;
      const expected = name === 'staged again' ? 0 : r.lines;
      if (r.stored !== expected) throw new Error(`${name}: ${r.stored} rows stored of ${r.lines} lines, ${expected} expected`);
      // Every variant leaves one row per line in its table, whether it stored them now or a run before did.
      if ((await held(name)) !== r.lines)
        throw new Error(`${name}: the table holds ${await held(name)} rows after the run, ${r.lines} expected`);
      runs[name]?.push(Math.round(r.lines / r.seconds));
      console.log(`round ${round} ${name.padEnd(13)} ${Math.round(r.lines / r.seconds)} lines/s`);
    }
  }
  await client.end();

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  const floor = median(runs.copy ?? []);
  console.log(`\n${lines} queue_log lines, chunks of ${CHUNK}, PostgreSQL ${cluster.major} (fsync on), ${ROUNDS} rounds, medians:\n`);
  for (const [name, rates] of Object.entries(runs))
    console.log(`${name.padEnd(13)} ${String(median(rates)).padStart(9)} lines/s   ÷ COPY floor ${(median(rates) / floor).toFixed(2)}`);
} finally {
  await database.close();
  rmSync(sqliteDir, { recursive: true, force: true });
  await cluster.stop();
}

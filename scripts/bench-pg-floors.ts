#!/usr/bin/env -S npx tsx
// The HTTP floor on PostgreSQL beside the SQLite floor, in one run (issue 32, before the engine exists):
//   npm run build && npx tsx scripts/bench-pg-floors.ts [--duration 5] [--rounds 3] [--connections 50] [--pool 10]
// 1. a data directory as `npm run bench` makes it (scripts/http-bench-kit.ts: `tars serve --seed
//    test/fixtures/acme.json`, the sample PBX logs imported), then TARS stopped;
// 2. a throw-away PostgreSQL cluster (test/helpers/postgres.ts) with the five tables the floors read copied
//    into a fresh database (scripts/pg-bench-kit.ts);
// 3. three floors, each its own process, answering the three requests of `npm run bench`: scripts/bench-floor.mjs
//    (better-sqlite3), scripts/bench-floor-pg.mjs (pg, statements parsed per run as Kysely's driver sends them)
//    and the same with --prepared (named statements, prepared once per connection);
// 4. checks that the three give the same records, then loads each request on each floor in turn (autocannon,
//    `--connections`, rounds alternating the floors so that a neighbour's load hits them alike): medians of
//    requests per second, p50 and p99, and the ratios to the SQLite floor.
// 5. TARS itself on the same PostgreSQL database (`tars serve` with TARS_DATABASE_URL, the whole data directory
//    copied there by `tars db copy`'s code), loaded in the same rotation: its ratio to bench-floor-pg.mjs is the
//    issue's target (≥ 0.8), never a ratio to the SQLite floor.
// The floors say what PostgreSQL costs a request before any TARS code runs. Writes DIR/results-pg-floors.json.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import SqliteDatabase from 'better-sqlite3';
import jwt from 'jsonwebtoken';
import { startPostgres } from '../test/helpers/postgres';
import {
  ADMIN,
  cpuMs,
  median,
  importSampleLogs,
  MEASURED,
  newDataDir,
  startFloor,
  startScript,
  startTars,
  type BenchRequest,
  type Server,
} from './http-bench-kit';
import { copyToPostgres } from './pg-bench-kit';

const { values: opts } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    pool: { type: 'string', default: '10' },
  },
});
const DURATION = Number(opts.duration);
const ROUNDS = Number(opts.rounds);
const CONNECTIONS = Number(opts.connections);
const WARMUP = 3;
const TABLES = ['users', 'webhooks', 'phone_numbers', 'queues', 'queue_day_stats'];

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  /** CPU of the floor's process per request, µs (the PostgreSQL server's own CPU is not in it). */
  cpuUs: number;
}

const problems: string[] = [];

async function load(server: Server, t: BenchRequest, token: string, seconds: number): Promise<Measured> {
  const before = cpuMs(server.pid);
  const r = await autocannon({
    url: server.url + t.path,
    method: t.method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: t.body,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
  });
  const wrong = r.errors + r.timeouts + r.non2xx;
  if (wrong > 0) problems.push(`${t.name} on ${server.url}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`);
  const cpuUs = Math.round(((cpuMs(server.pid) - before) * 1000) / Math.max(1, r.requests.total));
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, cpuUs };
}

async function answer(server: Server, t: BenchRequest, token: string): Promise<string> {
  const res = await fetch(server.url + t.path, {
    method: t.method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: t.body,
  });
  if (res.status !== t.status) throw new Error(`${t.name} on ${server.url}: ${res.status} ${await res.text()}`);
  return JSON.stringify(await res.json());
}

// 1. the data directory
const dataDir = newDataDir('bench-pg');
const tars = await startTars(dataDir);
importSampleLogs(dataDir);
await tars.stop();

// 2. the same rows on PostgreSQL
const cluster = await startPostgres();
const servers: Server[] = [];
try {
  const url = await cluster.createDatabase('bench');
  const sqlite = new SqliteDatabase(join(dataDir, 'tars.db'), { readonly: true });
  const counts = await copyToPostgres(join(dataDir, 'tars.db'), url, TABLES);
  const admin = sqlite.prepare('SELECT id, token_version FROM users WHERE email = ?').get(ADMIN.email) as {
    id: number;
    token_version: number;
  };
  sqlite.close();
  console.log(
    `copied to PostgreSQL ${cluster.major}: ${Object.entries(counts)
      .map(([t, n]) => `${t} ${n}`)
      .join(', ')}`,
  );

  // 3. the floors, and a token of the fixture's account admin (tenant 1) signed with the data directory's secret
  const secret = readFileSync(join(dataDir, 'jwt-secret'), 'utf8').trim();
  const token = jwt.sign({ uid: admin.id, ver: admin.token_version }, secret, { algorithm: 'HS256', expiresIn: '2h' });
  const pgArgs = ['--database-url', url, '--data-dir', dataDir, '--pool', String(opts.pool)];
  const floors: Record<string, Server> = {
    sqlite: await startFloor(dataDir),
    pg: await startScript('bench-floor-pg.mjs', pgArgs, join(dataDir, 'floor-pg.log')),
    'pg prepared': await startScript('bench-floor-pg.mjs', [...pgArgs, '--prepared'], join(dataDir, 'floor-pg-prepared.log')),
    // The same secret as the floors', so the one token is good everywhere (on PostgreSQL it would otherwise be tars_settings').
    'tars pg': await startTars(newDataDir('bench-pg-tars'), { TARS_DATABASE_URL: url, TARS_JWT_SECRET: secret, TARS_LOG_LEVEL: 'warn' }),
  };
  servers.push(...Object.values(floors));

  // 4. the same answers from the floors (TARS answers each with its status; its statistics carry more fields), then the load
  const requests = Object.values(MEASURED) as BenchRequest[];
  for (const t of requests) {
    await answer(floors['tars pg'] as Server, t, token);
    const [first, ...rest] = await Promise.all(
      Object.entries(floors)
        .filter(([name]) => name !== 'tars pg')
        .map(([, f]) => answer(f, t, token)),
    );
    for (const other of rest)
      if (other !== first) throw new Error(`${t.name}: the floors disagree:\n  SQLite     ${first}\n  PostgreSQL ${other}`);
  }
  const results: Record<string, Record<string, Measured & { ratio: number }>> = {};
  for (const t of requests) {
    for (const f of Object.values(floors)) await load(f, t, token, WARMUP);
    const rounds: Record<string, Measured[]> = Object.fromEntries(Object.keys(floors).map((k) => [k, []]));
    for (let i = 0; i < ROUNDS; i++) for (const [name, f] of Object.entries(floors)) rounds[name]?.push(await load(f, t, token, DURATION));
    const medians = Object.fromEntries(
      Object.entries(rounds).map(([name, ms]) => [
        name,
        {
          rps: median(ms.map((m) => m.rps)),
          p50: median(ms.map((m) => m.p50)),
          p99: median(ms.map((m) => m.p99)),
          cpuUs: median(ms.map((m) => m.cpuUs)),
        },
      ]),
    );
    // Floors against the SQLite floor; TARS against the PostgreSQL floor of the same driver and queries.
    const baseOf = (name: string) => (name === 'tars pg' ? medians.pg?.rps : medians.sqlite?.rps) ?? 1;
    results[t.name] = Object.fromEntries(
      Object.entries(medians).map(([name, m]) => [name, { ...m, ratio: Math.round((m.rps / baseOf(name)) * 100) / 100 }]),
    );
  }

  const pad = (s: string | number, n: number) => String(s).padStart(n);
  console.log(
    `\n${CONNECTIONS} connections, loopback, pool of ${opts.pool}; ${ROUNDS} rounds of ${DURATION} s per floor, medians; ratio = req/s ÷ the SQLite floor's (tars pg: ÷ the pg floor's)\n`,
  );
  console.log(
    `${'request'.padEnd(40)} ${'floor'.padEnd(12)} ${pad('req/s', 7)} ${pad('p50', 4)} ${pad('p99', 4)} ${pad('µs/req', 7)} ${pad('ratio', 6)}`,
  );
  for (const [name, byFloor] of Object.entries(results))
    for (const [floor, m] of Object.entries(byFloor))
      console.log(
        `${name.padEnd(40)} ${floor.padEnd(12)} ${pad(m.rps, 7)} ${pad(m.p50, 4)} ${pad(m.p99, 4)} ${pad(m.cpuUs, 7)} ${pad(m.ratio.toFixed(2), 6)}`,
      );
  if (problems.length > 0) console.log(`\nproblems:\n  ${problems.join('\n  ')}`);
  writeFileSync(
    join(dataDir, 'results-pg-floors.json'),
    `${JSON.stringify({ postgres: cluster.major, connections: CONNECTIONS, pool: Number(opts.pool), results, problems }, null, 2)}\n`,
  );
  console.log(`\nresults in ${join(dataDir, 'results-pg-floors.json')}`);
} finally {
  await Promise.all(servers.map((s) => s.stop()));
  await cluster.stop();
}
process.exitCode = problems.length > 0 ? 1 : 0;

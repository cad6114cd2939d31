#!/usr/bin/env -S npx tsx
// Three TARS instances behind a round-robin proxy against one, on the same PostgreSQL database (issue 32):
//   npm run build && npx tsx scripts/bench-instances.ts [--duration 5] [--rounds 3] [--connections 50] [--instances 3]
// 1. a data directory as `npm run bench` makes it (the acme fixture, the sample PBX logs imported), copied into a
//    throw-away PostgreSQL cluster (test/helpers/postgres.ts) by TARS's migrations and `tars db copy`'s code;
// 2. N `tars serve` processes on that database, and two HAProxy processes (Debian's haproxy, the configuration
//    of scripts/haproxy.cfg with its servers replaced): one in front of the first instance only, one in front of all N;
// 3. the three requests of `npm run bench`, each loaded through each proxy in turn (autocannon, rounds
//    alternating): medians of requests per second, p50 and p99, and the CPU per request of TARS's processes and
//    of PostgreSQL's, from /proc. The scaling is req/s through N ÷ req/s through one.
// On a machine with few cores the instances, PostgreSQL, HAProxy and the load generator share them: the CPU per
// request says what N instances would give on a machine with a core for each. Writes DIR/results-instances.json.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import SqliteDatabase from 'better-sqlite3';
import jwt from 'jsonwebtoken';
import { startPostgres } from '../test/helpers/postgres';
import {
  ADMIN,
  cpuMs,
  importSampleLogs,
  median,
  MEASURED,
  newDataDir,
  ROOT,
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
    instances: { type: 'string', default: '3' },
  },
});
const DURATION = Number(opts.duration);
const ROUNDS = Number(opts.rounds);
const CONNECTIONS = Number(opts.connections);
const N = Number(opts.instances);
const WARMUP = 3;
const HAPROXY = existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : 'haproxy';

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** scripts/haproxy.cfg with its frontend on `port` and `backends` as its servers (no log: the proxy's own work only). */
function haproxyConfig(port: number, backends: readonly string[]): string {
  const text = readFileSync(join(ROOT, 'scripts/haproxy.cfg'), 'utf8')
    .split('\n')
    .filter((l) => !/^\s*server\s/.test(l) && !/^\s*log\s/.test(l) && !/option httplog/.test(l))
    .join('\n')
    .replace(/bind :8080/, `bind 127.0.0.1:${port}`);
  return `${text.trimEnd()}\n${backends.map((b, i) => `    server tars${i + 1} ${new URL(b).host}`).join('\n')}\n`;
}

async function startHaproxy(dir: string, name: string, backends: readonly string[]): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const file = join(dir, `haproxy-${name}.cfg`);
  writeFileSync(file, haproxyConfig(port, backends));
  const child = spawn(HAPROXY, ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`haproxy ${name} exited (${child.exitCode})`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return { url, child };
    if (i > 200) throw new Error(`haproxy ${name} did not answer`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** CPU milliseconds so far of every process of the PostgreSQL cluster whose postmaster is `pid`. */
function clusterCpuMs(postmaster: number): number {
  let total = cpuMs(postmaster);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === postmaster) total += cpuMs(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  }
  return total;
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  tarsUs: number;
  pgUs: number;
}

const problems: string[] = [];

async function load(url: string, t: BenchRequest, token: string, seconds: number, tars: Server[], postmaster: number): Promise<Measured> {
  const before = { tars: tars.reduce((a, s) => a + cpuMs(s.pid), 0), pg: clusterCpuMs(postmaster) };
  const r = await autocannon({
    url: url + t.path,
    method: t.method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: t.body,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
  });
  const wrong = r.errors + r.timeouts + r.non2xx;
  if (wrong > 0) problems.push(`${t.name} via ${url}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`);
  const per = (ms: number) => Math.round((ms * 1000) / Math.max(1, r.requests.total));
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    tarsUs: per(tars.reduce((a, s) => a + cpuMs(s.pid), 0) - before.tars),
    pgUs: per(clusterCpuMs(postmaster) - before.pg),
  };
}

// 1. the data, on PostgreSQL
const dataDir = newDataDir('bench-instances');
const seeded = await startTars(dataDir);
importSampleLogs(dataDir);
await seeded.stop();
const cluster = await startPostgres({ settings: { max_connections: 20 + N * 10 } });
const servers: Server[] = [];
const proxies: ChildProcess[] = [];
try {
  const url = await cluster.createDatabase('bench');
  await copyToPostgres(join(dataDir, 'tars.db'), url, []);
  const sqlite = new SqliteDatabase(join(dataDir, 'tars.db'), { readonly: true });
  const admin = sqlite.prepare('SELECT id, token_version FROM users WHERE email = ?').get(ADMIN.email) as {
    id: number;
    token_version: number;
  };
  sqlite.close();
  const secret = readFileSync(join(dataDir, 'jwt-secret'), 'utf8').trim();
  const token = jwt.sign({ uid: admin.id, ver: admin.token_version }, secret, { algorithm: 'HS256', expiresIn: '2h' });
  // The postmaster: the parent of the checkpointer, which lives as long as the cluster.
  const [checkpointer] = await cluster.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'`);
  const stat = readFileSync(`/proc/${checkpointer!.pid}/stat`, 'utf8');
  const postmaster = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);

  // 2. N instances and the two proxies
  for (let i = 0; i < N; i++)
    servers.push(
      await startTars(newDataDir(`bench-instance-${i + 1}`), { TARS_DATABASE_URL: url, TARS_JWT_SECRET: secret, TARS_LOG_LEVEL: 'warn' }),
    );
  const one = await startHaproxy(dataDir, 'one', [servers[0]!.url]);
  const all = await startHaproxy(
    dataDir,
    'all',
    servers.map((s) => s.url),
  );
  proxies.push(one.child, all.child);
  const fronts = { '1 instance': { url: one.url, tars: [servers[0]!] }, [`${N} instances`]: { url: all.url, tars: servers } };

  // 3. the load, alternating
  const results: Record<string, Record<string, Measured>> = {};
  for (const t of Object.values(MEASURED) as BenchRequest[]) {
    for (const f of Object.values(fronts)) await load(f.url, t, token, WARMUP, f.tars, postmaster);
    const rounds: Record<string, Measured[]> = Object.fromEntries(Object.keys(fronts).map((k) => [k, []]));
    for (let i = 0; i < ROUNDS; i++)
      for (const [name, f] of Object.entries(fronts)) rounds[name]?.push(await load(f.url, t, token, DURATION, f.tars, postmaster));
    results[t.name] = Object.fromEntries(
      Object.entries(rounds).map(([name, ms]) => [
        name,
        {
          rps: median(ms.map((m) => m.rps)),
          p50: median(ms.map((m) => m.p50)),
          p99: median(ms.map((m) => m.p99)),
          tarsUs: median(ms.map((m) => m.tarsUs)),
          pgUs: median(ms.map((m) => m.pgUs)),
        },
      ]),
    );
  }

  const pad = (v: string | number, n: number) => String(v).padStart(n);
  console.log(`\nPostgreSQL ${cluster.major}, ${CONNECTIONS} connections through HAProxy, ${ROUNDS} rounds of ${DURATION} s, medians\n`);
  console.log(
    `${'request'.padEnd(40)} ${'behind the proxy'.padEnd(16)} ${pad('req/s', 7)} ${pad('p50', 4)} ${pad('p99', 4)} ${pad('TARS µs/req', 12)} ${pad('PG µs/req', 10)}`,
  );
  for (const [name, by] of Object.entries(results)) {
    for (const [front, m] of Object.entries(by))
      console.log(
        `${name.padEnd(40)} ${front.padEnd(16)} ${pad(m.rps, 7)} ${pad(m.p50, 4)} ${pad(m.p99, 4)} ${pad(m.tarsUs, 12)} ${pad(m.pgUs, 10)}`,
      );
    const [a, b] = Object.values(by);
    console.log(`${''.padEnd(40)} scaling ${(b!.rps / a!.rps).toFixed(2)}×`);
  }
  if (problems.length > 0) console.log(`\nproblems:\n  ${problems.join('\n  ')}`);
  writeFileSync(
    join(dataDir, 'results-instances.json'),
    `${JSON.stringify({ postgres: cluster.major, instances: N, connections: CONNECTIONS, results, problems }, null, 2)}\n`,
  );
  console.log(`\nresults in ${join(dataDir, 'results-instances.json')}`);
} finally {
  for (const p of proxies) p.kill('SIGTERM');
  await Promise.all(servers.map((s) => s.stop()));
  await cluster.stop();
}
process.exitCode = problems.length > 0 ? 1 : 0;

// What the HTTP benchmark (scripts/bench-http.ts) and the soak (scripts/soak-http.ts) share: a data
// directory seeded with ../shared/fixtures/acme.json and the sample PBX logs imported, the real CLI
// (`node dist/tars.cjs serve`) and the floor app (scripts/bench-floor.mjs) each in its own child process,
// their resident memory read from /proc, and a login. Not runnable by itself.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

export const ROOT = resolve(import.meta.dirname, '..');
export const FIXTURES = resolve(ROOT, '../shared/fixtures');
const CLI = join(ROOT, 'dist/tars.cjs');

/** The fixture's account admin of tenant 1 (reaches its own tenant only): the caller of every measured request. */
export const ADMIN = { email: 'admin@acme.example', password: 'acme-admin-pass' } as const;
/** Another user of the fixture, for logins (its own throttle counters, never touched by a failure here). */
export const REPORTS_USER = { email: 'reports@acme.example', password: 'acme-reports-pass' } as const;

export interface Server {
  url: string;
  readonly pid: number;
  /** Log lines of level error (50) or fatal (60) the server wrote so far. */
  readonly errorLines: string[];
  /** Every log line so far (counted, not kept). */
  lines: number;
  stop(): Promise<void>;
}

/** A fresh data directory under .tmp/ (ignored by git). */
export function newDataDir(prefix: string): string {
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  return mkdtempSync(join(ROOT, '.tmp', `${prefix}-`));
}

/** Starts `cmd args` and resolves once it prints "listening on http://…"; its stdout is drained and its errors kept. */
function startChild(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Server> {
  const child: ChildProcess = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolveStart, reject) => {
    const exited = (code: number | null) => reject(new Error(`${args.join(' ')} exited (${code}) before listening: ${stderr}`));
    child.once('exit', exited);
    const server: Server = {
      url: '',
      pid: child.pid as number,
      errorLines: [],
      lines: 0,
      stop: () =>
        new Promise<void>((done) => {
          if (child.exitCode !== null) return done();
          child.once('exit', () => done());
          child.kill('SIGTERM');
        }),
    };
    createInterface({ input: child.stdout! }).on('line', (line) => {
      server.lines++;
      const m = /^listening on (http:\/\/\S+)$/.exec(line);
      if (m) {
        child.off('exit', exited);
        server.url = m[1] as string;
        resolveStart(server);
      } else if (/"level":(50|60)/.test(line)) {
        server.errorLines.push(line);
      }
    });
  });
}

/** The real CLI: `tars serve` on DIR, seeded with the fixture on first start; `nodeArgs` e.g. ['--cpu-prof']. */
export function startTars(dataDir: string, env: NodeJS.ProcessEnv = {}, nodeArgs: string[] = []): Promise<Server> {
  const seed = join(FIXTURES, 'acme.json');
  return startChild(process.execPath, [...nodeArgs, CLI, 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir, '--seed', seed], env);
}

/** The floor app (scripts/bench-floor.mjs) on the same data directory. */
export function startFloor(dataDir: string): Promise<Server> {
  return startChild(process.execPath, [join(ROOT, 'scripts/bench-floor.mjs'), '--data-dir', dataDir]);
}

/** Imports the sample queue_log and Master.csv (tenant 1's queues 1 and 2, 2026-10-31 … 11-02) with the CLI. */
export function importSampleLogs(dataDir: string): void {
  for (const [kind, file] of [['queue-log', 'queue_log.sample'], ['cdr', 'Master.csv.sample']] as const) {
    const r = spawnSync(process.execPath, [CLI, 'import', kind, join(FIXTURES, file), '--data-dir', dataDir], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tars import ${kind} failed: ${r.stderr}`);
  }
}

/** Resident memory of a process, in MB (Linux /proc). */
export function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
  return Math.round(kb / 102.4) / 10;
}

export async function login(url: string, who: { email: string; password: string }): Promise<string> {
  const res = await fetch(`${url}/v2/authentication/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(who) });
  if (res.status !== 201) throw new Error(`login of ${who.email}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { accessToken: string }).accessToken;
}

/** The queue statistics request measured: both sample queues, the three sample days, daily (6 rows). */
export const STATS_BODY = { queueId: [1, 2], startDate: '2026-10-31', endDate: '2026-11-02', distribution: 'daily' } as const;

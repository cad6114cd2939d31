// What the HTTP benchmark (scripts/bench-http.ts) and the soak (scripts/soak-http.ts) share: a data
// directory seeded with test/fixtures/acme.json and the sample PBX logs imported, the real CLI
// (`node dist/tars.cjs serve`, its log appended to DIR/tars.log) and the floor app (scripts/bench-floor.mjs)
// each in its own child process, their resident memory read from /proc, and a login. Not runnable by itself.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, fstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..');
export const FIXTURES = resolve(ROOT, 'test/fixtures');
const CLI = join(ROOT, 'dist/tars.cjs');

/** The fixture's account admin of tenant 1 (reaches its own tenant only): the caller of every measured request. */
export const ADMIN = { email: 'admin@acme.example', password: 'acme-admin-pass' } as const;
/** Another user of the fixture, for logins (its own throttle counters, never touched by a failure here). */
export const REPORTS_USER = { email: 'reports@acme.example', password: 'acme-reports-pass' } as const;

export interface Server {
  readonly url: string;
  readonly pid: number;
  /** The file its standard output goes to (for TARS: its JSON log). */
  readonly logFile: string;
  /** Log lines of level error (50) or fatal (60) in its log so far. */
  errorLines(): string[];
  /** How many lines its log has so far. */
  logLines(): number;
  stop(): Promise<void>;
}

/** A fresh data directory under .tmp/ (ignored by git). */
export function newDataDir(prefix: string): string {
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  return mkdtempSync(join(ROOT, '.tmp', `${prefix}-`));
}

/**
 * Starts `cmd args` with its standard output appended to `logFile` (as `tars serve >> tars.log` would: the
 * server writes its log without waiting for a reader, so the load generator's own work never slows its
 * logging) and resolves once the file says "listening on http://…".
 */
async function startChild(cmd: string, args: string[], logFile: string, env: NodeJS.ProcessEnv = {}): Promise<Server> {
  const out = openSync(logFile, 'a');
  const log = new LogScanner(logFile, fstatSync(out).size); // this process's lines only (the file may hold an earlier run's)
  const child: ChildProcess = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', out, 'pipe'] });
  closeSync(out);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited (${child.exitCode}) before listening: ${stderr}`);
    log.scan();
    if (log.url) {
      return {
        url: log.url,
        pid: child.pid as number,
        logFile,
        errorLines: () => log.scan().errors,
        logLines: () => log.scan().lines,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Reads a growing log file from where it stopped (first: from `offset`): counts its lines, keeps the error lines and the URL. */
class LogScanner {
  lines = 0;
  readonly errors: string[] = [];
  url: string | undefined;
  private partial = '';

  constructor(
    private readonly file: string,
    private offset: number,
  ) {}

  scan(): this {
    const fd = openSync(this.file, 'r');
    try {
      const buf = Buffer.alloc(1 << 20);
      for (let n = readSync(fd, buf, 0, buf.length, this.offset); n > 0; n = readSync(fd, buf, 0, buf.length, this.offset)) {
        this.offset += n;
        const parts = (this.partial + buf.toString('utf8', 0, n)).split('\n');
        this.partial = parts.pop() as string;
        for (const line of parts) this.take(line);
      }
    } finally {
      closeSync(fd);
    }
    return this;
  }

  private take(line: string): void {
    this.lines++;
    if (/"level":(50|60)/.test(line)) this.errors.push(line);
    this.url ??= /^listening on (http:\/\/\S+)$/.exec(line)?.[1];
  }
}

/**
 * The real CLI: `tars serve` on DIR, seeded with the fixture (default test/fixtures/acme.json) on first start;
 * `nodeArgs` e.g. ['--cpu-prof']; `wrapper` a command that runs node in the same process, e.g. ['valgrind', '--tool=callgrind'].
 */
export function startTars(
  dataDir: string,
  env: NodeJS.ProcessEnv = {},
  nodeArgs: string[] = [],
  wrapper: string[] = [],
  seed = join(FIXTURES, 'acme.json'),
): Promise<Server> {
  const args = [...nodeArgs, CLI, 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir, '--seed', seed];
  return startNode(wrapper, args, join(dataDir, 'tars.log'), env);
}

/** The floor app (scripts/bench-floor.mjs) on the same data directory (`wrapper` as for startTars). */
export function startFloor(dataDir: string, wrapper: string[] = []): Promise<Server> {
  return startNode(wrapper, [join(ROOT, 'scripts/bench-floor.mjs'), '--data-dir', dataDir], join(dataDir, 'floor.log'));
}

/** Another floor of scripts/ (a node script that prints "listening on http://…"), its output appended to `logFile`. */
export function startScript(script: string, args: string[], logFile: string): Promise<Server> {
  return startNode([], [join(ROOT, 'scripts', script), ...args], logFile);
}

function startNode(wrapper: string[], args: string[], logFile: string, env: NodeJS.ProcessEnv = {}): Promise<Server> {
  const [cmd, ...before] = [...wrapper, process.execPath];
  return startChild(cmd as string, [...before, ...args], logFile, env);
}

/** Imports the sample queue_log and Master.csv (tenant 1's queues 1 and 2, 2026-10-31 … 11-02) with the CLI. */
export function importSampleLogs(dataDir: string): void {
  for (const [kind, file] of [
    ['queue-log', 'queue_log.sample'],
    ['cdr', 'Master.csv.sample'],
  ] as const) {
    const r = spawnSync(process.execPath, [CLI, 'import', kind, join(FIXTURES, file), '--data-dir', dataDir], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tars import ${kind} failed: ${r.stderr}`);
  }
}

/** Resident memory of a process, in MB (Linux /proc). */
export function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
  return Math.round(kb / 102.4) / 10;
}

/** CPU time a process has used so far (user + system, all its threads), in ms (Linux /proc; 10 ms ticks). */
/** The middle value (the upper of the two middle ones for an even count): the figure of a benchmark's rounds. */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime (fields 14 and 15 of stat(5))
}

export async function login(url: string, who: { email: string; password: string }): Promise<string> {
  const res = await fetch(`${url}/v2/authentication/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(who),
  });
  if (res.status !== 201) throw new Error(`login of ${who.email}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { accessToken: string }).accessToken;
}

/** The queue statistics request measured: both sample queues, the three sample days, daily (6 rows). */
export const STATS_BODY = { queueId: [1, 2], startDate: '2026-10-31', endDate: '2026-11-02', distribution: 'daily' } as const;

/** A request a benchmark sends, and the status it must answer. */
export interface BenchRequest {
  readonly name: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: string;
  readonly status: number;
}

/** The three requests npm run bench measures against the floor (and scripts/bench-instructions.ts counts). */
export const MEASURED = {
  webhook: { name: 'GET /v2/webhooks/{id}', method: 'GET', path: '/v2/webhooks/1', status: 200 },
  list: { name: 'GET /v2/admin/phone-numbers/?tenantId=', method: 'GET', path: '/v2/admin/phone-numbers/?tenantId=1', status: 200 },
  stats: {
    name: 'POST /v2/reporting/queues/stats',
    method: 'POST',
    path: '/v2/reporting/queues/stats',
    body: JSON.stringify(STATS_BODY),
    status: 201,
  },
} as const satisfies Record<string, BenchRequest>;

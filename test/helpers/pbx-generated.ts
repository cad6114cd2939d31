import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { send } from './app';
import { runTars } from './cli';

const GENERATOR = fileURLToPath(new URL('../../scripts/gen-pbx-year.mjs', import.meta.url));

export interface GeneratedPbx {
  fixture: string;
  queueLog: string;
  cdr: string;
  queues: number[];
  /** The fixture's one user, a platform administrator. */
  login: { email: string; password: string };
}

/** Generated PBX logs (scripts/gen-pbx-year.mjs, deterministic) of a tenant starting 2025-01-01. */
export function generatePbxData(dir: string, args: string[]): GeneratedPbx {
  const gen = spawnSync(process.execPath, [GENERATOR, dir, ...args], { encoding: 'utf8' });
  if (gen.status !== 0) throw new Error(`gen-pbx-year failed: ${gen.stderr}`);
  const queues = Number(args[args.indexOf('--queues') + 1]);
  return {
    fixture: join(dir, 'fixture.json'),
    queueLog: join(dir, 'queue_log'),
    cdr: join(dir, 'Master.csv'),
    queues: Array.from({ length: queues }, (_, i) => i + 1),
    login: { email: 'admin@bench.example', password: 'benchmark-password' },
  };
}

export interface ImportTotals {
  read: number;
  imported: number;
  duplicates: number;
  skipped: number;
}

/** Runs `tars import KIND FILE` to its end and returns the totals of its summary line. */
export async function importSummary(file: string, dataDir: string, kind: 'queue-log' | 'cdr'): Promise<ImportTotals> {
  const run = await runTars(['import', kind, file, '--data-dir', dataDir], { timeoutMs: 120_000 });
  const m = /(\d+) lines read, (\d+) imported, (\d+) duplicates, (\d+) skipped/.exec(run.stdout);
  if (run.code !== 0 || !m) throw new Error(`tars import ${kind} exited with ${run.code}: ${run.stdout}${run.stderr}`);
  const [read, imported, duplicates, skipped] = m.slice(1).map(Number) as [number, number, number, number];
  return { read, imported, duplicates, skipped };
}

/** The daily queue statistics of every generated queue over its whole first year, as the server reports them. */
export async function queueStats(url: string, gen: Pick<GeneratedPbx, 'login' | 'queues'>): Promise<unknown> {
  const login = await send(url, 'POST', '/v2/authentication/', { body: gen.login });
  const body = { queueId: gen.queues, startDate: '2025-01-01', endDate: '2025-12-31', distribution: 'daily' };
  const res = await send(url, 'POST', '/v2/reporting/queues/stats', { token: login.body.accessToken, body });
  if (res.status !== 201) throw new Error(`queue stats: ${res.status} ${res.text}`);
  return res.body;
}

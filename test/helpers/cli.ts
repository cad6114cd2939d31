import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * How the e2e tests run the program: `node dist/tars.cjs` by default (what `npx tars` runs), or the
 * standalone executable when TARS_E2E_BIN names it (npm run test:binary).
 */
export function tarsCommand(): { file: string; args: string[] } {
  const bin = process.env.TARS_E2E_BIN;
  if (bin) return { file: resolve(bin), args: [] };
  return { file: process.execPath, args: [resolve('dist/tars.cjs')] };
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  /** A bundle to run with node instead of the program tarsCommand() names (a benchmark's copy of dist/tars.cjs). */
  program?: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
}

/** The environment of a child: ours without any TARS_* setting, in TZ UTC (the PBX's zone by default), plus `env`. */
function childEnv(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TARS_')) base[k] = v;
  return { ...base, TZ: 'UTC', ...env };
}

export function runTars(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const { file, args: pre } = tarsCommand();
  return new Promise((done, fail) => {
    const child = spawn(file, [...pre, ...args], { cwd: opts.cwd, env: childEnv(opts.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

export interface RunningServer {
  readonly url: string;
  readonly child: ChildProcess;
  output(): string;
  /** SIGTERM, then the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `tars serve ARGS` and waits for its "listening on http://…" line. */
export function startServe(args: string[], opts: RunOptions = {}): Promise<RunningServer> {
  const { file, args: pre } = opts.program ? { file: process.execPath, args: [opts.program] } : tarsCommand();
  const child = spawn(file, [...pre, 'serve', '--port', '0', '--host', '127.0.0.1', ...args], {
    cwd: opts.cwd,
    env: childEnv(opts.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return new Promise((resolveStart, rejectStart) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rejectStart(new Error(`no "listening on" line within 20 s:\n${out}`));
    }, opts.timeoutMs ?? 20_000);
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /listening on (https?:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveStart({
          url: m[1] as string,
          child,
          output: () => out,
          async stop(signal = 'SIGTERM') {
            if (child.exitCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      rejectStart(new Error(`tars serve exited with ${code} before listening:\n${out}`));
    });
  });
}

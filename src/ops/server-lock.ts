import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Written into the data directory by `tars serve` while it runs; `tars restore` refuses to run while it is live. */
export const LOCK_FILE = 'server.lock';

export interface LockInfo {
  readonly pid: number;
  /** The kernel's boot id and the process's start time (clock ticks since boot): a pid alone can be reused. */
  readonly bootId?: string;
  readonly start?: string;
  readonly startedAt: string;
}

export interface ServerLock {
  release(): void;
}

export class DataDirBusyError extends Error {}

/**
 * Marks the data directory as served by this process. A lock left by a server that crashed (its process is
 * gone, or the pid now belongs to another process, or the machine rebooted since) is stale and replaced, so
 * a crash never blocks the next start or a restore. Two servers on one data directory are refused.
 */
export function lockDataDir(dataDir: string): ServerLock {
  const file = join(dataDir, LOCK_FILE);
  const mine: LockInfo = { pid: process.pid, bootId: bootId(), start: processStart(process.pid), startedAt: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, `${JSON.stringify(mine)}\n`, { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      const other = runningServer(dataDir);
      if (other)
        throw new DataDirBusyError(`a TARS server (pid ${other.pid}, started ${other.startedAt}) is already running on ${dataDir}`);
      rmSync(file, { force: true }); // stale
    }
  }
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      if (readLock(file)?.pid === process.pid) rmSync(file, { force: true });
    },
  };
}

/** The server running on this data directory, if any (a stale lock does not count). */
export function runningServer(dataDir: string): LockInfo | undefined {
  const info = readLock(join(dataDir, LOCK_FILE));
  return info && isAlive(info) ? info : undefined;
}

function readLock(file: string): LockInfo | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const info = JSON.parse(text) as LockInfo;
    return Number.isSafeInteger(info.pid) && info.pid > 0 ? info : undefined;
  } catch {
    return undefined; // half-written or garbage: nobody can be holding it in a meaningful way
  }
}

function isAlive(info: LockInfo): boolean {
  if (info.pid === process.pid) return false;
  if (info.bootId && bootId() && info.bootId !== bootId()) return false;
  try {
    process.kill(info.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false; // EPERM: it exists, as another user
  }
  const start = processStart(info.pid);
  return !(info.start && start && info.start !== start);
}

function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return undefined; // not Linux: the pid check alone
  }
}

/** Field 22 of /proc/PID/stat (after the command name, which may itself hold spaces and parentheses). */
function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

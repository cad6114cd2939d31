import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { diskSpaceFinding, MIN_FREE_BYTES } from '../../src/ops/check';
import { DataDirBusyError, LOCK_FILE, lockDataDir, runningServer } from '../../src/ops/server-lock';

const GiB = 1024 ** 3;

describe('operations: disk space and the data directory lock', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tars-ops-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('when free space is under 1 GiB, or under twice the database, then it is a problem', () => {
    expect(diskSpaceFinding(MIN_FREE_BYTES - 1, 0).ok).to.equal(false);
    expect(diskSpaceFinding(5 * GiB, 0)).to.deep.equal({
      ok: true,
      what: 'disk space',
      detail: '5.00 GiB free where the data directory is (database 0.00 GiB)',
    });
    expect(diskSpaceFinding(5 * GiB, 3 * GiB)).to.deep.equal({
      ok: false,
      what: 'disk space',
      detail: '5.00 GiB free where the data directory is (database 3.00 GiB); keep at least 6.00 GiB free',
    });
  });

  it('when this process locks a data directory, then the lock names it, a second lock is refused, and release removes it', () => {
    const lock = lockDataDir(dir);
    const info = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'));
    expect(info.pid).to.equal(process.pid);
    // runningServer() ignores our own pid (a restore is never run by the server itself); another process sees it live:
    const seen = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import('./src/ops/server-lock.ts').then((m) => console.log(JSON.stringify(m.runningServer(${JSON.stringify(dir)}) ?? null)))`,
      ],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(seen.stdout).pid, seen.stderr).to.equal(process.pid);
    lock.release();
    expect(runningServer(dir)).to.equal(undefined);
    expect(() => readFileSync(join(dir, LOCK_FILE))).to.throw(/ENOENT/);
  });

  it('when a lock was left by a process that is gone, by another boot, or is garbage, then it is stale: it neither counts nor blocks', () => {
    const gone = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    const deadPid = Number(gone.stdout.trim());
    const stale = [
      { pid: deadPid, startedAt: '2026-01-01T00:00:00.000Z' },
      { pid: 1, bootId: 'another-boot', start: '1', startedAt: '2026-01-01T00:00:00.000Z' },
      { pid: 1, start: 'not-its-start-time', startedAt: '2026-01-01T00:00:00.000Z' },
    ];
    for (const info of [...stale.map((s) => JSON.stringify(s)), '{"pid":', '']) {
      writeFileSync(join(dir, LOCK_FILE), info);
      expect(runningServer(dir), info).to.equal(undefined);
      lockDataDir(dir).release();
    }
  });

  it('when another live process holds the lock, then locking is refused with its pid', () => {
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: 1, startedAt: '2026-01-01T00:00:00.000Z' }));
    expect(runningServer(dir)?.pid).to.equal(1);
    expect(() => lockDataDir(dir)).to.throw(
      DataDirBusyError,
      /a TARS server \(pid 1, started 2026-01-01T00:00:00.000Z\) is already running/,
    );
  });
});

import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Set to 1 on a machine where a test may not mount a filesystem (not root, no CAP_SYS_ADMIN). */
export const NO_MOUNT_VARIABLE = 'TARS_TEST_NO_MOUNT';

export interface SmallDisk {
  readonly path: string;
  /** Writes a file of `bytes`, or until the filesystem is full (ENOSPC); returns the bytes written. */
  fill(bytes?: number): number;
  /** Removes the file fill() wrote. */
  free(): void;
  unmount(): void;
}

const mount = (args: string[]) => spawnSync(args[0] as string, args.slice(1), { encoding: 'utf8' });

/**
 * A tmpfs of `megabytes` mounted on a new temporary directory: a disk that really fills up. Needs root
 * (CI runs as root); elsewhere it throws a message that says so, naming the variable that declares the
 * machine unable.
 */
export function mountSmallDisk(megabytes: number): SmallDisk {
  const path = mkdtempSync(join(tmpdir(), 'tars-small-disk-'));
  const mounted = mount(['mount', '-t', 'tmpfs', '-o', `size=${megabytes}m,mode=0700`, 'tars-test', path]);
  if (mounted.status !== 0) {
    rmdirSync(path);
    throw new Error(
      `the full-disk test mounts a ${megabytes} MiB tmpfs and could not (it needs root): ${(mounted.stderr || mounted.error?.message || '').trim().split('\n')[0]}. ` +
        `On a machine that cannot mount filesystems, run the tests with ${NO_MOUNT_VARIABLE}=1 to leave it out knowingly.`,
    );
  }
  const filler = join(path, 'filler');
  return {
    path,
    fill(bytes = Infinity) {
      const fd = openSync(filler, 'a');
      let written = 0;
      try {
        for (const size of [1 << 20, 1 << 12, 1]) {
          const block = Buffer.alloc(size, 0x5a);
          while (written + size <= bytes) {
            try {
              written += writeSync(fd, block);
            } catch (err) {
              if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
              throw err;
            }
          }
        }
      } finally {
        closeSync(fd);
      }
      return written;
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      const done = mount(['umount', path]);
      if (done.status !== 0) mount(['umount', '-l', path]);
      rmdirSync(path);
    },
  };
}

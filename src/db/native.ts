import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import sea from 'node:sea';

/** The name under which scripts/build-binary.mjs embeds better-sqlite3's addon into the executable, and its SHA-256 (hex). */
export const ADDON_ASSET = 'better_sqlite3.node';
export const ADDON_HASH_ASSET = 'better_sqlite3.node.sha256';

let cached: object | undefined;

/**
 * better-sqlite3's `nativeBinding` option. From node_modules (development, tests, npm start) it is undefined
 * and better-sqlite3 finds its addon itself. Inside the standalone executable (Node's single executable
 * application) `require` reaches only built-ins, so the addon travels as an asset: it is written to a
 * per-user cache directory, named by its hash (computed at build time; hashing it at every start took 3 ms),
 * written to a temporary name and renamed, so concurrent starts never see half a file; an existing file is
 * loaded only when its bytes are the asset's. It is loaded with process.dlopen and handed over as the
 * loaded module (better-sqlite3 accepts an object).
 */
export function nativeBinding(): object | undefined {
  if (!sea.isSea()) return undefined;
  if (cached) return cached;
  const bytes = Buffer.from(sea.getAsset(ADDON_ASSET));
  const hash = sea.getAsset(ADDON_HASH_ASSET, 'utf8').trim();
  const file = writeOnce(bytes, `better_sqlite3-${hash.slice(0, 16)}.node`);
  const module = { exports: {} as object };
  process.dlopen(module, file);
  cached = module.exports;
  return cached;
}

function cacheDirs(): string[] {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const dirs = [process.env.TARS_CACHE_DIR, process.env.XDG_CACHE_HOME && join(process.env.XDG_CACHE_HOME, 'tars')];
  try {
    dirs.push(join(homedir(), '.cache', 'tars'));
  } catch {
    /* no home directory (e.g. a service user): use the fallback */
  }
  dirs.push(join(tmpdir(), `tars-cache-${uid}`));
  return dirs.filter((d): d is string => Boolean(d));
}

function writeOnce(bytes: Buffer, name: string): string {
  const problems: string[] = [];
  for (const dir of cacheDirs()) {
    const file = join(dir, name);
    try {
      if (readFileSync(file).equals(bytes)) return file;
    } catch {
      /* not there yet */
    }
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const partial = `${file}.${process.pid}.tmp`;
      writeFileSync(partial, bytes, { mode: 0o500 });
      renameSync(partial, file);
      return file;
    } catch (err) {
      problems.push(`${dir}: ${(err as Error).message}`);
    }
  }
  throw new Error(`cannot write the SQLite addon to a cache directory (set TARS_CACHE_DIR):\n  ${problems.join('\n  ')}`);
}

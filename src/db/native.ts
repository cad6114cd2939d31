import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import sea from 'node:sea';

/** The name under which scripts/build-binary.mjs embeds better-sqlite3's addon into the executable. */
export const ADDON_ASSET = 'better_sqlite3.node';

let cached: object | undefined;

/**
 * better-sqlite3's `nativeBinding` option. From node_modules (development, tests, npm start) it is undefined
 * and better-sqlite3 finds its addon itself. Inside the standalone executable (Node's single executable
 * application) `require` reaches only built-ins, so the addon travels as an asset: it is written once to a
 * per-user cache directory, named by its hash (atomic rename, so concurrent starts never see half a file),
 * loaded with process.dlopen and handed over as the loaded module (better-sqlite3 accepts an object).
 */
export function nativeBinding(): object | undefined {
  if (!sea.isSea()) return undefined;
  if (cached) return cached;
  const bytes = Buffer.from(sea.getAsset(ADDON_ASSET));
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const dir = join(process.env.XDG_CACHE_HOME || (homedir() ? join(homedir(), '.cache') : tmpdir()), 'tars');
  const file = join(dir, `better_sqlite3-${hash}.node`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, bytes, { mode: 0o500 });
    renameSync(partial, file);
  }
  const module = { exports: {} as object };
  process.dlopen(module, file);
  cached = module.exports;
  return cached;
}

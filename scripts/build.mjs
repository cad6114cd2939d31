#!/usr/bin/env node
// Bundles the program into dist/tars.cjs (the package's `tars` bin) with esbuild, in about a second, after the
// console's files (scripts/build-console.mjs → dist/console/).
// Type checking is separate (npm run typecheck), so a build never waits for it.
//   node scripts/build.mjs
// better-sqlite3 stays external here (loaded from node_modules with its addon); scripts/build-binary.mjs
// reuses bundle() with everything inside for the standalone executable.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { buildConsole } from './build-console.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** esbuild options shared by the development bundle and the executable. */
export function bundleOptions({ outfile, external = [], alias = {} }) {
  return {
    absWorkingDir: root,
    entryPoints: ['src/cli.ts'],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: false,
    legalComments: 'none',
    minifyWhitespace: true,
    logLevel: 'warning',
    external,
    // Some dependencies ship ESM that reads import.meta.url (node-cron 4); in a CommonJS bundle it becomes
    // the bundle's own file URL.
    define: { 'import.meta.url': '__tarsImportMetaUrl' },
    banner: { js: "#!/usr/bin/env node\nconst __tarsImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
    // debug's optional colour support: absent on purpose; alias it away so the bundle does not warn.
    alias: { 'supports-color': './scripts/empty-module.cjs', ...alias },
  };
}

export async function bundle(opts) {
  execFileSync(process.execPath, [`${root}scripts/gen-schema-index.mjs`], { stdio: 'inherit' });
  // The console's files (dist/console), which the server serves from beside its bundle (or, in the executable, as assets).
  await buildConsole();
  execFileSync(process.execPath, ['--import', 'tsx', `${root}scripts/gen-validators.ts`], { stdio: 'inherit', cwd: root });
  mkdirSync(`${root}dist`, { recursive: true });
  await esbuild.build(bundleOptions(opts));
  chmodSync(`${root}${opts.outfile}`, 0o755);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await bundle({ outfile: 'dist/tars.cjs', external: ['better-sqlite3'] });
}

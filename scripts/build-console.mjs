#!/usr/bin/env node
// Builds the console (src/console, Preact + signals, TSX) into dist/console/ with esbuild, in well under a second:
//   dist/console/index.html             the one page (no inline script or style: the CSP forbids them)
//   dist/console/assets/app-<hash>.js   the code (ES modules, split: a screen imported with import() is its own chunk)
//   dist/console/assets/app-<hash>.css  the styles
//   dist/console/assets/…               the favicon and any file the code imports
//   dist/console/manifest.json          every file above, for the server (src/modules/console/console-assets.ts)
// and beside each file its Brotli (.br) and gzip (.gz) forms, made here once so the server never compresses.
// Hashed names never change content, so the server lets browsers keep them a year; index.html is revalidated.
//   node scripts/build-console.mjs        (scripts/build.mjs runs it before bundling the server)
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The browsers the console supports: those that send Sec-Fetch-Site (the session cookie's origin check relies on it). */
export const CONSOLE_TARGETS = ['chrome80', 'edge80', 'firefox90', 'safari16.4'];

const hash8 = (data) => createHash('sha256').update(data).digest('base64url').slice(0, 10);

/**
 * The console's one page. Its #app holds a line of text until the script draws the screen over it: the browser paints
 * that as soon as the page and its style sheet are in, where an empty #app painted nothing until the scripts had
 * loaded and run (the sign-in's first paint was 1.9x a static page's; docs/performance.md, "The console").
 */
function page({ script, style, icon, preload }) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>TARS</title>
<link rel="icon" href="/${icon}" type="image/svg+xml">
<link rel="stylesheet" href="/${style}">
${preload.map((p) => `<link rel="modulepreload" href="/${p}">`).join('\n')}
<script type="module" src="/${script}"></script>
</head>
<body>
<div id="app"><p class="loading">Loading the console…</p></div>
<noscript><p>The TARS console needs JavaScript. The API works without it: see /docs.</p></noscript>
</body>
</html>
`;
}

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir) {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => statSync(join(dir, f)).isFile());
}

export async function buildConsole(outdir = join(root, 'dist', 'console')) {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(join(outdir, 'assets'), { recursive: true });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { app: 'src/console/main.tsx' },
    outdir: join(outdir, 'assets'),
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: CONSOLE_TARGETS,
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    loader: { '.svg': 'file' },
    define: { 'process.env.NODE_ENV': '"production"' },
    metafile: true,
    logLevel: 'warning',
  });
  const outputs = Object.entries(result.metafile.outputs).map(([file, out]) => ({ file: relative(outdir, join(root, file)), out }));
  const entry = outputs.find((o) => o.out.entryPoint === 'src/console/main.tsx' && o.file.endsWith('.js'));
  if (!entry) throw new Error('the console build made no entry script');
  const style = entry.out.cssBundle ? relative(outdir, join(root, entry.out.cssBundle)) : undefined;
  if (!style) throw new Error('the console build made no style sheet');
  const icon = readFileSync(join(root, 'src/console/favicon.svg'));
  const iconFile = `assets/favicon-${hash8(icon)}.svg`;
  writeFileSync(join(outdir, iconFile), icon);
  // The chunks the entry imports statically load in parallel with it rather than after it.
  const preload = entry.out.imports.filter((i) => i.kind === 'import-statement').map((i) => relative(outdir, join(root, i.path)));
  writeFileSync(join(outdir, 'index.html'), page({ script: entry.file, style, icon: iconFile, preload }));
  const files = filesUnder(outdir).sort();
  for (const f of files) {
    const data = readFileSync(join(outdir, f));
    writeFileSync(join(outdir, `${f}.br`), brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
    writeFileSync(join(outdir, `${f}.gz`), gzipSync(data, { level: 9 }));
  }
  writeFileSync(join(outdir, 'manifest.json'), `${JSON.stringify({ files, encodings: ['br', 'gz'] }, null, 2)}\n`);
  return { outdir, files: [...files, ...files.flatMap((f) => [`${f}.br`, `${f}.gz`]), 'manifest.json'] };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { outdir, files } = await buildConsole();
  console.log(`${relative(root, outdir)}: ${files.length} files`);
}

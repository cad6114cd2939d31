// A cycle rule that counts type-only imports too. import-x/no-cycle (also on) skips them by design, but the
// layers of docs/architecture.md are about which file knows which, and `import type` is knowing: two files that
// import each other's types are one unit that cannot be moved or read apart. Hand-written because no maintained
// ESLint rule has this option; the import graph comes from TypeScript's own pre-processor.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

const EXTENSIONS = ['.ts', '.d.cts', '.js', '.cjs', '.mjs', '.json', '/index.ts'];

/** The relative imports of a file (type-only ones included), resolved to files. */
function importsOf(file) {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const out = [];
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const base = resolve(dirname(file), fileName);
    const found = [base, ...EXTENSIONS.map((e) => base + e)].find((f) => existsSync(f) && statSync(f).isFile());
    if (found) out.push(found);
  }
  return out;
}

/** The cycle through `file` (a list of files ending where it starts), if there is one; the graph is read as it is found. */
function cycleThrough(file, edges) {
  const seen = new Set([file]);
  const queue = [[file, [file]]];
  while (queue.length > 0) {
    const [at, path] = queue.shift();
    if (!edges.has(at)) edges.set(at, at.endsWith('.ts') ? importsOf(at) : []);
    for (const next of edges.get(at)) {
      if (next === file) return [...path, file];
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push([next, [...path, next]]);
    }
  }
  return undefined;
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import cycles, type-only imports included' },
    schema: [],
    messages: { cycle: 'Import cycle (type imports included): {{cycle}}' },
  },
  create(context) {
    return {
      Program(node) {
        const file = context.physicalFilename;
        const cycle = cycleThrough(file, new Map());
        if (cycle) {
          const root = context.cwd;
          context.report({ node, messageId: 'cycle', data: { cycle: cycle.map((f) => relative(root, f)).join(' → ') } });
        }
      },
    };
  },
};

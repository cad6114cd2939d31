// Stands in for better-sqlite3's lib/binding.js inside the floor's executable (scripts/bench-startup.ts): SEA's
// `require` reaches only built-ins, so better-sqlite3's addon travels as an asset, written once to a
// temporary file and loaded from there, as src/db/native.ts does for TARS.
const { existsSync, statSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const sea = require('node:sea');

const name = 'better_sqlite3.node';

exports.getBinding = function getBinding() {
  const bytes = Buffer.from(sea.getAsset(name));
  const file = join(tmpdir(), `tars-floor-${process.getuid()}-${bytes.length}-${name}`);
  if (!existsSync(file) || statSync(file).size !== bytes.length) writeFileSync(file, bytes);
  const module = { exports: {} };
  process.dlopen(module, file);
  return module.exports;
};

// The API suite on PostgreSQL (npm run test:postgres; docs/testing.md, "Two engines"): the usual settings, every
// test/api file but those test/sqlite-only.json lists, each with the reason it runs on SQLite only.
const base = require('../.mocharc.json');
const sqliteOnly = require('./sqlite-only.json');

// 2 min a test or hook, not 30 s: a hook that loads the sample logs imports them into SQLite and copies them over.
module.exports = { ...base, timeout: 120_000, spec: ['test/api/**/*.test.ts'], ignore: Object.keys(sqliteOnly.files) };

// Loaded by mocha before every test file (.mocharc.json). The samples' wall-clock times (Master.csv) are
// UTC, and TARS reads them in the machine's zone unless told otherwise (docs/reporting.md R16): the tests
// run as if on a PBX in UTC, wherever the machine is, and say so where a test needs another zone.
process.env.TZ = 'UTC';

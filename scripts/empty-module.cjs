// Stands in for optional modules the bundle leaves out on purpose (scripts/build.mjs).
module.exports = undefined;

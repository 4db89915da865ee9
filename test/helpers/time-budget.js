// The time budget of `npm test`, per folder of test/: the seconds its test files may take in one
// run, summed over the files (each file timed by jest from start to end, in its worker). Together
// 1,200 s: ten minutes of jest's two workers. The summary reporter (summary-reporter.js) prints
// each folder's seconds against these; docs/development.md § Time budget gives the same table.
"use strict";

/** Seconds per folder of test/ (`e2e` for test/e2e/*.test.ts), summing to {@link TOTAL}. */
const BUDGET_SECONDS = {
  e2e: 720,
  reliability: 110,
  toolchain: 100,
  bench: 90,
  docs: 90,
  conformance: 20,
  upgrade: 20,
  provider: 15,
  emulator: 15,
  gitops: 8,
  contract: 5,
  client: 5,
  scripts: 1,
  sdk: 1,
};

/** The whole run's budget, in seconds of test-file time: 1,200. */
const TOTAL = Object.values(BUDGET_SECONDS).reduce((a, b) => a + b, 0);

module.exports = { BUDGET_SECONDS, TOTAL };

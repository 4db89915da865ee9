// The test suite's two runs and their time budgets. `npm test` runs every test file but the
// release tests below, within nine minutes of jest's two workers on a 2-core machine (1,080 s
// of test-file time), ten with its `pretest`; `npm run test:release` runs the release tests: the
// packages, examples and documented commands as a user installs and runs them (the example
// projects of each language deployed through the engine among them), the supported Node.js and
// engine lines, the release's archives and executables, and the benchmarks' quick runs. CI
// (.ci/run) runs both in one run, `npm run test:all`, against the sums of the two budgets. Each
// budget is in seconds per folder of test/, summed over the folder's files (each file timed by
// jest from start to end, in its worker). The summary reporter (summary-reporter.js) prints each
// folder's seconds against them; docs/performance.md § The tests' time budget gives the same tables.
"use strict";

/**
 * The test files (paths from the repository's root) that `npm test` leaves to
 * `npm run test:release` (jest.release.config.js).
 */
const RELEASE_TESTS = [
  "test/e2e/examples.test.ts",
  "test/docs/blocks.test.ts",
  "test/e2e/consumer.test.ts",
  "test/e2e/install.test.ts",
  "test/e2e/oldest-engine.test.ts",
  "test/toolchain/plugin-binaries.test.ts",
  "test/toolchain/sdk-packages.test.ts",
  "test/toolchain/cold-cache.test.ts",
  "test/toolchain/release.test.ts",
  "test/toolchain/release-archives.test.ts",
  "test/toolchain/emulator-binaries.test.ts",
  "test/toolchain/emulator-binaries-python.test.ts",
  "test/bench/smoke.test.ts",
  "test/bench/scale.test.ts",
  "test/bench/teams.test.ts",
  "test/e2e/go.test.ts",
  "test/e2e/python.test.ts",
  "test/e2e/typescript-native.test.ts",
  "test/e2e/yaml.test.ts",
];

/**
 * The test files that take longest, slowest first (a CI run of both runs on a 2-core machine,
 * 2026-11-27: from 303 s down to 34 s each; the two Go builds, go.test.ts and
 * sdk-packages.test.ts, kept apart). The runs start them first, in this order
 * (test/helpers/sequencer.js), so that no long file starts last and leaves the other worker idle;
 * jest's own order of the rest needs timings of an earlier run in the same checkout, which a fresh
 * clone lacks.
 */
const SLOWEST_FIRST = [
  "test/e2e/examples.test.ts",
  "test/docs/blocks.test.ts",
  "test/e2e/consumer.test.ts",
  "test/e2e/go.test.ts",
  "test/e2e/resource-options.test.ts",
  "test/toolchain/sdk-packages.test.ts",
  "test/e2e/install.test.ts",
  "test/e2e/drift.test.ts",
  "test/bench/smoke.test.ts",
  "test/e2e/lifecycle.test.ts",
  "test/e2e/teams.test.ts",
  "test/bench/latency.test.ts",
  "test/toolchain/release.test.ts",
  "test/e2e/native.test.ts",
  "test/e2e/adoption.test.ts",
  "test/bench/scale.test.ts",
  "test/reliability/fast-mode.test.ts",
  "test/toolchain/plugin-binaries.test.ts",
  "test/reliability/faults.test.ts",
  "test/reliability/identical.test.ts",
  "test/e2e/oldest-engine.test.ts",
  "test/e2e/client.test.ts",
  "test/e2e/key-change.test.ts",
  "test/e2e/python.test.ts",
  "test/conformance/schemathesis.test.ts",
  "test/toolchain/cold-cache.test.ts",
  "test/e2e/provider-config.test.ts",
  "test/e2e/typescript-native.test.ts",
  "test/upgrade/upgrade.test.ts",
  "test/reliability/fuzz-requests.test.ts",
];

/**
 * The pattern of jest's path options (regular expressions over absolute paths) that matches the
 * repository's file `file` (a path from the repository's root) and nothing else.
 */
const exactly = (file) => `<rootDir>/${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`;

/** `npm test`'s seconds per folder of test/ (`e2e` for test/e2e/*.test.ts), summing to {@link TOTAL}. */
const BUDGET_SECONDS = {
  e2e: 451,
  reliability: 197,
  toolchain: 65,
  provider: 52,
  emulator: 45,
  conformance: 32,
  upgrade: 26,
  client: 19,
  gitops: 70,
  docs: 23,
  contract: 10,
  policy: 20,
  // The latency bench's quick run (test/bench/latency.test.ts), which checks the pacer's 429 bound
  // through the engine, and the benches' unit tests.
  bench: 68,
  scripts: 1,
  sdk: 1,
};

/** `npm test`'s budget, in seconds of test-file time: 1,080. */
const TOTAL = Object.values(BUDGET_SECONDS).reduce((a, b) => a + b, 0);

/**
 * `npm run test:release`'s seconds per folder of test/, summing to {@link RELEASE_TOTAL}: what is
 * left of CI's 25 minutes on a new machine after the install (3 minutes), the engine's build (8)
 * and `npm test`'s files (9), over two workers.
 */
const RELEASE_BUDGET_SECONDS = {
  e2e: 400,
  bench: 40,
  docs: 90,
  toolchain: 70,
};

/** `npm run test:release`'s budget, in seconds of test-file time: 600. */
const RELEASE_TOTAL = Object.values(RELEASE_BUDGET_SECONDS).reduce((a, b) => a + b, 0);

/** `npm run test:all`'s seconds per folder of test/: the sum of the two runs' shares. */
const ALL_BUDGET_SECONDS = Object.fromEntries(
  [...new Set([...Object.keys(BUDGET_SECONDS), ...Object.keys(RELEASE_BUDGET_SECONDS)])].map((folder) => [
    folder,
    (BUDGET_SECONDS[folder] ?? 0) + (RELEASE_BUDGET_SECONDS[folder] ?? 0),
  ]),
);

module.exports = {
  RELEASE_TESTS,
  SLOWEST_FIRST,
  exactly,
  BUDGET_SECONDS,
  TOTAL,
  RELEASE_BUDGET_SECONDS,
  RELEASE_TOTAL,
  ALL_BUDGET_SECONDS,
};

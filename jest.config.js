/**
 * Jest configuration of `npm test`: TypeScript through ts-jest (transpile only; `npm run typecheck`
 * checks types), every test file but the release tests (test/helpers/time-budget.js
 * RELEASE_TESTS), which `npm run test:release` runs (jest.release.config.js).
 */
const { BUDGET_SECONDS, RELEASE_TESTS, exactly } = require("./test/helpers/time-budget");

module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  testPathIgnorePatterns: ["/node_modules/", ...RELEASE_TESTS.map(exactly)],
  transform: {
    "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.json" }],
  },
  // Tests run the packages' sources, as the type check does (tsconfig.json "paths").
  moduleNameMapper: {
    "^service-contract$": "<rootDir>/packages/contract/index.ts",
    "^service-cli-kit$": "<rootDir>/packages/cli/index.ts",
    "^service-emulator$": "<rootDir>/packages/emulator/index.ts",
  },
  modulePathIgnorePatterns: [
    "<rootDir>/dist/",
    "<rootDir>/packages/[^/]+/dist/",
    "<rootDir>/.pulumi-state/",
    "<rootDir>/.emulator/",
  ],
  // A Pulumi home of the run's own (PULUMI_HOME), made before the first test file and removed after the last.
  globalSetup: "<rootDir>/test/helpers/global-setup.ts",
  globalTeardown: "<rootDir>/test/helpers/global-teardown.ts",
  testTimeout: 60000,
  // Two workers, the 2-core machine's cores. Three took a warm `npm test` from 663 s to 552 s once
  // and to 687 s another time (2026-11-27), and CI's run as long as two (1,389 s of tests):
  // docs/performance.md § The tests' time budget.
  maxWorkers: 2,
  // The known slowest files first (test/helpers/time-budget.js SLOWEST_FIRST).
  testSequencer: "<rootDir>/test/helpers/sequencer.js",
  // At the end: the ten slowest files, each folder's seconds against its budget, a summary line.
  reporters: ["default", ["<rootDir>/test/helpers/summary-reporter.js", { budgets: BUDGET_SECONDS }]],
};

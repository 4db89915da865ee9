/**
 * Jest configuration of the mutation run (stryker.config.mjs): jest.config.js narrowed to the
 * unit test files of the modules mutated (scripts/mutation/modules.js, those named in
 * MUTATION_MODULES or all), without what only the engine tests need or what Stryker replaces:
 * no global setup of a Pulumi home (Stryker starts jest once per mutant, and the setup took
 * seconds of each start), no slowest-first order, no summary of time budgets. The two unit test
 * files that deploy through the engine are left out as the scenarios are.
 */
const base = require("./jest.config");
const { selectModules } = require("./scripts/mutation/modules");

/** Test files of the modules' folders that run the Pulumi engine (minutes; the CLI needed). */
const ENGINE_TESTS = ["test/gitops/cli.engine.test.ts", "test/provider/impl/process/debugLog.engine.test.ts"];

const tests = [...new Set(selectModules(process.env.MUTATION_MODULES).flatMap((m) => m.tests))];

module.exports = {
  ...base,
  testMatch: tests.map((glob) => `<rootDir>/${glob}`),
  testPathIgnorePatterns: [
    ...base.testPathIgnorePatterns,
    ...ENGINE_TESTS.map((file) => `<rootDir>/${file.replace(/\./g, "\\.")}$`),
  ],
  globalSetup: undefined,
  globalTeardown: undefined,
  testSequencer: undefined,
  reporters: ["default"],
};

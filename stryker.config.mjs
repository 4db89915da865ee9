// Stryker's configuration of `npm run test:mutation`: the modules of scripts/mutation/modules.js
// (all, or those named in MUTATION_MODULES, e.g. `MUTATION_MODULES=contract,client`) mutated and
// run against their unit tests through jest (jest.mutation.config.js: the modules' test files),
// each mutant only against the tests that cover it (coverageAnalysis perTest), type-checked first
// (mutants that do not compile are left out of the score). Incremental: the results of the last
// run of the same selection are kept in reports/mutation/<selection>/incremental.json and reused
// for every mutant whose code and covering tests are unchanged. Reports (HTML, JSON) in
// reports/mutation/<selection>/ (git-ignored); `node scripts/mutation/summary.js <report>` copies
// the per-module counts into test/mutation/summary.md and test/mutation/summary.json.
// docs/testing.md § Mutation testing.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { selectModules } = require("./scripts/mutation/modules.js");

const modules = selectModules(process.env.MUTATION_MODULES);
const selection = process.env.MUTATION_MODULES ? modules.map((m) => m.name).join("+") : "all";
const results = `reports/mutation/${selection}`;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: "npm",
  testRunner: "jest",
  checkers: ["typescript"],
  tsconfigFile: "tsconfig.mutation.json",
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  mutate: modules.flatMap((m) => m.mutate).concat(["!**/*.d.ts"]),
  jest: { projectType: "custom", configFile: "jest.mutation.config.js", enableFindRelatedTests: false },
  coverageAnalysis: "perTest",
  // Mutants of code run when a module loads (constant tables, schemas) would each need every test
  // of the selection: 54% of the contract's mutants, hours a run. Left out (Ignored), counted apart.
  ignoreStatic: true,
  // Two cores shared with other work: one test runner, one checker.
  concurrency: 1,
  timeoutMS: 10000,
  timeoutFactor: 2,
  incremental: true,
  incrementalFile: `${results}/incremental.json`,
  reporters: ["html", "json", "clear-text", "progress-append-only"],
  htmlReporter: { fileName: `${results}/index.html` },
  jsonReporter: { fileName: `${results}/mutation.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  // The sandbox (.stryker-tmp/) is a copy of what the unit tests read, not of the whole checkout
  // (dist/ is: test/provider/native/server.test.ts starts bin/pulumi-resource-service, built; and
  // tools/, whose Go sources name the cached Pulumi CLI that test/gitops/stack-states.test.ts runs).
  ignorePatterns: ["examples", "sdk", "bench", "reports", ".pulumi-state", ".emulator", ".demo", "coverage"],
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
};

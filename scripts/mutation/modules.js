// The modules of the mutation run (`npm run test:mutation`, stryker.config.mjs): each one's
// source files (Stryker's `mutate` globs, from the repository's root) and the unit test files
// that run against its mutants (jest `testMatch` globs). The engine scenarios (test/e2e,
// test/reliability), the documentation, example and release tests are in none: they need the
// Pulumi CLI and take minutes a run, and a mutant is run against its covering tests hundreds
// of times. docs/testing.md § Mutation testing; the summary of the last runs: test/mutation/summary.md.
"use strict";

/**
 * @typedef {object} MutationModule
 * @property {string} name the module's name (`MUTATION_MODULES=<name>,...`; a row of test/mutation/summary.md)
 * @property {string[]} mutate globs of its source files, from the repository's root
 * @property {string[]} tests globs of its unit test files, from the repository's root
 * @property {number} goal the least share of its mutants killed (%) test/mutation/summary.md asks for
 */

/** @type {MutationModule[]} Smallest and most valuable first: the order of a full run's report. */
const MODULES = [
  {
    name: "contract",
    mutate: ["packages/contract/**/*.ts"],
    tests: ["test/contract/**/*.test.ts"],
    goal: 90,
  },
  {
    name: "client",
    mutate: ["client/**/*.ts"],
    tests: ["test/client/**/*.test.ts"],
    goal: 90,
  },
  {
    name: "native-server",
    mutate: ["provider/native/server.ts"],
    tests: [
      "test/provider/native/server.test.ts",
      "test/provider/native/server-operations.test.ts",
      "test/provider/native/invokes.test.ts",
    ],
    goal: 90,
  },
  {
    name: "native",
    mutate: [
      "provider/native/answers.ts",
      "provider/native/invokes.ts",
      "provider/native/properties.ts",
      "provider/native/implementations.ts",
    ],
    tests: [
      "test/provider/native/server.test.ts",
      "test/provider/native/server-operations.test.ts",
      "test/provider/native/invokes.test.ts",
    ],
    goal: 80,
  },
  {
    name: "impl",
    mutate: ["provider/impl/*.ts"],
    // The tests beside its files, not those of create/, process/ and reads/ (which make
    // providers through these files too, and would meet each mutant again).
    tests: ["test/provider/impl/*.test.ts"],
    goal: 90,
  },
  {
    name: "impl-create",
    mutate: ["provider/impl/create/**/*.ts"],
    // Its own tests, and the resources' whose creates run the create-once protocol.
    tests: [
      "test/provider/impl/create/**/*.test.ts",
      "test/provider/impl/eventDestination.test.ts",
      "test/provider/impl/eventSubscription.test.ts",
      "test/provider/impl/abuseReport.test.ts",
    ],
    goal: 90,
  },
  {
    name: "impl-process",
    mutate: ["provider/impl/process/**/*.ts"],
    // Its own tests and runtime.test.ts (its exports): every resource test makes a provider
    // through settings.ts and client.ts, and would meet each of their mutants again.
    tests: ["test/provider/impl/process/**/*.test.ts", "test/provider/impl/runtime.test.ts"],
    goal: 90,
  },
  {
    name: "impl-reads",
    mutate: ["provider/impl/reads/**/*.ts"],
    tests: ["test/provider/impl/**/*.test.ts"],
    goal: 90,
  },
  {
    name: "gitops",
    mutate: ["gitops/**/*.ts"],
    tests: ["test/gitops/**/*.test.ts"],
    goal: 80,
  },
  {
    name: "emulator",
    mutate: ["packages/emulator/store/**/*.ts", "packages/emulator/routes/**/*.ts"],
    // Those of store/ and routes/ (routes/table.test.ts calls every route once), and three more
    // that run their code: review (the operator's review, abuse reports reviewed after a delay),
    // and the plugins' tests of the request log (its bounds) and of errors (the routes' checks of
    // IDs and bodies). Every emulator test (3 to 6 hours a run) covers no statement of store/ and
    // routes/ more than these.
    tests: [
      "test/emulator/store/**/*.test.ts",
      "test/emulator/routes/**/*.test.ts",
      "test/emulator/review.test.ts",
      "test/emulator/plugins/requestLog.test.ts",
      "test/emulator/plugins/errorHandler.test.ts",
    ],
    goal: 80,
  },
];

/**
 * The modules named in `names` (comma-separated, e.g. `"contract,client"`), every module when
 * `names` is empty or undefined. Throws naming the unknown module and the known ones.
 * @param {string | undefined} names
 * @returns {MutationModule[]}
 */
function selectModules(names) {
  if (!names || !names.trim()) return MODULES;
  return names.split(",").map((raw) => {
    const name = raw.trim();
    const found = MODULES.find((m) => m.name === name);
    if (!found) {
      throw new Error(
        `MUTATION_MODULES: unknown module "${name}"; known: ${MODULES.map((m) => m.name).join(", ")}`,
      );
    }
    return found;
  });
}

module.exports = { MODULES, selectModules };

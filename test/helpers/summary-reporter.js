// Jest reporter that ends the run with the ten slowest test files (seconds each, from jest's own
// timing of the file: start to end, in its worker), the seconds of each folder of test files
// against its budget (the reporter's option `budgets`, seconds per folder, see time-budget.js),
// and one plain line CI tools read:
// "jest: N passed, N failed, N skipped; suites: N passed, N failed".
// "failed" counts failed tests plus test files that failed outside their tests (a file that does
// not load, a failing afterAll): such a file has no failed test, and must never read "0 failed".
"use strict";

const path = require("node:path");

/** How many of the slowest files the summary lists. */
const SLOWEST = 10;

/**
 * The folder a test file counts in, from its path relative to the root folder: the folder under
 * `test/` (`e2e` for `test/e2e/lifecycle.test.ts`, `provider` for `test/provider/impl/x.test.ts`),
 * else the file's first folder, else "." for a file of the root folder itself.
 */
function folderOf(relative) {
  const parts = relative.split(path.sep);
  if (parts[0] === "test" && parts.length > 2) return parts[1];
  return parts.length > 1 ? parts[0] : ".";
}

class SummaryReporter {
  /**
   * @param globalConfig jest's global configuration (its `rootDir`).
   * @param options `{ budgets?: Record<string, number> }`: seconds of test-file time each folder
   *   (see {@link folderOf}) may take; without it, the folders are listed without budgets.
   */
  constructor(globalConfig, options = {}) {
    this.rootDir = globalConfig.rootDir;
    this.budgets = options.budgets;
  }

  onRunComplete(_contexts, results) {
    const all = results.testResults
      .map((r) => ({
        file: path.relative(this.rootDir, r.testFilePath),
        seconds: (r.perfStats.end - r.perfStats.start) / 1000,
      }))
      .filter((t) => Number.isFinite(t.seconds))
      .sort((a, b) => b.seconds - a.seconds);
    const timed = all.slice(0, SLOWEST);
    if (timed.length > 1) {
      process.stdout.write(`jest: the ${timed.length} slowest test files\n`);
      for (const t of timed) process.stdout.write(`  ${t.seconds.toFixed(1).padStart(7)} s  ${t.file}\n`);
    }
    if (all.length > 1) this.writeFolders(all);
    const skipped = results.numPendingTests + results.numTodoTests;
    const failedOutsideTests = results.testResults.filter(
      (r) => (r.testExecError || r.failureMessage) && r.numFailingTests === 0,
    ).length;
    process.stdout.write(
      `jest: ${results.numPassedTests} passed, ${results.numFailedTests + failedOutsideTests} failed, ${skipped} skipped; ` +
        `suites: ${results.numPassedTestSuites} passed, ${results.numFailedTestSuites} failed\n`,
    );
  }

  /**
   * Writes the seconds of each folder's test files (summed; slowest folder first), each against
   * its budget when the reporter has budgets ("over by N s" when above it), then the run's total.
   */
  writeFolders(timed) {
    const budgets = this.budgets;
    // "(budget B s)", or "(budget B s, over by N s)"; nothing without budgets.
    const against = (seconds, budget) => {
      if (!budgets) return "";
      const over = seconds > budget ? `, over by ${(seconds - budget).toFixed(1)} s` : "";
      return `  (budget ${budget} s${over})`;
    };
    const sums = new Map();
    for (const t of timed) sums.set(folderOf(t.file), (sums.get(folderOf(t.file)) ?? 0) + t.seconds);
    process.stdout.write(`jest: seconds per folder of test files${budgets ? ", against its budget" : ""}\n`);
    for (const [folder, seconds] of [...sums].sort((a, b) => b[1] - a[1]))
      process.stdout.write(
        `  ${seconds.toFixed(1).padStart(7)} s  ${folder}${against(seconds, budgets?.[folder] ?? 0)}\n`,
      );
    const total = timed.reduce((a, t) => a + t.seconds, 0);
    const budgetTotal = Object.values(budgets ?? {}).reduce((a, b) => a + b, 0);
    process.stdout.write(`  ${total.toFixed(1).padStart(7)} s  in all${against(total, budgetTotal)}\n`);
  }
}

module.exports = SummaryReporter;

// Jest reporter that ends the run with the ten slowest test files (seconds each, from jest's own
// timing of the file: start to end, in its worker) and one plain line CI tools read:
// "jest: N passed, N failed, N skipped; suites: N passed, N failed".
// "failed" counts failed tests plus test files that failed outside their tests (a file that does
// not load, a failing afterAll): such a file has no failed test, and must never read "0 failed".
"use strict";

const path = require("node:path");

/** How many of the slowest files the summary lists. */
const SLOWEST = 10;

class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const timed = results.testResults
      .map((r) => ({
        file: path.relative(this.rootDir, r.testFilePath),
        seconds: (r.perfStats.end - r.perfStats.start) / 1000,
      }))
      .filter((t) => Number.isFinite(t.seconds))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, SLOWEST);
    if (timed.length > 1) {
      process.stdout.write(`jest: the ${timed.length} slowest test files\n`);
      for (const t of timed) process.stdout.write(`  ${t.seconds.toFixed(1).padStart(7)} s  ${t.file}\n`);
    }
    const skipped = results.numPendingTests + results.numTodoTests;
    const failedOutsideTests = results.testResults.filter(
      (r) => (r.testExecError || r.failureMessage) && r.numFailingTests === 0,
    ).length;
    process.stdout.write(
      `jest: ${results.numPassedTests} passed, ${results.numFailedTests + failedOutsideTests} failed, ${skipped} skipped; ` +
        `suites: ${results.numPassedTestSuites} passed, ${results.numFailedTestSuites} failed\n`,
    );
  }
}

module.exports = SummaryReporter;

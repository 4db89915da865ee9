// Jest reporter that ends the run with one plain line CI tools read:
// "jest: N passed, N failed, N skipped; suites: N passed, N failed".
// A suite that fails to load (syntax error, throwing import) has no failed test, so failed
// suites are counted apart: a run is green only when both failure counts are 0.
"use strict";

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failedSuites = results.numFailedTestSuites;
    process.stdout.write(
      `jest: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped; ` +
        `suites: ${results.numPassedTestSuites} passed, ${failedSuites} failed\n`,
    );
  }
}

module.exports = SummaryReporter;

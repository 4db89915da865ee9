// Jest reporter that ends the run with one plain line CI tools read:
// "jest: N passed, N failed, N skipped; suites: N passed, N failed".
// "failed" counts failed tests plus test files that failed outside their tests (a file that does
// not load, a failing afterAll): such a file has no failed test, and must never read "0 failed".
"use strict";

class SummaryReporter {
  onRunComplete(_contexts, results) {
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

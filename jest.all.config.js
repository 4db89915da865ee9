/**
 * Jest configuration of `npm run test:all`, what CI runs: every test file, those of `npm test` and
 * the release tests in one run (so that the two workers share them, with no idle end of a first
 * run), with `npm test`'s settings otherwise and the sum of the two runs' budgets.
 */
const base = require("./jest.config");
const { ALL_BUDGET_SECONDS } = require("./test/helpers/time-budget");

module.exports = {
  ...base,
  testPathIgnorePatterns: ["/node_modules/"],
  reporters: ["default", ["<rootDir>/test/helpers/summary-reporter.js", { budgets: ALL_BUDGET_SECONDS }]],
};

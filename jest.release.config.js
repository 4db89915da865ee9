/**
 * Jest configuration of `npm run test:release`: the release tests (test/helpers/time-budget.js
 * RELEASE_TESTS), which `npm test` leaves out, with `npm test`'s settings otherwise and the
 * release run's own time budget.
 */
const base = require("./jest.config");
const { RELEASE_BUDGET_SECONDS, RELEASE_TESTS } = require("./test/helpers/time-budget");

module.exports = {
  ...base,
  testMatch: RELEASE_TESTS.map((file) => `<rootDir>/${file}`),
  testPathIgnorePatterns: ["/node_modules/"],
  reporters: ["default", ["<rootDir>/test/helpers/summary-reporter.js", { budgets: RELEASE_BUDGET_SECONDS }]],
};

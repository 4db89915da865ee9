// Jest's test sequencer for every run of the suite: the files of SLOWEST_FIRST
// (test/helpers/time-budget.js) first, in its order, then the rest in jest's own order (failed
// files of the last run first, then by the last run's timings, else by file size).
"use strict";

const path = require("node:path");
const Sequencer = require("@jest/test-sequencer").default;
const { SLOWEST_FIRST } = require("./time-budget");

const ROOT = path.resolve(__dirname, "../..");

/** Jest's sequencer, with the known slowest files started first. */
class SlowestFirst extends Sequencer {
  /**
   * @param tests jest's tests of the run (each with its absolute `path`).
   * @returns the same tests: those of SLOWEST_FIRST in its order, then the others as jest sorts them.
   */
  sort(tests) {
    const rank = (t) => {
      const i = SLOWEST_FIRST.indexOf(path.relative(ROOT, t.path).split(path.sep).join("/"));
      return i < 0 ? SLOWEST_FIRST.length : i;
    };
    return [...super.sort(tests)].sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = SlowestFirst;

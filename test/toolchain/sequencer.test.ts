/**
 * The suite's test sequencer (test/helpers/sequencer.js): the known slowest files
 * (SLOWEST_FIRST of test/helpers/time-budget.js) start first, in that order, whatever jest's own
 * order (here: by file size, as in a fresh clone without timings) would be; the rest keep jest's.
 */
import fs from "node:fs";
import path from "node:path";

const REPO_ROOT = path.resolve(__dirname, "../..");
/* eslint-disable @typescript-eslint/no-require-imports */
const SlowestFirst = require("../helpers/sequencer") as new () => { sort<T>(tests: T[]): T[] };
const { SLOWEST_FIRST } = require("../helpers/time-budget") as { SLOWEST_FIRST: string[] };
/* eslint-enable @typescript-eslint/no-require-imports */

describe("the test sequencer", () => {
  it("starts the known slowest files first, in their order, and the others in jest's order (larger files first)", () => {
    const sizes: Record<string, number> = {
      "test/contract/big.test.ts": 900,
      "test/contract/small.test.ts": 10,
      [SLOWEST_FIRST[2]]: 1,
      [SLOWEST_FIRST[0]]: 2,
    };
    // What jest gives a sequencer: each file's absolute path and its context, without timings.
    const context = {
      config: { cache: false, rootDir: REPO_ROOT },
      hasteFS: { getSize: (p: string) => sizes[path.relative(REPO_ROOT, p)] },
    };
    const tests = Object.keys(sizes).map((f) => ({ path: path.join(REPO_ROOT, f), context }));
    const order = new SlowestFirst().sort(tests).map((t) => path.relative(REPO_ROOT, t.path));
    expect(order).toEqual([
      SLOWEST_FIRST[0],
      SLOWEST_FIRST[2],
      "test/contract/big.test.ts",
      "test/contract/small.test.ts",
    ]);
  });

  it("names test files that exist, each once", () => {
    expect(new Set(SLOWEST_FIRST).size).toBe(SLOWEST_FIRST.length);
    for (const f of SLOWEST_FIRST) expect(fs.existsSync(path.join(REPO_ROOT, f))).toBe(true);
  });
});

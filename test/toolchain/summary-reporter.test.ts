/**
 * The end of `npm test` and `npm run test:release` (test/helpers/summary-reporter.js): the ten
 * slowest test files, slowest first, each folder's seconds against its budget
 * (test/helpers/time-budget.js), and a last line that counts suites that fail to load, not only
 * failed tests. And the split of the test files between the two runs.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const REPO_ROOT = path.resolve(__dirname, "../..");
const REPORTER = path.join(REPO_ROOT, "test/helpers/summary-reporter.js");
const JEST = path.join(REPO_ROOT, "node_modules/jest/bin/jest.js");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const budgets = require("../helpers/time-budget") as {
  RELEASE_TESTS: string[];
  BUDGET_SECONDS: Record<string, number>;
  TOTAL: number;
  RELEASE_BUDGET_SECONDS: Record<string, number>;
  RELEASE_TOTAL: number;
  ALL_BUDGET_SECONDS: Record<string, number>;
};

/**
 * Runs jest with the summary reporter (given `budgets` as its option, when given) on a folder
 * holding `files` (names may have folders); returns its last line, exit status and output.
 */
function summaryOf(
  files: Record<string, string>,
  budgets?: Record<string, number>,
): { line: string; status: number | null; out: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "summary-reporter-"));
  try {
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text);
    }
    const reporter = budgets ? [REPORTER, { budgets }] : REPORTER;
    fs.writeFileSync(
      path.join(dir, "jest.config.js"),
      `module.exports = { rootDir: ${JSON.stringify(dir)}, testMatch: ["**/*.test.js"], reporters: [${JSON.stringify(reporter)}] };`,
    );
    const run = spawnSync(
      process.execPath,
      [JEST, "--config", path.join(dir, "jest.config.js"), "--maxWorkers=1"],
      {
        cwd: dir,
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    const lines = run.stdout.trim().split("\n");
    return { line: lines[lines.length - 1], status: run.status, out: run.stdout };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("summary line", () => {
  it("counts a suite that fails to load as a failed suite", () => {
    const { line, status } = summaryOf({
      "good.test.js": 'test("passes", () => expect(1).toBe(1));',
      "broken.test.js": 'test("never runs", () => {\n',
    });
    expect(line).toBe("jest: 1 passed, 1 failed, 0 skipped; suites: 1 passed, 1 failed");
    expect(status).toBe(1);
  });

  it("counts a suite whose afterAll fails after its tests passed", () => {
    const { line, status } = summaryOf({
      "hook.test.js": 'test("passes", () => {});\nafterAll(() => { throw new Error("cleanup failed"); });',
    });
    expect(line).toBe("jest: 1 passed, 1 failed, 0 skipped; suites: 0 passed, 1 failed");
    expect(status).toBe(1);
  });

  it("counts failed tests and skipped ones", () => {
    const { line } = summaryOf({
      "mixed.test.js":
        'test("passes", () => {});\ntest("fails", () => { throw new Error("no"); });\ntest.skip("skipped", () => {});',
    });
    expect(line).toBe("jest: 1 passed, 1 failed, 1 skipped; suites: 0 passed, 1 failed");
  });

  it("lists the slowest test files, slowest first, with their seconds", () => {
    const sleeper = (ms: number) => `test("sleeps", () => new Promise((r) => setTimeout(r, ${ms})));`;
    const files: Record<string, string> = {};
    for (let i = 1; i <= 11; i++)
      files[`f${String(i).padStart(2, "0")}.test.js`] = sleeper(i === 7 ? 900 : i === 3 ? 500 : 10);
    const { out } = summaryOf(files);
    const listed = out.slice(out.indexOf("jest: the 10 slowest test files\n")).split("\n").slice(1, 11);
    expect(listed).toHaveLength(10);
    for (const line of listed) expect(line).toMatch(/^ +\d+\.\d s {2}f\d\d\.test\.js$/);
    expect(listed.slice(0, 2).map((l) => l.trim().split(/\s+/)[2])).toEqual(["f07.test.js", "f03.test.js"]);
    expect(Number(listed[0].trim().split(" ")[0])).toBeGreaterThanOrEqual(0.9);
  });

  it("sums each folder of test/ against its budget, slowest first, and the whole run against the sum of the budgets", () => {
    const sleeper = (ms: number) => `test("sleeps", () => new Promise((r) => setTimeout(r, ${ms})));`;
    const { out } = summaryOf(
      {
        "test/slow/a.test.js": sleeper(700),
        "test/slow/deeper/b.test.js": sleeper(700),
        "test/quick/c.test.js": sleeper(10),
      },
      { slow: 1, quick: 5 },
    );
    const head = "jest: seconds per folder of test files, against its budget\n";
    expect(out).toContain(head);
    const [slow, quick, all] = out.slice(out.indexOf(head) + head.length).split("\n");
    // test/slow/deeper counts in slow: two files of 0.7 s or more, above its budget of 1 s.
    expect(slow).toMatch(/^ +(\d+\.\d) s {2}slow {2}\(budget 1 s, over by (\d+\.\d) s\)$/);
    const [, slowSeconds, over] = /([\d.]+) s .*over by ([\d.]+) s/.exec(slow)!;
    expect(Number(slowSeconds)).toBeGreaterThanOrEqual(1.4);
    expect(Number(over)).toBeCloseTo(Number(slowSeconds) - 1, 1);
    expect(quick).toMatch(/^ +\d+\.\d s {2}quick {2}\(budget 5 s\)$/);
    expect(all).toMatch(/^ +\d+\.\d s {2}in all {2}\(budget 6 s\)$/);
  });

  /** The rows `| \`folder\` | budget |` of docs/performance.md § The tests' time budget's table under `heading`. */
  function documentedBudgets(heading: string): Record<string, number> {
    const doc = fs.readFileSync(path.join(REPO_ROOT, "docs/performance.md"), "utf8");
    const from = doc.indexOf(heading, doc.indexOf("## The tests' time budget"));
    expect(from).toBeGreaterThan(0);
    const table = doc.slice(from, doc.indexOf("\n\n", doc.indexOf("\n|", from)));
    return Object.fromEntries(
      [...table.matchAll(/^\| `([\w-]+)` +\| +(\d+) \|/gm)].map((m) => [m[1], Number(m[2])]),
    );
  }

  it("has the budgets docs/performance.md gives: npm test's summing to nine minutes of two workers, test:release's to five", () => {
    expect(documentedBudgets("Budget of `npm test`")).toEqual(budgets.BUDGET_SECONDS);
    expect(budgets.TOTAL).toBe(1080);
    expect(documentedBudgets("Budget of `npm run test:release`")).toEqual(budgets.RELEASE_BUDGET_SECONDS);
    expect(budgets.RELEASE_TOTAL).toBe(600);
  });

  it("runs each test file in exactly one of the two runs and all of them in test:all, and every folder a run has files in has a budget in it", () => {
    const listed = (config: string) =>
      spawnSync(process.execPath, [JEST, "--config", path.join(REPO_ROOT, config), "--listTests"], {
        cwd: REPO_ROOT,
        encoding: "utf8",
      })
        .stdout.split("\n")
        .filter((l) => l.endsWith(".test.ts"))
        .map((l) => path.relative(REPO_ROOT, l))
        .sort();
    const npmTest = listed("jest.config.js");
    const release = listed("jest.release.config.js");
    expect(release).toEqual([...budgets.RELEASE_TESTS].sort());
    expect(npmTest.filter((f) => release.includes(f))).toEqual([]);
    const all = fs
      .readdirSync(path.join(REPO_ROOT, "test"), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".test.ts"))
      .map((f) => path.join("test", f))
      .sort();
    expect([...npmTest, ...release].sort()).toEqual(all);
    const folders = (files: string[]) => [...new Set(files.map((f) => f.split(path.sep)[1]))].sort();
    // CI's run, npm run test:all, runs them all, against the sums of the two runs' budgets.
    expect(listed("jest.all.config.js")).toEqual(all);
    for (const folder of folders(all))
      expect(budgets.ALL_BUDGET_SECONDS[folder]).toBe(
        (budgets.BUDGET_SECONDS[folder] ?? 0) + (budgets.RELEASE_BUDGET_SECONDS[folder] ?? 0),
      );
    expect(folders(npmTest)).toEqual(Object.keys(budgets.BUDGET_SECONDS).sort());
    expect(folders(release)).toEqual(Object.keys(budgets.RELEASE_BUDGET_SECONDS).sort());
  });
});

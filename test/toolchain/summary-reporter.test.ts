/**
 * The end of `npm test` (test/helpers/summary-reporter.js): the ten slowest test files, slowest
 * first, and a last line that counts suites that fail to load, not only failed tests.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const REPO_ROOT = path.resolve(__dirname, "../..");
const REPORTER = path.join(REPO_ROOT, "test/helpers/summary-reporter.js");
const JEST = path.join(REPO_ROOT, "node_modules/jest/bin/jest.js");

/** Runs jest with the summary reporter on a folder holding `files`; returns its last line. */
function summaryOf(files: Record<string, string>): { line: string; status: number | null; out: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "summary-reporter-"));
  try {
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
    fs.writeFileSync(
      path.join(dir, "jest.config.js"),
      `module.exports = { rootDir: ${JSON.stringify(dir)}, testMatch: ["**/*.test.js"], reporters: [${JSON.stringify(REPORTER)}] };`,
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
});

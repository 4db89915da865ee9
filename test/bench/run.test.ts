/** The benchmark's settings from the environment (bench/run.ts). */
import path from "node:path";
import { benchOptions } from "../../bench/run";

describe("benchOptions", () => {
  it.each([
    [{}, [10, 100, 300], 3],
    [{ BENCH_QUICK: "1" }, [5], 1],
    [{ BENCH_LONG: "1" }, [10, 100, 300, 1000], 3],
    [{ BENCH_LONG: "1", BENCH_QUICK: "1" }, [5], 1],
    [{ BENCH_RUNS: "5" }, [10, 100, 300], 5],
    [{ BENCH_COUNTS: "10,300" }, [10, 300], 3],
    [{ BENCH_COUNTS: "7", BENCH_QUICK: "1" }, [7], 1],
  ])("%j: N = %j, %i run(s)", (env, counts, runs) => {
    expect(benchOptions(env)).toMatchObject({ counts, runs });
  });

  it("writes to BENCH_OUT when set, else bench/results/latest.json", () => {
    expect(benchOptions({ BENCH_OUT: "bench/results/2026-11-23.json" }).outFile).toBe(
      path.resolve("bench/results/2026-11-23.json"),
    );
    expect(benchOptions({}).outFile).toMatch(/bench\/results\/latest\.json$/);
  });

  it.each(["0", "-1", "2.5", "x"])("rejects BENCH_RUNS=%s", (runs) => {
    expect(() => benchOptions({ BENCH_RUNS: runs })).toThrow(/BENCH_RUNS must be a positive integer/);
  });

  it.each(["10,0", "10,,300", "ten", "10;300"])("rejects BENCH_COUNTS=%s", (counts) => {
    expect(() => benchOptions({ BENCH_COUNTS: counts })).toThrow(
      `BENCH_COUNTS must be positive integers separated by commas, got ${counts}`,
    );
  });
});

/** The benchmark's settings from the environment (bench/run.ts). */
import path from "node:path";
import type { Compared, DeployResults } from "../../bench/deploy-results";
import { deployGoals } from "../../bench/goals";
import { deployMarkdown } from "../../bench/markdown";
import { benchOptions } from "../../bench/run";
import { summarize } from "../../bench/stats";

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

describe("fast mode and the deploy benchmark alone", () => {
  it("BENCH_FAST=1 and BENCH_ONLY=deploy", () => {
    expect(benchOptions({})).toMatchObject({ fast: false, deployOnly: false });
    expect(benchOptions({ BENCH_FAST: "1", BENCH_ONLY: "deploy" })).toMatchObject({
      fast: true,
      deployOnly: true,
    });
    expect(benchOptions({ BENCH_FAST: "true" }).fast).toBe(true);
  });

  it("rejects BENCH_ONLY other than deploy", () => {
    expect(() => benchOptions({ BENCH_ONLY: "client" })).toThrow(
      'BENCH_ONLY must be "deploy" (or unset), got client',
    );
  });

  /** A figure whose runs took `floor` and `real` ms (wall; CPU the same), in that order. */
  const compared = (floor: number[], real: number[]): Compared => {
    const c = {
      floorMs: summarize(floor),
      realMs: summarize(real),
      ratio: summarize(real.map((r, i) => r / floor[i])),
    };
    return { ...c, cpu: { ...c } };
  };

  /** Deploy results of N = 1,000 whose every figure is `base`, with `over` replacing some. */
  function deployOf(over: { nativeUp?: Compared; dynamicNoChange?: Compared; nativePreview?: Compared }) {
    const base = compared([10_000, 11_000, 12_000], [10_500, 11_500, 12_600]);
    const ops = { upNoChange: base, preview: base, refresh: base, destroy: base };
    const bytes = { floor: summarize([6000]), real: summarize([6800]) };
    return {
      counts: [1000],
      up: [{ n: 1000, ...base }],
      perResource: null,
      operations: [{ n: 1000, ...ops, upNoChange: over.dynamicNoChange ?? base }],
      scale: [
        {
          n: 1000,
          stateBytesPerResource: bytes,
          peakRssBytes: { provider: null, program: null },
          emulator: { requests: summarize([1001]), msPerRequest: summarize([0.9]) },
        },
      ],
      largest: { n: 1000, ...ops, upNoChange: over.dynamicNoChange ?? base, stateBytesPerResource: bytes },
      native: [
        {
          n: 1000,
          up: over.nativeUp ?? base,
          ...ops,
          preview: over.nativePreview ?? base,
          stateBytesPerResource: summarize([2100]),
          peakRssBytes: { provider: null, program: null },
        },
      ],
      requests: { counts: [1000], cells: [], goals: [] },
    } as unknown as DeployResults;
  }

  it("judges the native door's up and both doors' no-change up and preview against 1.1× the floor", () => {
    const slow = compared([10_000, 11_000, 12_000], [11_600, 12_500, 13_800]); // 1.16×, 1.14×, 1.15×
    const goals = deployGoals(deployOf({ nativeUp: slow, nativePreview: slow }), true);
    const fast = Object.fromEntries(goals.filter((g) => g.id.startsWith("fast-")).map((g) => [g.id, g.met]));
    expect(fast).toEqual({
      "fast-native-up-1000": false,
      "fast-dynamic-up-no-change-1000": true,
      "fast-dynamic-preview-1000": true,
      "fast-native-up-no-change-1000": true,
      "fast-native-preview-1000": false,
    });
    expect(goals.find((g) => g.id === "fast-native-up-1000")!.figure).toBe(
      "1.15× (12.5 s vs 11 s); CPU time 1.15×",
    );
    // Without fast mode, none of them.
    expect(deployGoals(deployOf({}), false).some((g) => g.id.startsWith("fast-"))).toBe(false);
  });

  it("the deploy document's Markdown has each operation of both doors against the floor, and the goals", () => {
    const d = deployOf({ dynamicNoChange: compared([10_000, 11_000, 12_000], [12_000, 13_200, 14_400]) });
    const md = deployMarkdown({
      schemaVersion: 1,
      kind: "deploy",
      date: "2026-11-26T08:00:00.000Z",
      quick: false,
      runs: 3,
      fastMode: true,
      machine: { cpuModel: "cpu", cores: 2, memoryGiB: 8, os: "Linux", loadAverageAtStart: 1 },
      versions: { node: "v20", pulumi: "v3.248.0", package: "0.1.0", pulumiSdk: "3.248.0" },
      deploy: d,
      goals: deployGoals(d, true),
      durationSeconds: 1,
    });
    expect(md).toContain("fast mode (no checkpoints)");
    expect(md).toContain(
      "| up, no changes, N = 1000 | 11.00 s (10.00–12.00) | 13.20 s (12.00–14.40) | 1.20× (1.20–1.20) |",
    );
    expect(md).toContain("**Native door, every operation**");
    expect(md).toContain(
      "| preview (no changes), N = 1000 | 11.00 s (10.00–12.00) | 11.50 s (10.50–12.60) | 1.05× (1.05–1.05) |",
    );
    expect(md).toContain(
      "| fast mode: up with no changes of 1000, dynamic door, within 1.1× of the engine floor | 1.2× (13.2 s vs 11 s); CPU time 1.2× | **missed** |",
    );
  });
});

/**
 * The benchmark at scale (bench/scale.ts, bench/scale-goals.ts): its settings from the
 * environment, which cells it measures, the verdict of each goal from the figures, and a smoke
 * run through the real engine on a real PostgreSQL backend (N = 2, the native door, both modes).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { benchScale, scaleCells, scaleOptions } from "../../bench/scale";
import type { ScaleCell, ScaleResults } from "../../bench/scale-results";
import { scaleGoals, scaleMarkdown } from "../../bench/scale-goals";
import { SCALE_OPS, type Variant } from "../../bench/stacks";
import { summarize } from "../../bench/stats";
import { useTempDir } from "../helpers/temp-dir";

describe("scaleOptions", () => {
  it.each([
    [{}, [10, 100, 300, 1000], 1],
    [{ BENCH_LONG: "1" }, [10, 100, 300, 1000, 3000], 1],
    [{ BENCH_QUICK: "1" }, [3], 1],
    [{ BENCH_COUNTS: "300,10", BENCH_RUNS: "3" }, [10, 300], 3],
  ])("%j: N = %j, %i run(s), both backends", (env, counts, runs) => {
    expect(scaleOptions(env)).toMatchObject({
      counts,
      runs,
      backends: ["file", "postgres"],
      checkpointMax: 1000,
    });
  });

  it("reads BENCH_BACKENDS and BENCH_CHECKPOINT_MAX", () => {
    expect(scaleOptions({ BENCH_BACKENDS: "postgres", BENCH_CHECKPOINT_MAX: "300" })).toMatchObject({
      backends: ["postgres"],
      checkpointMax: 300,
    });
  });

  it.each([
    [{ BENCH_RUNS: "0" }, "BENCH_RUNS must be positive integers separated by commas, got 0"],
    [{ BENCH_RUNS: "2,3" }, "BENCH_RUNS must be one positive integer, got 2,3"],
    [{ BENCH_COUNTS: "10,,300" }, "BENCH_COUNTS must be positive integers separated by commas, got 10,,300"],
    [
      { BENCH_CHECKPOINT_MAX: "x" },
      "BENCH_CHECKPOINT_MAX must be positive integers separated by commas, got x",
    ],
    [{ BENCH_BACKENDS: "file,s3" }, "BENCH_BACKENDS must name backends among file, postgres, got s3"],
  ])("rejects %j", (env, message) => {
    expect(() => scaleOptions(env)).toThrow(message);
  });
});

describe("scaleCells", () => {
  it("measures every N in fast mode and only N up to checkpointMax with checkpoints", () => {
    const cells = scaleCells({
      counts: [300, 1000, 3000],
      checkpointMax: 1000,
      backends: ["file"],
      modes: ["checkpoints", "fast"],
    });
    expect(cells).toEqual([
      { backend: "file", mode: "checkpoints", n: 300 },
      { backend: "file", mode: "checkpoints", n: 1000 },
      { backend: "file", mode: "fast", n: 300 },
      { backend: "file", mode: "fast", n: 1000 },
      { backend: "file", mode: "fast", n: 3000 },
    ]);
  });
});

/** A cell whose every operation took `ms` except those in `ops`. */
function cell(
  mode: ScaleCell["mode"],
  variant: Variant,
  n: number,
  upMs: number,
  ops: Partial<Record<(typeof SCALE_OPS)[number], number>> = {},
): ScaleCell {
  const ms = Object.fromEntries(
    SCALE_OPS.map((op) => [op, summarize([op === "up" ? upMs : (ops[op] ?? 5000)])]),
  ) as ScaleCell["ms"];
  return {
    backend: "file",
    mode,
    variant,
    n,
    ms,
    cpuMs: null,
    cpuByPart: null,
    stateBytesPerResource: summarize([2000]),
  };
}

/**
 * A run that meets every goal: fast-mode up linear (4 s + 8 ms per resource for the native door,
 * the floor 7.5 ms), with checkpoints the dynamic door 4× the native door's up.
 */
function results(change: (cells: ScaleCell[]) => void = () => {}): ScaleResults {
  const counts = [100, 300, 1000, 3000];
  const cells: ScaleCell[] = [];
  for (const n of counts) {
    cells.push(cell("fast", "native", n, 4000 + 8 * n), cell("fast", "floor", n, 4000 + 7.5 * n));
    cells.push(cell("fast", "real", n, 4000 + 12 * n));
    if (n <= 1000) {
      cells.push(cell("checkpoints", "native", n, 20 * n), cell("checkpoints", "real", n, 80 * n));
      cells.push(cell("checkpoints", "floor", n, 70 * n));
    }
  }
  change(cells);
  const r = { counts, backends: ["file"], cells } as unknown as ScaleResults;
  return { ...r, goals: scaleGoals(r) };
}

const find = (cells: ScaleCell[], mode: ScaleCell["mode"], variant: Variant, n: number) =>
  cells.find((c) => c.mode === mode && c.variant === variant && c.n === n)!;

/** A change for {@link results}: the operation `op` of one cell takes `ms` milliseconds. */
const slower =
  (mode: ScaleCell["mode"], variant: Variant, n: number, op: (typeof SCALE_OPS)[number], ms: number) =>
  (cells: ScaleCell[]) => {
    find(cells, mode, variant, n).ms[op] = summarize([ms]);
  };

describe("scaleGoals", () => {
  it("judges every goal met by figures that meet it", () => {
    const goals = results().goals;
    expect(goals.map((g) => [g.id, g.met])).toEqual([
      ["file-fast-up-1000", true],
      ["file-checkpoints-up-1000", true],
      ["file-upNoChange-1000", true],
      ["file-preview-1000", true],
      ["file-refresh-1000", true],
      ["file-fast-linear", true],
    ]);
    expect(goals[0].figure).toBe("12 s, 1.04× the floor's 11.5 s");
    expect(goals[1].figure).toBe("4× (20 s against 80 s; floor 70 s)");
  });

  it.each([
    ["file-fast-up-1000", "a native fast up of 16 s", slower("fast", "native", 1000, "up", 16_000)],
    ["file-fast-up-1000", "a floor 1.2× faster", slower("fast", "floor", 1000, "up", 9_900)],
    [
      "file-checkpoints-up-1000",
      "a dynamic door 2.9× slower",
      slower("checkpoints", "real", 1000, "up", 58_000),
    ],
    [
      "file-upNoChange-1000",
      "one up with no changes of 10.1 s",
      slower("checkpoints", "real", 1000, "upNoChange", 10_100),
    ],
    ["file-preview-1000", "one preview of 10.1 s", slower("fast", "native", 1000, "preview", 10_100)],
    ["file-refresh-1000", "one refresh of 15.1 s", slower("fast", "real", 1000, "refresh", 15_100)],
    [
      "file-fast-linear",
      "a marginal cost at 3,000 1.6× that at 300",
      slower("fast", "native", 3000, "up", 12_000 + 2000 * 8 * 1.6),
    ],
  ])("judges %s missed by %s", (id, _what, change) => {
    const goal = results(change).goals.find((g) => g.id === id)!;
    expect(goal.met).toBe(false);
    expect(results(change).goals.filter((g) => g.met === false)).toHaveLength(1);
  });

  it("says not measured when the run lacks the cells a goal needs", () => {
    const r = results((cells) => cells.splice(0, cells.length, ...cells.filter((c) => c.n !== 1000)));
    expect(r.goals.filter((g) => g.id !== "file-fast-linear").every((g) => g.met === null)).toBe(true);
    expect(r.goals[0].figure).toBe("not measured");
  });

  it("prints one table per backend and mode, and the goals", () => {
    const md = scaleMarkdown({
      ...results(),
      date: "2026-11-24T00:00:00.000Z",
      runs: 1,
      durationSeconds: 1,
      machine: { cores: 2, loadAverageAtStart: 0.5 },
      versions: { pulumi: "v3", pulumiSdk: "3", node: "v20" },
    } as unknown as ScaleResults);
    expect(md).toContain("## file backend, checkpoints");
    expect(md).toContain("## file backend, fast mode (skipped checkpoints)");
    expect(md).toContain("| 1000 | native door | 12 s | 5 s | 5 s | 5 s | 5 s | 2000 B |");
    expect(md).toContain(
      "| file: up of 1000 from empty, native door, fast mode, within 15 s and 1.1× the floor in fast mode | 12 s, 1.04× the floor's 11.5 s | yes |",
    );
  });
});

describe("benchScale on PostgreSQL", () => {
  const dir = useTempDir("bench-scale-");

  it("deploys, re-deploys, previews, refreshes and destroys through the native door in both modes, and writes the document and its chart", async () => {
    const outFile = path.join(dir(), "scale.json");
    const lines: string[] = [];
    const r = await benchScale({
      ...scaleOptions({ BENCH_QUICK: "1" }),
      counts: [2],
      backends: ["postgres"],
      variants: ["native"],
      outFile,
      log: (l) => lines.push(l),
    });
    expect(r.cells.map((c) => [c.backend, c.mode, c.variant, c.n])).toEqual([
      ["postgres", "checkpoints", "native", 2],
      ["postgres", "fast", "native", 2],
    ]);
    for (const c of r.cells) {
      for (const op of SCALE_OPS) expect(c.ms[op].median).toBeGreaterThan(0);
      // The CPU time split by process (from /proc): the engine, the program and the plugin each used some.
      for (const part of ["engine", "program", "provider"] as const)
        expect(c.cpuByPart!.up[part]).toBeGreaterThan(0);
      // The native door's state: no serialized provider, about 2 KB per resource.
      expect(c.stateBytesPerResource.median).toBeGreaterThan(500);
      expect(c.stateBytesPerResource.median).toBeLessThan(4000);
    }
    expect(lines).toHaveLength(2);
    expect(JSON.parse(readFileSync(outFile, "utf8"))).toEqual(r);
    expect(existsSync(path.join(dir(), "scale-postgres.svg"))).toBe(true);
  }, 600_000);
});

/**
 * The goals of the benchmark at scale (bench/scale.ts, docs/performance.md § Scale), judged
 * against a run's medians for each backend, and the run printed as Markdown tables.
 *
 * @packageDocumentation
 */
import type { Goal } from "./goals";
import type { Backend, Mode, ScaleCell, ScaleResults } from "./scale-results";
import type { ScaleOp, Variant } from "./stacks";
import { round, type Summary } from "./stats";

/** The N of the time goals. */
export const GOAL_N = 1000;
/** `up` of {@link GOAL_N} from empty through the native door in fast mode: at most this, in ms. */
export const FAST_UP_MS = 15_000;
/** … and at most this ratio to the floor in fast mode. */
export const FAST_UP_FLOOR_RATIO = 1.1;
/** With checkpoints, the dynamic door's `up` over the native door's: at least this. */
export const CHECKPOINT_SPEEDUP = 3;
/** `up` with no changes and `preview` of {@link GOAL_N}: at most this, in ms. */
export const NO_CHANGE_MS = 10_000;
/** `refresh` of {@link GOAL_N}: at most this, in ms. */
export const REFRESH_MS = 15_000;
/** Marginal cost per resource of `up` in fast mode, at the largest N over at N = 300: at most this. */
export const LINEAR_GROWTH = 1.5;
/** The N whose marginal cost is the base of the linearity goal. */
export const LINEAR_FROM_N = 300;

/** Program names as printed. */
export const VARIANT_NAMES: Record<Variant, string> = {
  floor: "floor",
  real: "dynamic door",
  native: "native door",
};

/** Seconds of a median, as printed: `12.34 s`. */
const sec = (s: Summary) => `${round(s.median / 1000, 2)} s`;

/** The cell of these coordinates, or undefined when the run did not measure it. */
export function cellOf(
  r: Pick<ScaleResults, "cells">,
  backend: Backend,
  mode: Mode,
  variant: Variant,
  n: number,
): ScaleCell | undefined {
  return r.cells.find((c) => c.backend === backend && c.mode === mode && c.variant === variant && c.n === n);
}

/**
 * Marginal cost of `up` per resource between consecutive N (ms per resource, from the medians):
 * `[{ from, to, msPerResource }]`, for one backend, mode and program.
 */
export function marginalCosts(
  r: Pick<ScaleResults, "cells">,
  backend: Backend,
  mode: Mode,
  variant: Variant,
): { from: number; to: number; msPerResource: number }[] {
  const cells = r.cells
    .filter((c) => c.backend === backend && c.mode === mode && c.variant === variant)
    .sort((a, b) => a.n - b.n);
  return cells.slice(1).map((c, i) => ({
    from: cells[i].n,
    to: c.n,
    msPerResource: (c.ms.up.median - cells[i].ms.up.median) / (c.n - cells[i].n),
  }));
}

const unmeasured = (id: string, goal: string): Goal => ({ id, goal, figure: "not measured", met: null });

/**
 * The goal `id` stated as `goal`, judged by `verdict`: its figure as printed and whether it is
 * met, or undefined when the run lacks the cells it needs ("not measured").
 */
const judged = (id: string, goal: string, verdict: () => Pick<Goal, "figure" | "met"> | undefined): Goal => {
  const v = verdict();
  return v ? { id, goal, ...v } : unmeasured(id, goal);
};

/** The goals of one backend. */
function backendGoals(r: ScaleResults, backend: Backend): Goal[] {
  const n = GOAL_N;
  const at = (mode: Mode, variant: Variant) => cellOf(r, backend, mode, variant, n);
  const goals: Goal[] = [];
  const nativeFast = at("fast", "native");
  const floorFast = at("fast", "floor");
  {
    const id = `${backend}-fast-up-${n}`;
    const goal = `${backend}: up of ${n} from empty, native door, fast mode, within ${FAST_UP_MS / 1000} s and ${FAST_UP_FLOOR_RATIO}× the floor in fast mode`;
    goals.push(
      judged(id, goal, () => {
        if (!nativeFast || !floorFast) return undefined;
        const ratio = nativeFast.ms.up.median / floorFast.ms.up.median;
        return {
          figure: `${sec(nativeFast.ms.up)}, ${round(ratio, 2)}× the floor's ${sec(floorFast.ms.up)}`,
          met: nativeFast.ms.up.median <= FAST_UP_MS && ratio <= FAST_UP_FLOOR_RATIO,
        };
      }),
    );
  }
  {
    const id = `${backend}-checkpoints-up-${n}`;
    const goal = `${backend}: up of ${n} from empty with checkpoints, native door at least ${CHECKPOINT_SPEEDUP}× faster than the dynamic door`;
    const nat = at("checkpoints", "native");
    const dyn = at("checkpoints", "real");
    const floorCheckpoints = at("checkpoints", "floor");
    goals.push(
      judged(id, goal, () => {
        if (!nat || !dyn) return undefined;
        const speedup = dyn.ms.up.median / nat.ms.up.median;
        return {
          figure:
            `${round(speedup, 2)}× (${sec(nat.ms.up)} against ${sec(dyn.ms.up)}` +
            `${floorCheckpoints ? `; floor ${sec(floorCheckpoints.ms.up)}` : ""})`,
          met: speedup >= CHECKPOINT_SPEEDUP,
        };
      }),
    );
  }
  // The operations that write no step (no changes) and refresh, in each mode, for both doors.
  const timeGoal = (op: ScaleOp, what: string, limit: number) => {
    const id = `${backend}-${op}-${n}`;
    const goal = `${backend}: ${what} of ${n} within ${limit / 1000} s, both doors, both modes`;
    const cells = (["checkpoints", "fast"] as Mode[]).flatMap((mode) =>
      (["real", "native"] as Variant[]).map((variant) => at(mode, variant)),
    );
    return judged(id, goal, () => {
      if (cells.some((c) => c === undefined)) return undefined;
      const measured = cells as ScaleCell[];
      return {
        figure: measured.map((c) => `${VARIANT_NAMES[c.variant]} ${c.mode} ${sec(c.ms[op])}`).join(", "),
        met: measured.every((c) => c.ms[op].median <= limit),
      };
    });
  };
  goals.push(timeGoal("upNoChange", "up with no changes", NO_CHANGE_MS));
  goals.push(timeGoal("preview", "preview", NO_CHANGE_MS));
  goals.push(timeGoal("refresh", "refresh", REFRESH_MS));
  {
    const id = `${backend}-fast-linear`;
    const largest = Math.max(...r.counts);
    const goal = `${backend}: marginal cost per resource of up in fast mode, native door, at N = ${largest} within ${LINEAR_GROWTH}× of that at N = ${LINEAR_FROM_N}`;
    const m = marginalCosts(r, backend, "fast", "native");
    const base = m.find((s) => s.to === LINEAR_FROM_N);
    const last = m[m.length - 1];
    goals.push(
      judged(id, goal, () => {
        if (!base || !last || last.to <= LINEAR_FROM_N) return undefined;
        const growth = last.msPerResource / base.msPerResource;
        const floor = marginalCosts(r, backend, "fast", "floor");
        const fb = floor.find((s) => s.to === LINEAR_FROM_N);
        const fl = floor[floor.length - 1];
        const floorGrowth = fb && fl ? `; floor ${round(fl.msPerResource / fb.msPerResource, 2)}×` : "";
        return {
          figure:
            `${round(growth, 2)}× (${round(base.msPerResource, 2)} ms from ${base.from} to ${base.to}, ` +
            `${round(last.msPerResource, 2)} ms from ${last.from} to ${last.to}${floorGrowth})`,
          met: growth <= LINEAR_GROWTH,
        };
      }),
    );
  }
  return goals;
}

/** Every goal of the run, backend by backend. */
export function scaleGoals(r: ScaleResults): Goal[] {
  return r.backends.flatMap((b) => backendGoals(r, b));
}

/** The run as Markdown: one table per backend and mode, then the goals. */
export function scaleMarkdown(r: ScaleResults): string {
  const lines: string[] = [
    `# Benchmark at scale, ${r.date}`,
    "",
    `${r.machine.cores} cores, load average ${r.machine.loadAverageAtStart} at the start; Pulumi ${r.versions.pulumi}, ` +
      `@pulumi/pulumi ${r.versions.pulumiSdk}, Node.js ${r.versions.node}; ${r.runs} run(s), medians; ${r.durationSeconds} s in all.`,
  ];
  for (const backend of r.backends) {
    for (const mode of ["checkpoints", "fast"] as Mode[]) {
      const cells = r.cells.filter((c) => c.backend === backend && c.mode === mode).sort((a, b) => a.n - b.n);
      if (cells.length === 0) continue;
      lines.push(
        "",
        `## ${backend} backend, ${mode === "fast" ? "fast mode (skipped checkpoints)" : "checkpoints"}`,
        "",
        "| N | program | up | up, no changes | preview | refresh | destroy | state per resource |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
      );
      for (const c of cells) {
        lines.push(
          `| ${c.n} | ${VARIANT_NAMES[c.variant]} | ${sec(c.ms.up)} | ${sec(c.ms.upNoChange)} | ${sec(c.ms.preview)} | ` +
            `${sec(c.ms.refresh)} | ${sec(c.ms.destroy)} | ${Math.round(c.stateBytesPerResource.median)} B |`,
        );
      }
    }
  }
  // Where the CPU time of the largest stacks went, process by process.
  for (const backend of r.backends) {
    for (const mode of ["checkpoints", "fast"] as Mode[]) {
      const cells = r.cells.filter((c) => c.backend === backend && c.mode === mode && c.cpuByPart);
      if (cells.length === 0) continue;
      const n = Math.max(...cells.map((c) => c.n));
      lines.push(
        "",
        `## CPU time by process, ${backend} backend, ${mode === "fast" ? "fast mode" : "checkpoints"}, N = ${n}`,
        "",
        "| program | operation | engine (CLI, language host) | program | provider | emulator and Automation API |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
      );
      for (const c of cells.filter((c) => c.n === n)) {
        for (const op of Object.keys(c.cpuByPart!) as ScaleOp[]) {
          const p = c.cpuByPart![op];
          const s1 = (ms: number) => `${round(ms / 1000, 2)} s`;
          lines.push(
            `| ${VARIANT_NAMES[c.variant]} | ${op} | ${s1(p.engine)} | ${s1(p.program)} | ${s1(p.provider)} | ${s1(p.emulator)} |`,
          );
        }
      }
    }
  }
  lines.push("", "## Goals", "", "| goal | figure | met |", "| --- | --- | --- |");
  for (const g of r.goals)
    lines.push(`| ${g.goal} | ${g.figure} | ${g.met === null ? "n/a" : g.met ? "yes" : "no"} |`);
  return lines.join("\n");
}

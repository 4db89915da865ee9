/**
 * The performance goals of `npm run bench` (docs/performance.md), each judged met or missed
 * against the figures of a run, with the figure it was judged on as printed.
 *
 * @packageDocumentation
 */
import type { Compared, DeployResults, ScaleFigures } from "./deploy-results";
import type { EmulatorResults } from "./emulator";
import type { ClientResults } from "./client";
import type { StateResults } from "./state";
import { round, type Summary } from "./stats";

/** One performance goal. */
export interface Goal {
  /** Short name, e.g. `deploy-300`. */
  id: string;
  /** The goal as stated, e.g. `up of 300 within 1.3× of the floor`. */
  goal: string;
  /** The figure compared (medians), as printed. */
  figure: string;
  /** True when met, false when missed, null when this run could not measure it (e.g. quick mode). */
  met: boolean | null;
}

/** A ratio's median, as printed: `1.07×`. */
export const x = (s: Summary) => `${round(s.median, 2)}×`;

function ratioGoal(id: string, what: string, c: Compared, limit: number): Goal {
  return {
    id,
    goal: `${what} within ${limit}× of the engine floor`,
    figure:
      `${x(c.ratio)} (${fmtMs(c.realMs)} vs ${fmtMs(c.floorMs)})` +
      (c.cpu ? `; CPU time ${x(c.cpu.ratio)}` : ""),
    met: c.ratio.median <= limit,
  };
}

/** Limit of the fixed-cost goals: wall and CPU time of the smallest stack against the floor. */
export const FIXED_COST_LIMIT = 1.1;

function fixedCostGoal(id: string, what: string, c: Compared): Goal {
  const goal = ratioGoal(id, what, c, FIXED_COST_LIMIT);
  return {
    ...goal,
    goal: `${what} within ${FIXED_COST_LIMIT}× of the engine floor, wall and CPU time`,
    met: c.ratio.median <= FIXED_COST_LIMIT && (c.cpu === null || c.cpu.ratio.median <= FIXED_COST_LIMIT),
  };
}

/**
 * Largest growth, from the smallest N to the largest, of what must stay constant for our cost to
 * be linear: state per resource, requests per resource, the emulator's time per request.
 */
export const SCALE_MAX_GROWTH = 1.2;
/** Largest rise of `up`'s ratio to the floor from the smallest N to the largest. */
export const SCALE_MAX_RATIO_RISE = 0.05;

/** Bytes per resource by which the provider process's peak memory grows from the first N to the last. */
function memoryPerResource(a: ScaleFigures, b: ScaleFigures, v: "floor" | "real"): number | null {
  const pa = a.peakRssBytes.provider;
  const pb = b.peakRssBytes.provider;
  return pa && pb ? (pb[v].median - pa[v].median) / (b.n - a.n) : null;
}

/**
 * The scale goal: nothing of ours grows faster than linear in N. The engine's own cost per
 * resource grows with N (its floor does too), so time is judged as the ratio to the floor.
 */
function scaleGoal(d: DeployResults): Goal {
  const a = d.scale[0];
  const b = d.scale[d.scale.length - 1];
  const growth = (f: (s: ScaleFigures) => number) => f(b) / f(a);
  const state = growth((s) => s.stateBytesPerResource.real.median);
  const requests = growth((s) => s.emulator.requests.median / (s.n + 1));
  const perRequest = growth((s) => s.emulator.msPerRequest.median);
  const ratioA = d.up[0].ratio.median;
  const ratioB = d.up[d.up.length - 1].ratio.median;
  const memFloor = memoryPerResource(a, b, "floor");
  const memReal = memoryPerResource(a, b, "real");
  const kb = (v: number | null) => (v === null ? "n/a" : `${round(v / 1024, 1)} KiB`);
  return {
    id: "linear",
    goal:
      `nothing of ours grows faster than linear in N (N = ${a.n} → ${b.n}: state per resource, requests per ` +
      `resource and the emulator's time per request within ${SCALE_MAX_GROWTH}×; up's ratio to the floor up by at most ${SCALE_MAX_RATIO_RISE})`,
    figure:
      `state per resource ${round(state, 2)}×, requests per resource ${round(requests, 2)}×, emulator time per request ` +
      `${round(perRequest, 2)}× (${round(a.emulator.msPerRequest.median, 2)} → ${round(b.emulator.msPerRequest.median, 2)} ms); ` +
      `up's ratio to the floor ${round(ratioA, 2)} → ${round(ratioB, 2)}; provider process memory per resource ` +
      `${kb(memReal)} (floor ${kb(memFloor)})`,
    met:
      state <= SCALE_MAX_GROWTH &&
      requests <= SCALE_MAX_GROWTH &&
      perRequest <= SCALE_MAX_GROWTH &&
      ratioB <= ratioA + SCALE_MAX_RATIO_RISE,
  };
}

/**
 * Limit of the fast-mode goals: the native door's `up` from empty, and both doors' `up` with no
 * changes and `preview`, of the largest N against the floor, all in fast mode.
 */
export const FAST_MODE_LIMIT = 1.1;

/**
 * The goals of fast mode (`BENCH_FAST=1`) at the largest N, each door against the floor of the
 * same runs: the native door's `up` from empty, and `up` with no changes and `preview` through
 * both doors, within {@link FAST_MODE_LIMIT}×. Documents without the no-change `up` (older ones)
 * leave those goals out.
 */
export function fastModeGoals(d: DeployResults): Goal[] {
  const n = d.largest.n;
  const native = d.native[d.native.length - 1];
  const goals = [
    ratioGoal(`fast-native-up-${n}`, `fast mode: up of ${n}, native door,`, native.up, FAST_MODE_LIMIT),
  ];
  for (const [door, figures] of [
    ["dynamic", d.largest],
    ["native", native],
  ] as const) {
    if (figures.upNoChange)
      goals.push(
        ratioGoal(
          `fast-${door}-up-no-change-${n}`,
          `fast mode: up with no changes of ${n}, ${door} door,`,
          figures.upNoChange,
          FAST_MODE_LIMIT,
        ),
      );
    goals.push(
      ratioGoal(
        `fast-${door}-preview-${n}`,
        `fast mode: preview of ${n}, ${door} door,`,
        figures.preview,
        FAST_MODE_LIMIT,
      ),
    );
  }
  return goals;
}

/**
 * The goals of the deploy benchmark: `up`, `refresh`, `destroy` and `preview` of the largest N
 * against the floor, the fixed cost of the smallest N, growth with N, and with `fast` the goals
 * of fast mode ({@link fastModeGoals}).
 */
export function deployGoals(d: DeployResults, fast = false): Goal[] {
  const n = d.largest.n;
  const goals: Goal[] = [
    ratioGoal(`deploy-${n}`, `up of ${n}`, d.up[d.up.length - 1], 1.3),
    ratioGoal(`refresh-${n}`, `refresh of ${n}`, d.largest.refresh, 1.3),
    ratioGoal(`destroy-${n}`, `destroy of ${n}`, d.largest.destroy, 1.3),
    ratioGoal(`preview-${n}`, `preview (no changes) of ${n}`, d.largest.preview, 1.2),
  ];
  // The fixed cost a pipeline pays on every run: the smallest stack, wall and CPU time.
  const small = d.operations?.[0];
  if (small && small.n < n) {
    goals.push(fixedCostGoal(`fixed-up-${small.n}`, `up of ${small.n}`, d.up[0]));
    goals.push(
      fixedCostGoal(`fixed-preview-${small.n}`, `preview (no changes) of ${small.n}`, small.preview),
    );
  }
  if (d.scale && d.scale.length >= 2) {
    goals.push(scaleGoal(d));
  } else {
    goals.push({
      id: "linear",
      goal: "nothing of ours grows faster than linear in N",
      figure: "not measured (one N only)",
      met: null,
    });
  }
  if (fast) goals.push(...fastModeGoals(d));
  return goals;
}

/** Evaluates every performance goal against the figures; `fast`: the deployments ran in fast mode. */
export function evaluateGoals(
  d: DeployResults,
  s: StateResults,
  c: ClientResults,
  e: EmulatorResults,
  fast = false,
): Goal[] {
  const goals = deployGoals(d, fast);
  const ours = s.types.filter((t) => t.type.includes("/service:"));
  const biggest = ours.reduce((a, b) => (b.providerBytes.median > a.providerBytes.median ? b : a));
  goals.push({
    id: "provider-size",
    goal: "serialized provider under 4 KB (4,096 bytes) per resource",
    figure: ours.map((t) => `${t.type.split(":").pop()} ${t.providerBytes.median} B`).join(", "),
    met: biggest.providerBytes.median < 4096,
  });
  for (const m of c.modes) {
    // Sequential: 1.10× (the per-call overhead); concurrent: at or below the bare loop.
    const limit = m.concurrency === 1 ? 1.1 : 1.0;
    goals.push({
      id: m.concurrency === 1 ? "client-sequential" : `client-concurrency-${m.concurrency}`,
      goal: `client within ${limit.toFixed(2)}× of bare undici (${m.concurrency === 1 ? "sequential" : `concurrency ${m.concurrency}`})`,
      figure: `${x(m.ratio)} (${fmtMs(m.clientMs)} vs ${fmtMs(m.undiciMs)} for ${c.requests} GETs)`,
      met: m.ratio.median <= limit,
    });
  }
  const get = e.endpoints.find((p) => p.endpoint === "get")!;
  goals.push({
    id: "emulator-get",
    goal: "emulator ≥ 5,000 GET/s with p99 < 20 ms",
    figure: `${Math.round(get.requestsPerSecond.median)} req/s, p99 ${get.p99Ms.median} ms`,
    met: get.requestsPerSecond.median >= 5000 && get.p99Ms.median < 20,
  });
  return goals;
}

/** A time's median, as printed: `850 ms`, `1.25 s`. */
export function fmtMs(s: Summary): string {
  return s.median >= 1000 ? `${round(s.median / 1000, 2)} s` : `${round(s.median, 0)} ms`;
}

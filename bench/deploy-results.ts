/**
 * The results of the deploy benchmark (bench/deploy.ts) as its document holds them: each figure
 * of the floor against a door, run by run ({@link Compared}), the per-resource cost of `up`, the
 * operations of every N, what grows with N, the native door's figures and the requests per
 * operation. bench/measure.ts computes them from the samples; bench/goals.ts judges them.
 *
 * @packageDocumentation
 */
import type { RequestsResults } from "./request-counts";
import type { Summary } from "./stats";

/** A figure of the floor and of the real provider, with their ratio (real / floor, per run). */
export interface Compared {
  /** Wall time of the floor program, in milliseconds. */
  floorMs: Summary;
  /** Wall time of the real program, in milliseconds. */
  realMs: Summary;
  /** real / floor wall time, computed within each run. */
  ratio: Summary;
  /**
   * CPU time of the whole operation (Pulumi CLI, language host, program, dynamic-provider
   * process, and the in-process emulator serving the real one), in milliseconds: floor, real and
   * real / floor per run. Null where it cannot be measured (no /proc).
   */
  cpu: { floorMs: Summary; realMs: Summary; ratio: Summary } | null;
}

/** Per-resource cost of one variant: the least-squares slope of `up` time against N. */
export interface PerResourceCost {
  /** Slope of the fit through the medians, in milliseconds per resource. */
  msPerResource: number;
  /** Intercept of that fit (fixed cost of a deployment), in milliseconds. */
  fixedMs: number;
  /** R² of that fit. */
  r2: number;
  /** Slope fitted within each run, in milliseconds per resource. */
  slopePerRun: Summary;
  /** Marginal cost between consecutive N (ms per resource), from the medians: `[10→100, 100→300]`. */
  segmentSlopes: number[];
}

/** The per-resource cost of each variant, from wall time and from CPU time (null when not measured). */
export interface PerResourceCosts {
  floor: PerResourceCost;
  real: PerResourceCost;
  cpu: { floor: PerResourceCost; real: PerResourceCost } | null;
}

/** Results of `benchDeploy` (bench/deploy.ts). */
export interface DeployResults {
  /** The N measured. */
  counts: number[];
  /** `pulumi up` from empty, for each N. */
  up: ({ n: number } & Compared)[];
  /** Per-resource cost from wall time, and from CPU time when measured (null with a single N). */
  perResource: PerResourceCosts | null;
  /** Every N's stack after `up`: `up` with no changes, preview (no changes), refresh, destroy, timed. */
  operations: { n: number; upNoChange: Compared; preview: Compared; refresh: Compared; destroy: Compared }[];
  /**
   * What grows with N besides time, for each N (goal: nothing of ours faster than linear):
   * state per resource, peak memory of the processes of `up`, and the emulator's time per
   * request it served during `up`.
   */
  scale: ScaleFigures[];
  /** The largest N's stack after `up`: `up` with no changes, preview (no changes), refresh, destroy. */
  largest: {
    n: number;
    upNoChange: Compared;
    preview: Compared;
    refresh: Compared;
    destroy: Compared;
    /** Bytes of the exported state (compact JSON) divided by the number of resources. */
    stateBytesPerResource: { floor: Summary; real: Summary };
  };
  /** The native door beside the floor, for each N, from the same runs. */
  native: NativeDoorFigures[];
  /**
   * The requests the emulator answered per resource, by method, during each operation of the
   * first run's stacks of both doors (`up`, `up` with no changes, `preview`, `refresh`,
   * `service-drift`, `destroy`), and the goals' verdicts (bench/request-counts.ts).
   */
  requests: RequestsResults;
}

/**
 * The native door's figures of one N (bench/fixtures/native). Each {@link Compared} holds the
 * floor (`floorMs`) against the native door (`realMs`), run by run.
 */
export interface NativeDoorFigures {
  n: number;
  /** `pulumi up` from empty. */
  up: Compared;
  /** A second `pulumi up`, with no changes. */
  upNoChange: Compared;
  preview: Compared;
  refresh: Compared;
  destroy: Compared;
  /** Bytes of the exported state (compact JSON) divided by the number of resources. */
  stateBytesPerResource: Summary;
  /** Peak resident memory, in bytes, of the plugin's process and of the program during `up`. */
  peakRssBytes: { provider: Summary | null; program: Summary | null };
}

/** Figures of one N that show how the cost grows (see {@link DeployResults.scale}). */
export interface ScaleFigures {
  n: number;
  /** Bytes of the exported state (compact JSON) divided by the number of resources. */
  stateBytesPerResource: { floor: Summary; real: Summary };
  /**
   * Peak resident memory (getrusage's maxrss), in bytes, of the dynamic-provider process and of
   * the Pulumi program during `up`; null where a process wrote none (bench/fixtures/peak-rss.js).
   */
  peakRssBytes: {
    provider: { floor: Summary; real: Summary } | null;
    program: { floor: Summary; real: Summary } | null;
  };
  /**
   * The emulator during the real `up`: requests it answered, and its mean time per request
   * (Fastify's `reply.elapsedTime`, from receiving the request to sending the answer), in ms.
   */
  emulator: { requests: Summary; msPerRequest: Summary };
}

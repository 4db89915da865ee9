/**
 * What the bench at a real service's latency (bench/latency.ts) measures and writes: its
 * operations, each operation's sample (wall time, the emulator's answers by status class and
 * route, failures), the figures of each (latency, N) cell and of the `--parallel` sweep, and the
 * results document; bench/latency-markdown.ts prints them.
 *
 * @packageDocumentation
 */
import type { RateLimitOptions } from "service-emulator";
import type { MachineInfo, Versions } from "./report";
import type { Summary } from "./stats";

/** The operations timed on each stack, in order. */
export const LATENCY_OPS = ["up", "refresh", "destroy"] as const;

/** An operation of {@link LATENCY_OPS}. */
export type LatencyOp = (typeof LATENCY_OPS)[number];

/** What the emulator answered during one operation. */
export interface OperationRequests {
  /** Every answer. */
  requests: number;
  /** Answers 200-299. */
  ok: number;
  /** Answers 429 (the rate limit): each one a request the client had to send again. */
  limited: number;
  /** Any other answer. */
  other: number;
  /** Every answer by method and route, e.g. `{ "POST /event_subscriptions": 1001 }`. */
  routes: Record<string, number>;
}

/** One operation of one stack, one run. */
export interface OperationSample {
  /** Wall time, in ms. */
  ms: number;
  /** The emulator's count; null for the floor, which makes no request. */
  requests: OperationRequests | null;
  /**
   * Service resources the operation did not get done, when the engine reported an error: for
   * `up` and `destroy`, N + 1 minus the successful creates or deletes (at least 1), for `refresh`
   * 1; 0 without an error. Goal: 0.
   */
  failures: number;
  /** The engine's error when it reported one: its diagnostics (`diagnostics` of bench/latency.ts). */
  error?: string;
}

/** The figures of one variant in one cell, over the runs. */
export interface VariantFigures {
  /** Wall time of each operation, in ms. */
  ms: Record<LatencyOp, Summary>;
  /** Wall time of up + refresh + destroy, in ms. */
  totalMs: Summary;
  /** Every run's samples. */
  samples: Record<LatencyOp, OperationSample>[];
}

/** One (latency, N) cell: the floor with the same latency, and both doors. */
export interface LatencyCell {
  latencyMs: number;
  n: number;
  floor: VariantFigures;
  real: VariantFigures;
  native: VariantFigures;
}

/** One `--parallel` value of the sweep, for one door. */
export interface ParallelCell {
  parallel: number;
  door: "real" | "native";
  figures: VariantFigures;
}

/** What `benchLatency` (bench/latency.ts) measured. */
export interface LatencyResults {
  cells: LatencyCell[];
  /** The sweep of `--parallel`, at {@link LatencyResults.parallelN} and {@link LatencyResults.parallelLatencyMs}. */
  parallel: ParallelCell[];
  parallelN: number;
  parallelLatencyMs: number;
}

/** The results file (`bench/results/<date>-latency.json`). */
export interface LatencyDocument extends LatencyResults {
  schemaVersion: 1;
  kind: "latency";
  date: string;
  quick: boolean;
  machine: MachineInfo;
  versions: Versions;
  settings: {
    jitterMs: number;
    rateLimit: RateLimitOptions;
    runs: number;
    runsLarge: number;
    fastMode: boolean;
    /** The engine's `--parallel` of the cells (its default: 4 per CPU). */
    cellsParallel: string;
    /**
     * How the providers paced their requests: a ceiling (requests per second) and burst
     * (requests), or `"learned"` (the rate learned from 429s: client/pacer.ts). Absent in runs
     * from before the providers paced.
     */
    pace?: { maxRequestsPerSecond: number; burst?: number } | "learned";
  };
  durationSeconds: number;
}

/**
 * The settings of the bench at a real service's latency (bench/latency.ts), and their reading
 * from the environment (`BENCH_LATENCIES`, `BENCH_COUNTS`, `BENCH_CELLS`, `BENCH_RATE_LIMIT`, …:
 * see bench/latency.ts), each malformed variable an error that names it.
 *
 * @packageDocumentation
 */
import type { RateLimitOptions } from "service-emulator";

/**
 * The emulator's rate limit from `BENCH_RATE_LIMIT` (`<max>/<window>`, the window in `ms`, `s`
 * (the default unit) or `m`, e.g. `20/1s`, `120/60s`) and `BENCH_RATE_LIMIT_BURST` (a token
 * bucket's burst, in requests; `0`: a rolling window of `max` requests), each unset one taken from
 * `fallback` and `fallbackBurst`.
 * @returns the limit, or `undefined` when neither `BENCH_RATE_LIMIT` nor `fallback` gives one.
 * @throws Error naming the variable when either is malformed.
 */
export function rateLimitFromEnv(
  env: NodeJS.ProcessEnv,
  fallback: string | undefined,
  fallbackBurst: number,
): RateLimitOptions | undefined {
  const rateRaw = env.BENCH_RATE_LIMIT || fallback;
  if (rateRaw === undefined) return undefined;
  const rm = /^\s*(\d+)\s*\/\s*(\d+)\s*(ms|s|m)?\s*$/.exec(rateRaw);
  if (!rm) throw new Error(`BENCH_RATE_LIMIT must be <max>/<window>, e.g. 20/1s or 120/60s, got ${rateRaw}`);
  const windowMs = Number(rm[2]) * (rm[3] === "ms" ? 1 : rm[3] === "m" ? 60_000 : 1000);
  const [burst] = wholeList(env, "BENCH_RATE_LIMIT_BURST", [fallbackBurst], 0);
  return burst === 0 ? { max: Number(rm[1]), windowMs } : { max: Number(rm[1]), windowMs, burst };
}

/** The settings of `benchLatency` (bench/latency.ts). */
export interface LatencyBenchOptions {
  /** The (round trip in ms, N) cells, in order. */
  cells: { latencyMs: number; n: number }[];
  /** Jitter of each round trip, in ms (the emulator's and the floor's alike). */
  jitterMs: number;
  /** The emulator's rate limit, per account. */
  rateLimit: RateLimitOptions;
  /** The `--parallel` values of the sweep (empty: no sweep). */
  parallel: number[];
  /** N of the sweep's stacks. */
  parallelN: number;
  /** Runs of each cell with N under 1,000 and of each sweep value. */
  runs: number;
  /** Runs of each cell from N = 1,000. */
  runsLarge: number;
  /** The engine without checkpoints (`FAST_MODE_ENV` of bench/engine.ts). */
  fast: boolean;
  /**
   * The providers' ceiling in requests per second (`SERVICE_MAX_REQUESTS_PER_SECOND`) and burst
   * in requests (`SERVICE_REQUEST_BURST`); `undefined`: the rate learned from 429s.
   */
  pace?: { maxRequestsPerSecond: number; burst?: number };
  /** Progress lines (to stderr). */
  log: (line: string) => void;
}

/**
 * A list of whole numbers from the environment variable `name`, or `fallback` when unset.
 * @throws Error naming the variable when an item is not a whole number from `min` up.
 */
function wholeList(env: NodeJS.ProcessEnv, name: string, fallback: number[], min: number): number[] {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const values = raw.split(",").map((s) => Number(s.trim()));
  if (!values.every((v) => Number.isSafeInteger(v) && v >= min))
    throw new Error(`${name} must be whole numbers from ${min} up, separated by commas, got ${raw}`);
  return values;
}

/**
 * The settings from the environment `env` (see the module comment of bench/latency.ts).
 * @throws Error naming the variable and its rule when one is malformed.
 */
export function latencyOptionsFromEnv(
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): LatencyBenchOptions & { quick: boolean } {
  const quick = env.BENCH_QUICK === "1" || env.BENCH_QUICK === "true";
  const latencies = wholeList(env, "BENCH_LATENCIES", quick ? [50] : [50, 150], 0);
  const counts = wholeList(env, "BENCH_COUNTS", quick ? [5] : [100, 1000], 1);
  let cells = latencies.flatMap((latencyMs) => counts.map((n) => ({ latencyMs, n })));
  if (env.BENCH_CELLS) {
    cells = env.BENCH_CELLS.split(",").map((item) => {
      const m = /^\s*(\d+)\s*:\s*(\d+)\s*$/.exec(item);
      if (!m || Number(m[2]) < 1)
        throw new Error(
          `BENCH_CELLS must be latency:N pairs separated by commas, e.g. 150:1000, got ${item}`,
        );
      return { latencyMs: Number(m[1]), n: Number(m[2]) };
    });
  }
  const rateLimit = rateLimitFromEnv(env, quick ? "2/1s" : "20/1s", quick ? 2 : 40)!;
  const parallel = wholeList(env, "BENCH_PARALLEL", quick ? [2] : [1, 4, 8, 16, 32], 0).filter((p) => p > 0);
  const [parallelN] = wholeList(env, "BENCH_PARALLEL_N", [quick ? 5 : 100], 1);
  const [runs] = wholeList(env, "BENCH_RUNS", [1], 1);
  const [runsLarge] = wholeList(env, "BENCH_RUNS_LARGE", [1], 1);
  const [jitterMs] = wholeList(env, "BENCH_JITTER_MS", [0], 0);
  const fast = !(env.BENCH_CHECKPOINTS === "1" || env.BENCH_CHECKPOINTS === "true");
  let pace: LatencyBenchOptions["pace"];
  if (env.BENCH_MAX_RPS) {
    const rps = Number(env.BENCH_MAX_RPS);
    if (!(rps > 0))
      throw new Error(
        `BENCH_MAX_RPS must be a number of requests per second above 0, got ${env.BENCH_MAX_RPS}`,
      );
    const [burst] = wholeList(env, "BENCH_REQUEST_BURST", [1], 1);
    pace = { maxRequestsPerSecond: rps, burst };
  }
  return { quick, cells, jitterMs, rateLimit, parallel, parallelN, runs, runsLarge, fast, log, pace };
}

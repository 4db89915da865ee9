/**
 * What the bench of parallel stacks (bench/teams.ts) measures and writes: the two batches of
 * `up`s, one batch's sample, each backend's figures, the results document, and those figures
 * computed from the runs' samples ({@link teamsFigures}); bench/teams-markdown.ts prints them.
 *
 * @packageDocumentation
 */
import type { RateLimitOptions } from "service-emulator";
import type { MachineInfo, Versions } from "./report";
import type { Backend } from "./scale-results";
import { round, summarize, type Summary } from "./stats";

/** The two batches of `up`s: all K at the same time, and one after the other. */
export type Batch = "parallel" | "sequential";

/** The figures of one backend over the runs. */
export interface TeamsBackendFigures {
  backend: Backend;
  /** Wall time of the K `up`s at the same time, in milliseconds. */
  parallelMs: Summary;
  /** Wall time of the K `up`s one after the other, in milliseconds. */
  sequentialMs: Summary;
  /**
   * CPU milliseconds of each batch (this process, with the emulator, and every process the
   * engine ran, from /proc); null where /proc cannot be read.
   */
  cpuMs: { parallel: Summary; sequential: Summary } | null;
  /** Parallel / one after the other, taken within each run (below 1: parallel is faster). */
  ratio: Summary;
}

/** The service the stacks were deployed against, and the answers of 429 it gave each batch. */
export interface TeamsService {
  /** The door of the stacks' program: `real` (the dynamic door) or `native` (the plugin). */
  door: "real" | "native";
  /** The emulator's added round trip, in milliseconds (0: none). */
  latencyMs: number;
  /** The emulator's rate limit of the one account every stack uses; null: none. */
  rateLimit: RateLimitOptions | null;
  /** Answers of 429 during each batch's `up`s, per backend, one count per run. */
  answers429: Partial<Record<Backend, Record<Batch, number[]>>>;
}

/** The document `npm run bench:teams` writes (bench/results/latest-teams.json by default). */
export interface TeamsResults {
  /** Version of this document's shape. */
  schemaVersion: 1;
  /** Which bench wrote the document. */
  kind: "teams";
  /** ISO 8601 time the run started. */
  date: string;
  /** `BENCH_QUICK=1`: a smoke run, not figures to compare. */
  quick: boolean;
  /** Runs of each figure. */
  runs: number;
  /** K. */
  stacks: number;
  /** N. */
  subscriptions: number;
  /** Resources of each stack's program: N + 1 (the Stack left out). */
  resourcesPerStack: number;
  /** Where the figures were taken. */
  machine: MachineInfo;
  /** What was measured. */
  versions: Versions;
  /** Each backend's figures, in the order of the settings' `backends` (bench/teams.ts). */
  backends: TeamsBackendFigures[];
  /**
   * PostgreSQL / file wall time of each batch, taken within each run; null unless both backends
   * were measured.
   */
  postgresOverFile: { parallel: Summary; sequential: Summary } | null;
  /** The service's latency and rate limit, and its answers of 429; absent in documents before them. */
  service?: TeamsService;
  /** Wall time of the whole run, in seconds. */
  durationSeconds: number;
}

/** One batch of `up`s of one run. */
export interface BatchSample {
  /** Wall time, in milliseconds. */
  ms: number;
  /** CPU milliseconds of this process and every process the engine ran; null without /proc. */
  cpuMs: number | null;
}

/** `a / b` of each run's samples, summarized. */
function ratios(a: readonly number[], b: readonly number[]): Summary {
  return summarize(a.map((x, i) => round(x / b[i], 3)));
}

/**
 * The figures of a run from its samples: for each backend of `backends` (in that order), each
 * batch's wall and CPU time (CPU null unless every sample has one above 0) and the ratio parallel
 * / one after the other; with both backends, PostgreSQL / file of each batch. Each ratio is
 * taken within a run (sample `i` against sample `i`) and rounded to 3 decimals.
 * @throws Error when a backend of `backends` has no samples, or a batch none (summarize's).
 */
export function teamsFigures(
  backends: readonly Backend[],
  samples: ReadonlyMap<Backend, Record<Batch, readonly BatchSample[]>>,
): Pick<TeamsResults, "backends" | "postgresOverFile"> {
  const of = (backend: Backend) => {
    const s = samples.get(backend);
    if (!s) throw new Error(`no samples of the ${backend} backend`);
    return s;
  };
  const figures = backends.map((backend): TeamsBackendFigures => {
    const s = of(backend);
    const ms = (b: Batch) => s[b].map((x) => x.ms);
    const cpu = (b: Batch) => s[b].map((x) => x.cpuMs);
    const hasCpu = [...cpu("parallel"), ...cpu("sequential")].every((v) => v !== null && v > 0);
    return {
      backend,
      parallelMs: summarize(ms("parallel")),
      sequentialMs: summarize(ms("sequential")),
      cpuMs: hasCpu
        ? {
            parallel: summarize(cpu("parallel") as number[]),
            sequential: summarize(cpu("sequential") as number[]),
          }
        : null,
      ratio: ratios(ms("parallel"), ms("sequential")),
    };
  });
  const both = backends.includes("postgres") && backends.includes("file");
  const over = (b: Batch) =>
    ratios(
      of("postgres")[b].map((x) => x.ms),
      of("file")[b].map((x) => x.ms),
    );
  return {
    backends: figures,
    postgresOverFile: both ? { parallel: over("parallel"), sequential: over("sequential") } : null,
  };
}

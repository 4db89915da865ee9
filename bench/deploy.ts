/**
 * Benchmarks of deploys through the real Pulumi engine:
 *
 * - **Deploy**: `pulumi up` from empty of one `EventDestination` and N `EventSubscription`s
 *   (bench/fixtures/deploy) against the emulator, timed against the same program shape whose
 *   resources use a dynamic provider that does no I/O (bench/fixtures/floor, the engine's
 *   floor), in the same run; then `preview` (no changes), `refresh` and `destroy` of each
 *   stack, each against the floor's (and an `up` with no changes before the preview); and, for each N, what else grows with it (state per
 *   resource, peak memory of the program and of the provider process, the emulator's time per
 *   request).
 * - **Native door**: the same program through the generated SDK and the plugin
 *   pulumi-resource-service (bench/fixtures/native), deployed, timed and measured like the
 *   dynamic door in the same runs, against the same floor.
 * - **Requests per operation**: in the first run, each door's stack also gets service-drift's
 *   report (after the refresh), untimed, and the emulator's requests during every operation are
 *   counted by method (bench/requests.ts).
 *
 * With `env` set to fast mode's settings (`BENCH_FAST=1` of bench/run.ts), every stack runs
 * without the engine's checkpoints.
 *
 * The state benchmark is bench/state.ts.
 *
 * @packageDocumentation
 */
import type { Stack } from "@pulumi/pulumi/automation";
import { timed, type Engine } from "./engine";
import { compare, costs, type Compared, type PerResourceCosts, type Sample } from "./measure";
import {
  operationRequests,
  REQUEST_OPS,
  requestsResults,
  routesSince,
  serviceDrift,
  type RequestCell,
  type RequestOp,
  type RequestsResults,
} from "./requests";
import type { ScaleOp } from "./scale-results";
import {
  measureLifecycle,
  VARIANTS,
  withEmulator,
  withPeakRss,
  type EmulatorMeter,
  type Variant,
} from "./stacks";
import { summarize, type Summary } from "./stats";

export type { Compared, PerResourceCost } from "./measure";
export type { Variant } from "./stacks";

/** Options of {@link benchDeploy}. */
export interface DeployBenchOptions {
  /** Numbers of subscriptions, e.g. `[10, 100, 300]`; each stack also gets preview/refresh/destroy. */
  counts: number[];
  /** Runs of everything (each figure is the median of these). */
  runs: number;
  /** One untimed deployment of each variant first (caches, plugin discovery). */
  warmup: boolean;
  /** Progress lines (to stderr). */
  log: (line: string) => void;
  /** Added to the engine's environment of every stack (e.g. fast mode's settings); none by default. */
  env?: Readonly<Record<string, string>>;
}

/** Results of {@link benchDeploy}. */
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
   * `service-drift`, `destroy`), and the goals' verdicts (bench/requests.ts).
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

/** Per variant, per N index: one list of each run's values. */
function perVariant<T>(counts: number[]): Record<Variant, T[][]> {
  return Object.fromEntries(VARIANTS.map((v) => [v, counts.map((): T[] => [])])) as Record<Variant, T[][]>;
}

/** A summary of the samples, or null when there are none. */
const maybe = (v: number[]) => (v.length > 0 ? summarize(v) : null);

/** An operation timed after `up` on each stack. */
type Op = "upNoChange" | "preview" | "refresh" | "destroy";

/** The operations of each measured stack, in order: `up` from empty, then each {@link Op}. */
const DEPLOY_OPS: readonly ScaleOp[] = ["up", "upNoChange", "preview", "refresh", "destroy"];

/**
 * Every run's figures so far, one value per run in each list, the lists indexed by variant and by
 * `i`, the index of N in `counts` (e.g. `ops.refresh.native[i]`): wall and CPU milliseconds of
 * `up` and of each {@link Op}; bytes of state per resource; peak resident memory in bytes of the
 * provider process and of the program (runs where a process wrote none left out); and, during
 * the dynamic door's `up` alone, the emulator's requests and milliseconds per request.
 */
interface DeploySamples {
  up: Record<Variant, Sample[][]>;
  ops: Record<Op, Record<Variant, Sample[][]>>;
  stateBytes: Record<Variant, number[][]>;
  providerRss: Record<Variant, number[][]>;
  programRss: Record<Variant, number[][]>;
  emulatorRequests: number[][];
  emulatorMsPerRequest: number[][];
  /** The requests of each operation of the first run, per door and N. */
  requests: RequestCell[];
}

/** Empty lists of samples for each N of `counts` (sorted). */
function emptySamples(counts: number[]): DeploySamples {
  return {
    up: perVariant<Sample>(counts),
    ops: {
      upNoChange: perVariant(counts),
      preview: perVariant(counts),
      refresh: perVariant(counts),
      destroy: perVariant(counts),
    },
    stateBytes: perVariant<number>(counts),
    providerRss: perVariant<number>(counts),
    programRss: perVariant<number>(counts),
    emulatorRequests: counts.map((): number[] => []),
    emulatorMsPerRequest: counts.map((): number[] => []),
    requests: [],
  };
}

/** The in-process emulator of the benchmark, as {@link withEmulator} gives it. */
interface BenchEmulator {
  url: string;
  apiKey: string;
  meter: EmulatorMeter;
}

/**
 * The figures of one `up` from empty: its wall and CPU milliseconds (`up`, with the engine's
 * result), the peak resident memory in bytes of the provider process and of the program (null
 * where a process wrote none), and the requests the emulator answered during it with their mean
 * milliseconds (0 without requests).
 */
interface UpFigures {
  up: Sample;
  provider: number | null;
  program: number | null;
  emulator: { requests: number; msPerRequest: number };
}

/**
 * The figures of the operations after `up`: bytes of exported state per resource (the Stack
 * resource left out), and the wall and CPU milliseconds of `up` with no changes, preview (no
 * changes), refresh and destroy.
 */
interface OperationFigures {
  perRes: number;
  upNoChange: Sample;
  preview: Sample;
  refresh: Sample;
  destroy: Sample;
}

/**
 * Measures `run` (an `up` from empty, see {@link measureLifecycle}): timed, with the peak memory
 * of its processes and the emulator's requests during it.
 */
async function measureUp(stack: Stack, emu: BenchEmulator, run: () => Promise<void>): Promise<UpFigures> {
  const served = { ...emu.meter };
  const { result: u, provider, program } = await withPeakRss(stack, () => timed(run));
  const requests = emu.meter.requests - served.requests;
  const emulator = { requests, msPerRequest: requests ? (emu.meter.ms - served.ms) / requests : 0 };
  return { up: u, provider, program, emulator };
}

/**
 * `ops` (the first an `up` from empty) on a new stack `name` of `n` subscriptions of the variant:
 * `up` measured by {@link measureUp}, the others timed. With `countRequests`, also the
 * emulator's requests during each operation, and service-drift's report run (untimed) after
 * `refresh` and counted (`requests`, by operation of `REQUEST_OPS`; `ops` must then hold every
 * other of them). Returns the figures of `up`, the samples of every operation and `requests`
 * (null without `countRequests`).
 *
 * @throws Error when an operation fails or reports other than `n + 2` resources.
 */
async function deployment(
  engine: Engine,
  emu: BenchEmulator,
  variant: Variant,
  n: number,
  name: string,
  ops: readonly ScaleOp[],
  env: Readonly<Record<string, string>> | undefined,
  countRequests = false,
) {
  let up: UpFigures | undefined;
  const routes = {} as Record<RequestOp, Record<string, number>>;
  const res = await measureLifecycle(engine, emu, {
    variant,
    n,
    name,
    ops,
    env,
    label: (op) => `${variant} ${op} of ${n}`,
    measure: async (op, stack, run) => {
      const before = { ...emu.meter.routes };
      const sample = op === "up" ? (up = await measureUp(stack, emu, run)).up : await timed(run);
      routes[op] = routesSince(before, emu.meter.routes);
      if (countRequests && op === "refresh") {
        // service-drift's report after the refresh, counted, not timed.
        const drift = { ...emu.meter.routes };
        await serviceDrift(stack, n, `${variant} N=${n}`);
        routes.serviceDrift = routesSince(drift, emu.meter.routes);
      }
      return sample;
    },
  });
  const requests = countRequests
    ? (Object.fromEntries(
        REQUEST_OPS.map((op) => [op, operationRequests(routes[op], n + 1)]),
      ) as RequestCell["ops"])
    : null;
  return { ...res, up: up!, requests };
}

/**
 * The warm-up of one variant: `up` of `n` subscriptions in a new stack `warmup-<variant>`,
 * measured like any other but thrown away, then destroyed.
 *
 * @throws Error when a deployment fails or changes a different number of resources than expected.
 */
async function warmUp(
  engine: Engine,
  emu: BenchEmulator,
  variant: Variant,
  n: number,
  env: Readonly<Record<string, string>> | undefined,
): Promise<void> {
  await deployment(engine, emu, variant, n, `warmup-${variant}`, ["up", "destroy"], env);
}

/**
 * One measured deployment: `up` of `n` subscriptions in a new stack `name`, then its state, an
 * `up` with no changes, preview, refresh and destroy, with `env` added to the engine's
 * environment; with `countRequests`, service-drift after the refresh, and the requests of each
 * (see {@link deployment}).
 *
 * @throws Error when a deployment fails or changes a different number of resources than expected.
 */
async function measuredDeployment(
  engine: Engine,
  emu: BenchEmulator,
  variant: Variant,
  n: number,
  name: string,
  countRequests: boolean,
  env: Readonly<Record<string, string>> | undefined,
): Promise<UpFigures & OperationFigures & { requests: RequestCell["ops"] | null }> {
  const { up, figures, stateBytesPerResource, requests } = await deployment(
    engine,
    emu,
    variant,
    n,
    name,
    DEPLOY_OPS,
    env,
    countRequests,
  );
  const { upNoChange, preview, refresh, destroy } = figures;
  return { ...up, perRes: stateBytesPerResource, upNoChange, preview, refresh, destroy, requests };
}

/** The variants in the order run `run` (from 0) deploys them: which goes first turns with the run. */
function runOrder(run: number): Variant[] {
  const first = run % VARIANTS.length;
  return [...VARIANTS.slice(first), ...VARIANTS.slice(0, first)];
}

/**
 * Adds one measured deployment's figures to `samples` at N index `i`: the emulator's only for
 * the dynamic door (`real`), peak memory only where measured.
 */
function record(
  samples: DeploySamples,
  variant: Variant,
  i: number,
  res: UpFigures & OperationFigures,
): void {
  samples.up[variant][i].push(res.up);
  samples.ops.upNoChange[variant][i].push(res.upNoChange);
  samples.ops.preview[variant][i].push(res.preview);
  samples.ops.refresh[variant][i].push(res.refresh);
  samples.ops.destroy[variant][i].push(res.destroy);
  samples.stateBytes[variant][i].push(res.perRes);
  if (res.provider !== null) samples.providerRss[variant][i].push(res.provider);
  if (res.program !== null) samples.programRss[variant][i].push(res.program);
  if (variant === "real") {
    samples.emulatorRequests[i].push(res.emulator.requests);
    samples.emulatorMsPerRequest[i].push(res.emulator.msPerRequest);
  }
}

/** The progress line of one measured deployment: wall and CPU milliseconds of each operation, rounded. */
function progressLine(
  run: number,
  runs: number,
  variant: Variant,
  n: number,
  res: UpFigures & OperationFigures,
): string {
  const fmt = (t: Sample) =>
    `${Math.round(t.ms)} ms (CPU ${t.cpuMs === null ? "?" : Math.round(t.cpuMs)} ms)`;
  return (
    `deploy: run ${run + 1}/${runs} ${variant} N=${n}: up ${fmt(res.up)}` +
    `, up with no changes ${fmt(res.upNoChange)}, preview ${fmt(res.preview)}, refresh ${fmt(res.refresh)}, destroy ${fmt(res.destroy)}`
  );
}

/** The floor against one door, for N = counts[i]: `up` and each {@link Op}, run by run. */
function against(samples: DeploySamples, door: "real" | "native", i: number) {
  const { up, ops } = samples;
  return {
    up: compare(up.floor[i], up[door][i]),
    upNoChange: compare(ops.upNoChange.floor[i], ops.upNoChange[door][i]),
    preview: compare(ops.preview.floor[i], ops.preview[door][i]),
    refresh: compare(ops.refresh.floor[i], ops.refresh[door][i]),
    destroy: compare(ops.destroy.floor[i], ops.destroy[door][i]),
  };
}

/**
 * What grows with N = `n` (index `i`), floor against the dynamic door: state per resource, peak
 * memory (null unless both were measured), the emulator's requests and time per request.
 *
 * @throws Error (from `summarize`) when a list of samples is empty.
 */
function scaleFigures(samples: DeploySamples, n: number, i: number): ScaleFigures {
  const { stateBytes, providerRss, programRss, emulatorRequests, emulatorMsPerRequest } = samples;
  const both = (m: Record<Variant, number[][]>) =>
    m.floor[i].length > 0 && m.real[i].length > 0
      ? { floor: summarize(m.floor[i]), real: summarize(m.real[i]) }
      : null;
  return {
    n,
    stateBytesPerResource: {
      floor: summarize(stateBytes.floor[i]),
      real: summarize(stateBytes.real[i]),
    },
    peakRssBytes: { provider: both(providerRss), program: both(programRss) },
    emulator: {
      requests: summarize(emulatorRequests[i]),
      msPerRequest: summarize(emulatorMsPerRequest[i]),
    },
  };
}

/**
 * The native door's figures of N = `n` (index `i`) against the floor.
 *
 * @throws Error (from `summarize`) when a list of samples is empty.
 */
function nativeFigures(samples: DeploySamples, n: number, i: number): NativeDoorFigures {
  return {
    n,
    ...against(samples, "native", i),
    stateBytesPerResource: summarize(samples.stateBytes.native[i]),
    peakRssBytes: {
      provider: maybe(samples.providerRss.native[i]),
      program: maybe(samples.programRss.native[i]),
    },
  };
}

/**
 * The results of every run's `samples` of `counts` (sorted): medians, ratios to the floor, the
 * per-resource cost when there are two N or more.
 *
 * @throws Error (from `summarize`) when a list of samples is empty (no runs).
 */
function deployResults(counts: number[], samples: DeploySamples): DeployResults {
  const operations = counts.map((n, i) => {
    const { upNoChange, preview, refresh, destroy } = against(samples, "real", i);
    return { n, upNoChange, preview, refresh, destroy };
  });
  const scale = counts.map((n, i) => scaleFigures(samples, n, i));
  const { up } = samples;
  return {
    counts,
    up: counts.map((n, i) => ({ n, ...compare(up.floor[i], up.real[i]) })),
    perResource: counts.length >= 2 ? costs(counts, up) : null,
    operations,
    scale,
    // The largest N's figures, as computed for every N.
    largest: {
      ...operations[operations.length - 1],
      stateBytesPerResource: scale[scale.length - 1].stateBytesPerResource,
    },
    native: counts.map((n, i) => nativeFigures(samples, n, i)),
    requests: requestsResults(counts, samples.requests),
  };
}

/**
 * Runs benchmark 1. Each run deploys every N from empty with every program (the floor, the
 * dynamic door, the native door; which goes first turns with the run), each in a fresh stack,
 * which is then previewed, refreshed and destroyed, timed.
 *
 * @throws Error when a deployment fails or changes a different number of resources than expected.
 */
export async function benchDeploy(engine: Engine, opts: DeployBenchOptions): Promise<DeployResults> {
  const counts = [...opts.counts].sort((a, b) => a - b);
  const samples = emptySamples(counts);
  return withEmulator(async (emu) => {
    if (opts.warmup) {
      for (const variant of VARIANTS) {
        opts.log(`deploy: warm-up ${variant}`);
        await warmUp(engine, emu, variant, counts[0], opts.env);
      }
    }
    for (let run = 0; run < opts.runs; run++) {
      const order = runOrder(run);
      for (let i = 0; i < counts.length; i++) {
        const n = counts[i];
        for (const variant of order) {
          const door = variant !== "floor";
          const res = await measuredDeployment(
            engine,
            emu,
            variant,
            n,
            `${variant}-n${n}-r${run}`,
            door && run === 0,
            opts.env,
          );
          record(samples, variant, i, res);
          if (door && res.requests)
            samples.requests.push({ door: variant, n, resources: n + 1, ops: res.requests });
          opts.log(progressLine(run, opts.runs, variant, n, res));
        }
      }
    }
    return deployResults(counts, samples);
  });
}

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
 *   counted by method (bench/request-counts.ts).
 *
 * With `env` set to fast mode's settings (`BENCH_FAST=1` of bench/run.ts), every stack runs
 * without the engine's checkpoints.
 *
 * Its results are the shapes of bench/deploy-results.ts, computed from the samples by
 * bench/measure.ts. The state benchmark is bench/state.ts.
 *
 * @packageDocumentation
 */
import type { Stack } from "@pulumi/pulumi/automation";
import type { DeployResults } from "./deploy-results";
import { timed, type Engine } from "./engine";
import {
  deployResults,
  emptySamples,
  record,
  type OperationFigures,
  type Sample,
  type UpFigures,
} from "./measure";
import {
  operationRequests,
  REQUEST_OPS,
  routesSince,
  type RequestCell,
  type RequestOp,
} from "./request-counts";
import {
  measureLifecycle,
  serviceDrift,
  VARIANTS,
  withEmulator,
  withPeakRss,
  type EmulatorMeter,
  type ScaleOp,
  type Variant,
} from "./stacks";

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

/** The operations of each measured stack, in order: `up` from empty, then each `Op` of bench/measure.ts. */
const DEPLOY_OPS: readonly ScaleOp[] = ["up", "upNoChange", "preview", "refresh", "destroy"];

/** The in-process emulator of the benchmark, as {@link withEmulator} gives it. */
interface BenchEmulator {
  url: string;
  apiKey: string;
  meter: EmulatorMeter;
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

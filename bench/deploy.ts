/**
 * Benchmarks of deploys through the real Pulumi engine:
 *
 * - **Deploy**: `pulumi up` from empty of one `EventDestination` and N `EventSubscription`s
 *   (bench/fixtures/deploy) against the emulator, timed against the same program shape whose
 *   resources use a dynamic provider that does no I/O (bench/fixtures/floor, the engine's
 *   floor), in the same run; then `preview` (no changes), `refresh` and `destroy` of each
 *   stack, each against the floor's; and, for each N, what else grows with it (state per
 *   resource, peak memory of the program and of the provider process, the emulator's time per
 *   request).
 * - **Native door**: the same program through the generated SDK and the plugin
 *   pulumi-resource-service (bench/fixtures/native), deployed, timed and measured like the
 *   dynamic door in the same runs, against the same floor.
 *
 * The state benchmark is bench/state.ts.
 *
 * @packageDocumentation
 */
import { timed, type Engine } from "./engine";
import { compare, costs, type Compared, type PerResourceCosts, type Sample } from "./measure";
import {
  bytes,
  configure,
  expectCount,
  exportedResources,
  variantFixture,
  VARIANTS,
  withEmulator,
  withPeakRss,
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
}

/** Results of {@link benchDeploy}. */
export interface DeployResults {
  /** The N measured. */
  counts: number[];
  /** `pulumi up` from empty, for each N. */
  up: ({ n: number } & Compared)[];
  /** Per-resource cost from wall time, and from CPU time when measured (null with a single N). */
  perResource: PerResourceCosts | null;
  /** Every N's stack after `up`: preview (no changes), refresh, destroy, timed. */
  operations: { n: number; preview: Compared; refresh: Compared; destroy: Compared }[];
  /**
   * What grows with N besides time, for each N (goal: nothing of ours faster than linear):
   * state per resource, peak memory of the processes of `up`, and the emulator's time per
   * request it served during `up`.
   */
  scale: ScaleFigures[];
  /** The largest N's stack after `up`: preview (no changes), refresh, destroy. */
  largest: {
    n: number;
    preview: Compared;
    refresh: Compared;
    destroy: Compared;
    /** Bytes of the exported state (compact JSON) divided by the number of resources. */
    stateBytesPerResource: { floor: Summary; real: Summary };
  };
  /** The native door beside the floor, for each N, from the same runs. */
  native: NativeDoorFigures[];
}

/**
 * The native door's figures of one N (bench/fixtures/native). Each {@link Compared} holds the
 * floor (`floorMs`) against the native door (`realMs`), run by run.
 */
export interface NativeDoorFigures {
  n: number;
  /** `pulumi up` from empty. */
  up: Compared;
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

/**
 * Runs benchmark 1. Each run deploys every N from empty with every program (the floor, the
 * dynamic door, the native door; which goes first turns with the run), each in a fresh stack,
 * which is then previewed, refreshed and destroyed, timed.
 *
 * @throws Error when a deployment fails or changes a different number of resources than expected.
 */
export async function benchDeploy(engine: Engine, opts: DeployBenchOptions): Promise<DeployResults> {
  const counts = [...opts.counts].sort((a, b) => a - b);
  const up = perVariant<Sample>(counts);
  type Op = "preview" | "refresh" | "destroy";
  // ops[op][variant][i]: the samples of N = counts[i].
  const ops: Record<Op, Record<Variant, Sample[][]>> = {
    preview: perVariant(counts),
    refresh: perVariant(counts),
    destroy: perVariant(counts),
  };
  const stateBytes = perVariant<number>(counts);
  const providerRss = perVariant<number>(counts);
  const programRss = perVariant<number>(counts);
  const emulatorRequests = counts.map((): number[] => []);
  const emulatorMsPerRequest = counts.map((): number[] => []);

  return withEmulator(async (emu) => {
    const deployOnce = async (variant: Variant, n: number, name: string, timeAll: boolean) => {
      const stack = await engine.newStack(variantFixture(variant), name);
      try {
        await configure(stack, variant, n, emu);
        const served = { ...emu.meter };
        const { result: u, provider, program } = await withPeakRss(stack, () => timed(() => stack.up()));
        const requests = emu.meter.requests - served.requests;
        const emulator = { requests, msPerRequest: requests ? (emu.meter.ms - served.ms) / requests : 0 };
        expectCount(`${variant} up of ${n}`, u.result.summary.resourceChanges?.create, n + 2);
        if (!timeAll) {
          await stack.destroy();
          return { up: u };
        }
        const resources = await exportedResources(stack);
        const perRes = bytes(resources) / (resources.length - 1); // minus the Stack resource
        const p = await timed(() => stack.preview({ expectNoChanges: true }));
        expectCount(`${variant} preview of ${n}`, p.result.changeSummary.same, n + 2);
        const r = await timed(() => stack.refresh());
        expectCount(`${variant} refresh of ${n}`, r.result.summary.resourceChanges?.same, n + 2);
        const d = await timed(() => stack.destroy());
        expectCount(`${variant} destroy of ${n}`, d.result.summary.resourceChanges?.delete, n + 2);
        return { up: u, preview: p, refresh: r, destroy: d, perRes, provider, program, emulator };
      } finally {
        await engine.removeStack(stack);
      }
    };

    if (opts.warmup) {
      for (const variant of VARIANTS) {
        opts.log(`deploy: warm-up ${variant}`);
        await deployOnce(variant, counts[0], `warmup-${variant}`, false);
      }
    }
    for (let run = 0; run < opts.runs; run++) {
      const first = run % VARIANTS.length;
      const order = [...VARIANTS.slice(first), ...VARIANTS.slice(0, first)];
      for (let i = 0; i < counts.length; i++) {
        const n = counts[i];
        for (const variant of order) {
          const res = await deployOnce(variant, n, `${variant}-n${n}-r${run}`, true);
          up[variant][i].push(res.up);
          if (res.preview !== undefined) {
            ops.preview[variant][i].push(res.preview);
            ops.refresh[variant][i].push(res.refresh);
            ops.destroy[variant][i].push(res.destroy);
            stateBytes[variant][i].push(res.perRes);
            if (res.provider !== null) providerRss[variant][i].push(res.provider);
            if (res.program !== null) programRss[variant][i].push(res.program);
            if (variant === "real") {
              emulatorRequests[i].push(res.emulator.requests);
              emulatorMsPerRequest[i].push(res.emulator.msPerRequest);
            }
          }
          const fmt = (t: Sample) =>
            `${Math.round(t.ms)} ms (CPU ${t.cpuMs === null ? "?" : Math.round(t.cpuMs)} ms)`;
          opts.log(
            `deploy: run ${run + 1}/${opts.runs} ${variant} N=${n}: up ${fmt(res.up)}` +
              (res.preview !== undefined
                ? `, preview ${fmt(res.preview)}, refresh ${fmt(res.refresh)}, destroy ${fmt(res.destroy)}`
                : ""),
          );
        }
      }
    }

    // The floor against one door, for N = counts[i].
    const against = (door: "real" | "native", i: number) => ({
      up: compare(up.floor[i], up[door][i]),
      preview: compare(ops.preview.floor[i], ops.preview[door][i]),
      refresh: compare(ops.refresh.floor[i], ops.refresh[door][i]),
      destroy: compare(ops.destroy.floor[i], ops.destroy[door][i]),
    });
    const operations = counts.map((n, i) => {
      const { preview, refresh, destroy } = against("real", i);
      return { n, preview, refresh, destroy };
    });
    const scale = counts.map((n, i) => {
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
    });
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
      native: counts.map((n, i) => ({
        n,
        ...against("native", i),
        stateBytesPerResource: summarize(stateBytes.native[i]),
        peakRssBytes: { provider: maybe(providerRss.native[i]), program: maybe(programRss.native[i]) },
      })),
    };
  });
}

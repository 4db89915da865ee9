/**
 * The deploy benchmark's figures from its samples (bench/deploy.ts): every run's samples kept by
 * program and N ({@link DeploySamples}), the floor against each door run by run, the per-resource
 * cost of `up` fitted over N, and the {@link DeployResults} they make.
 *
 * @packageDocumentation
 */
import type {
  Compared,
  DeployResults,
  NativeDoorFigures,
  PerResourceCost,
  PerResourceCosts,
  ScaleFigures,
} from "./deploy-results";
import { requestsResults, type RequestCell } from "./request-counts";
import { VARIANTS, type Variant } from "./stacks";
import { linearFit, summarize, type LinearFit } from "./stats";

/** Wall and CPU milliseconds of one operation. */
export interface Sample {
  ms: number;
  cpuMs: number | null;
}

/** The floor's and the real provider's samples of one operation, compared run by run. */
export function compare(floor: Sample[], real: Sample[]): Compared {
  const fc = floor.map((s) => s.cpuMs);
  const rc = real.map((s) => s.cpuMs);
  const hasCpu = (v: (number | null)[]): v is number[] => v.every((x) => x !== null && x > 0);
  return {
    floorMs: summarize(floor.map((s) => s.ms)),
    realMs: summarize(real.map((s) => s.ms)),
    ratio: summarize(real.map((r, i) => r.ms / floor[i].ms)),
    cpu:
      hasCpu(fc) && hasCpu(rc)
        ? { floorMs: summarize(fc), realMs: summarize(rc), ratio: summarize(rc.map((r, i) => r / fc[i])) }
        : null,
  };
}

function perResource(counts: number[], runsByN: Sample[][], cpu = false): PerResourceCost | null {
  // samples[i][run] = up time (wall or CPU) for counts[i]
  const samples = runsByN.map((r) => r.map((s) => (cpu ? s.cpuMs : s.ms)));
  if (samples.some((r) => r.some((v) => v === null))) return null;
  return fitCost(counts, samples as number[][]);
}

function fitCost(counts: number[], samples: number[][]): PerResourceCost {
  const medians = samples.map((s) => summarize(s).median);
  const fit: LinearFit = linearFit(counts.map((x, i) => ({ x, y: medians[i] })));
  const runs = samples[0].length;
  const slopes: number[] = [];
  for (let r = 0; r < runs; r++)
    slopes.push(linearFit(counts.map((x, i) => ({ x, y: samples[i][r] }))).slope);
  const segmentSlopes: number[] = [];
  for (let i = 1; i < counts.length; i++) {
    segmentSlopes.push((medians[i] - medians[i - 1]) / (counts[i] - counts[i - 1]));
  }
  return {
    msPerResource: fit.slope,
    fixedMs: fit.intercept,
    r2: fit.r2,
    slopePerRun: summarize(slopes),
    segmentSlopes,
  };
}

/**
 * The per-resource cost of `up` for each variant, from wall time and, when every run measured it,
 * from CPU time (`up[variant][i]`: the samples of N = `counts[i]`).
 */
export function costs(counts: number[], up: Record<Variant, Sample[][]>): PerResourceCosts {
  const cpuFloor = perResource(counts, up.floor, true);
  const cpuReal = perResource(counts, up.real, true);
  return {
    floor: perResource(counts, up.floor)!,
    real: perResource(counts, up.real)!,
    cpu: cpuFloor && cpuReal ? { floor: cpuFloor, real: cpuReal } : null,
  };
}

/** Per variant, per N index: one list of each run's values. */
function perVariant<T>(counts: number[]): Record<Variant, T[][]> {
  return Object.fromEntries(VARIANTS.map((v) => [v, counts.map((): T[] => [])])) as Record<Variant, T[][]>;
}

/** A summary of the samples, or null when there are none. */
const maybe = (v: number[]) => (v.length > 0 ? summarize(v) : null);

/** An operation timed after `up` on each stack. */
export type Op = "upNoChange" | "preview" | "refresh" | "destroy";

/**
 * Every run's figures so far, one value per run in each list, the lists indexed by variant and by
 * `i`, the index of N in `counts` (e.g. `ops.refresh.native[i]`): wall and CPU milliseconds of
 * `up` and of each {@link Op}; bytes of state per resource; peak resident memory in bytes of the
 * provider process and of the program (runs where a process wrote none left out); and, during
 * the dynamic door's `up` alone, the emulator's requests and milliseconds per request.
 */
export interface DeploySamples {
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
export function emptySamples(counts: number[]): DeploySamples {
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

/**
 * The figures of one `up` from empty: its wall and CPU milliseconds (`up`, with the engine's
 * result), the peak resident memory in bytes of the provider process and of the program (null
 * where a process wrote none), and the requests the emulator answered during it with their mean
 * milliseconds (0 without requests).
 */
export interface UpFigures {
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
export interface OperationFigures {
  perRes: number;
  upNoChange: Sample;
  preview: Sample;
  refresh: Sample;
  destroy: Sample;
}

/**
 * Adds one measured deployment's figures to `samples` at N index `i`: the emulator's only for
 * the dynamic door (`real`), peak memory only where measured.
 */
export function record(
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
export function deployResults(counts: number[], samples: DeploySamples): DeployResults {
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

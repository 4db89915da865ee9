/**
 * The deploy benchmark's figures from its samples (bench/deploy.ts): the floor against the real
 * provider run by run, and the per-resource cost of `up` fitted over N.
 *
 * @packageDocumentation
 */
import type { Variant } from "./stacks";
import { linearFit, summarize, type LinearFit, type Summary } from "./stats";

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

/** Wall and CPU milliseconds of one operation. */
export interface Sample {
  ms: number;
  cpuMs: number | null;
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

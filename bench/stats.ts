/**
 * Statistics of the benchmarks: the median with min and max of repeated runs, and the
 * least-squares line through (N, time) points.
 *
 * @packageDocumentation
 */

/** A figure measured over several runs: its median, min and max, and every sample. */
export interface Summary {
  /** Median of the samples (mean of the two middle ones for an even count). */
  median: number;
  /** Smallest sample. */
  min: number;
  /** Largest sample. */
  max: number;
  /** Every sample, in the order measured. */
  samples: number[];
}

/**
 * Summarizes samples.
 * @throws Error when `samples` is empty or holds a non-finite number.
 */
export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) throw new Error("summarize: no samples");
  if (samples.some((s) => !Number.isFinite(s)))
    throw new Error(`summarize: non-finite sample in ${samples.join(", ")}`);
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1], samples: [...samples] };
}

/** The least-squares line `y = intercept + slope * x`, with its coefficient of determination. */
export interface LinearFit {
  /** Change of y per unit of x (here: milliseconds per resource). */
  slope: number;
  /** y at x = 0 (here: the fixed cost of a deployment, in milliseconds). */
  intercept: number;
  /** R², 1 for points exactly on the line. */
  r2: number;
}

/**
 * Fits `y = intercept + slope * x` by least squares.
 * @throws Error with fewer than two points or when every x is the same.
 */
export function linearFit(points: readonly { x: number; y: number }[]): LinearFit {
  const n = points.length;
  if (n < 2) throw new Error("linearFit: need at least two points");
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (const p of points) {
    sxx += (p.x - mx) ** 2;
    sxy += (p.x - mx) * (p.y - my);
    syy += (p.y - my) ** 2;
  }
  if (sxx === 0) throw new Error("linearFit: every x is the same");
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  const r2 = syy === 0 ? 1 : (sxy * sxy) / (sxx * syy);
  return { slope, intercept, r2 };
}

/** Rounds to `digits` decimals (for the JSON document and the tables). */
export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

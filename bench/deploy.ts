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
 * - **State**: bytes of the exported state and of the serialized provider (`__provider`) per
 *   resource, for each resource type (one of each deployed).
 *
 * @packageDocumentation
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { startEmulator } from "service-emulator";
import { fixture, REPO_ROOT, timed, type Engine } from "./engine";
import { linearFit, summarize, type LinearFit, type Summary } from "./stats";

/** The two programs: the engine's floor and this package's providers. */
export type Variant = "floor" | "real";

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
interface Sample {
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

/** Results of {@link benchDeploy}. */
export interface DeployResults {
  /** The N measured. */
  counts: number[];
  /** `pulumi up` from empty, for each N. */
  up: ({ n: number } & Compared)[];
  /** Per-resource cost from wall time, and from CPU time when measured (null with a single N). */
  perResource: {
    floor: PerResourceCost;
    real: PerResourceCost;
    cpu: { floor: PerResourceCost; real: PerResourceCost } | null;
  } | null;
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

/** Bytes of one resource type's state (benchmark 2). */
export interface StateTypeResult {
  /** Type token, e.g. `pulumi-nodejs:dynamic/service:EventSubscription`. */
  type: string;
  /** Bytes of the resource in the exported state (compact JSON: URN, inputs, outputs, …). */
  stateBytes: Summary;
  /** Bytes of the serialized provider, the `__provider` output (one copy). */
  providerBytes: Summary;
  /** Bytes of every copy of `__provider` in the resource (inputs and outputs). */
  providerBytesAllCopies: Summary;
}

/** Results of {@link benchState}. */
export interface StateResults {
  /** One entry per type of this package, then the floor's provider for comparison. */
  types: StateTypeResult[];
}

interface ExportedResource {
  urn: string;
  type: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

async function exportedResources(stack: Stack): Promise<ExportedResource[]> {
  return ((await stack.exportStack()).deployment.resources ?? []) as ExportedResource[];
}

function bytes(value: unknown): number {
  return Buffer.byteLength(typeof value === "string" ? value : JSON.stringify(value ?? null));
}

/** Requests the emulator answered and the milliseconds it spent on them, so far. */
interface EmulatorMeter {
  requests: number;
  ms: number;
}

/** An emulator in this process for the deployments (the runner's event loop is idle meanwhile). */
async function withEmulator<T>(
  fn: (e: { url: string; apiKey: string; meter: EmulatorMeter }) => Promise<T>,
): Promise<T> {
  const meter: EmulatorMeter = { requests: 0, ms: 0 };
  const emulator = await startEmulator({
    onApp: (app) => {
      app.addHook("onResponse", async (_request, reply) => {
        meter.requests += 1;
        meter.ms += reply.elapsedTime;
      });
    },
  });
  try {
    return await fn({ url: emulator.url, apiKey: emulator.apiKeys[0], meter });
  } finally {
    await emulator.close();
  }
}

/** Preloaded into the Node.js processes of a measured `up`; writes each one's peak memory. */
const PEAK_RSS_HOOK = path.join(REPO_ROOT, "bench", "fixtures", "peak-rss.js");

/**
 * Runs `fn` (an `up`) with every Node.js process of the stack's engine writing its peak resident
 * memory at exit; returns the largest of each role (`provider`, `program`), in bytes.
 */
async function withPeakRss<T>(
  stack: Stack,
  fn: () => Promise<T>,
): Promise<{ result: T; provider: number | null; program: number | null }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-rss-"));
  const env = stack.workspace.envVars;
  const before = env.NODE_OPTIONS;
  env.NODE_OPTIONS = `${before ? `${before} ` : ""}--require ${PEAK_RSS_HOOK}`;
  env.BENCH_RSS_DIR = dir;
  try {
    const result = await fn();
    const peaks = { provider: null as number | null, program: null as number | null };
    for (const f of readdirSync(dir)) {
      const { role, peakRssBytes } = JSON.parse(readFileSync(path.join(dir, f), "utf8")) as {
        role: string;
        peakRssBytes: number;
      };
      if (role === "provider" || role === "program") peaks[role] = Math.max(peaks[role] ?? 0, peakRssBytes);
    }
    return { result, ...peaks };
  } finally {
    if (before === undefined) delete env.NODE_OPTIONS;
    else env.NODE_OPTIONS = before;
    delete env.BENCH_RSS_DIR;
    rmSync(dir, { recursive: true, force: true });
  }
}

async function configure(stack: Stack, variant: Variant, n: number, emu: { url: string; apiKey: string }) {
  await stack.setConfig("count", { value: String(n) });
  if (variant === "real") {
    await stack.setConfig("service:baseUrl", { value: emu.url });
    await stack.setConfig("service:apiKey", { value: emu.apiKey, secret: true });
  }
}

function expectCount(what: string, got: number | undefined, want: number): void {
  if (got !== want) throw new Error(`${what}: expected ${want} resources, the engine reported ${got}`);
}

function compare(floor: Sample[], real: Sample[]): Compared {
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

function costs(counts: number[], up: Record<Variant, Sample[][]>): NonNullable<DeployResults["perResource"]> {
  const cpuFloor = perResource(counts, up.floor, true);
  const cpuReal = perResource(counts, up.real, true);
  return {
    floor: perResource(counts, up.floor)!,
    real: perResource(counts, up.real)!,
    cpu: cpuFloor && cpuReal ? { floor: cpuFloor, real: cpuReal } : null,
  };
}

/**
 * Runs benchmark 1. Each run deploys every N from empty with both programs (alternating which
 * goes first), each in a fresh stack, which is then previewed, refreshed and destroyed, timed.
 *
 * @throws Error when a deployment fails or changes a different number of resources than expected.
 */
export async function benchDeploy(engine: Engine, opts: DeployBenchOptions): Promise<DeployResults> {
  const counts = [...opts.counts].sort((a, b) => a - b);
  const up: Record<Variant, Sample[][]> = { floor: counts.map(() => []), real: counts.map(() => []) };
  type Op = "preview" | "refresh" | "destroy";
  // ops[op][variant][i]: the samples of N = counts[i].
  const ops = Object.fromEntries(
    (["preview", "refresh", "destroy"] as const).map((op) => [
      op,
      { floor: counts.map(() => []), real: counts.map(() => []) },
    ]),
  ) as unknown as Record<Op, Record<Variant, Sample[][]>>;
  // Per variant, per N index: the samples of each run.
  const perN = () => ({ floor: counts.map((): number[] => []), real: counts.map((): number[] => []) });
  const stateBytes = perN();
  const providerRss = perN();
  const programRss = perN();
  const emulatorRequests = counts.map((): number[] => []);
  const emulatorMsPerRequest = counts.map((): number[] => []);

  return withEmulator(async (emu) => {
    const deployOnce = async (variant: Variant, n: number, name: string, timeAll: boolean) => {
      const stack = await engine.newStack(fixture(variant === "real" ? "deploy" : "floor"), name);
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
      for (const variant of ["floor", "real"] as const) {
        opts.log(`deploy: warm-up ${variant}`);
        await deployOnce(variant, counts[0], `warmup-${variant}`, false);
      }
    }
    for (let run = 0; run < opts.runs; run++) {
      const order: Variant[] = run % 2 === 0 ? ["floor", "real"] : ["real", "floor"];
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

    const operations = counts.map((n, i) => ({
      n,
      preview: compare(ops.preview.floor[i], ops.preview.real[i]),
      refresh: compare(ops.refresh.floor[i], ops.refresh.real[i]),
      destroy: compare(ops.destroy.floor[i], ops.destroy.real[i]),
    }));
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
    };
  });
}

/**
 * Runs benchmark 2: deploys one resource of each type of this package (an `EventDestination`, an
 * `EventSubscription`, an `AbuseReport`) and one floor resource, `runs` times, and measures
 * their exported state.
 *
 * @throws Error when a deployment fails or a type is missing from the state.
 */
export async function benchState(
  engine: Engine,
  opts: { runs: number; log: (line: string) => void },
): Promise<StateResults> {
  const samples = new Map<string, { state: number[]; provider: number[]; all: number[] }>();
  const record = (r: ExportedResource) => {
    const provider = r.outputs?.__provider;
    if (typeof provider !== "string") throw new Error(`${r.urn}: no __provider output`);
    const s = samples.get(r.type) ?? { state: [], provider: [], all: [] };
    s.state.push(bytes(r));
    s.provider.push(bytes(provider));
    s.all.push(bytes(provider) + (typeof r.inputs?.__provider === "string" ? bytes(r.inputs.__provider) : 0));
    samples.set(r.type, s);
  };
  await withEmulator(async (emu) => {
    for (let run = 0; run < opts.runs; run++) {
      for (const variant of ["real", "floor"] as const) {
        const stack = await engine.newStack(
          fixture(variant === "real" ? "deploy" : "floor"),
          `state-${variant}-r${run}`,
        );
        try {
          await configure(stack, variant, 1, emu);
          if (variant === "real") await stack.setConfig("reports", { value: "1" });
          await stack.up();
          const resources = await exportedResources(stack);
          // The floor's subscription stands for its provider (both floor types share one).
          for (const r of resources) {
            if (variant === "real" && r.type.startsWith("pulumi-nodejs:dynamic/service:")) record(r);
            if (variant === "floor" && r.type === "pulumi-nodejs:dynamic/floor:EventSubscription") record(r);
          }
          await stack.destroy();
        } finally {
          await engine.removeStack(stack);
        }
      }
      opts.log(`state: run ${run + 1}/${opts.runs}`);
    }
  });
  const wanted = ["EventDestination", "EventSubscription", "AbuseReport"].map(
    (t) => `pulumi-nodejs:dynamic/service:${t}`,
  );
  for (const t of wanted) if (!samples.has(t)) throw new Error(`state: no resource of type ${t}`);
  const order = [...wanted, "pulumi-nodejs:dynamic/floor:EventSubscription"];
  return {
    types: order.map((type) => {
      const s = samples.get(type)!;
      return {
        type,
        stateBytes: summarize(s.state),
        providerBytes: summarize(s.provider),
        providerBytesAllCopies: summarize(s.all),
      };
    }),
  };
}

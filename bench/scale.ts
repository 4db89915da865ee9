/**
 * The benchmark at scale (`npm run bench:scale`): one destination and N subscriptions through
 * the engine's floor (bench/fixtures/floor), the dynamic door (bench/fixtures/deploy) and the
 * native door (bench/fixtures/native), each with the engine's checkpoints (its default: the whole
 * state written after every step) and in fast mode (`PULUMI_EXPERIMENTAL=true
 * PULUMI_SKIP_CHECKPOINTS=true`: written once, at the end), on a file backend and on a
 * PostgreSQL backend (a throw-away server, scripts/postgres-server.ts). For each of these, in a
 * fresh stack: `up` from empty, `up` with no changes, `preview`, `refresh` and `destroy`, timed
 * (wall and CPU time), and the exported state's bytes per resource.
 *
 * With checkpoints, an `up` of N costs N writes of a state of size ∝ N, so the largest N
 * (3,000 with `BENCH_LONG=1`) is measured in fast mode only: with checkpoints it would take most
 * of an hour per program. The goals (docs/performance.md § Scale) are judged by
 * bench/scale-goals.ts.
 *
 * Environment: `BENCH_RUNS` (default 1), `BENCH_QUICK=1` (N = 3, one run: a smoke run),
 * `BENCH_LONG=1` (adds N = 3,000), `BENCH_COUNTS` (the N instead, comma-separated),
 * `BENCH_CHECKPOINT_MAX` (the largest N measured with checkpoints, default 1,000),
 * `BENCH_BACKENDS` (`file,postgres` by default), `BENCH_OUT` (default
 * `bench/results/latest-scale.json`; its chart `<stem>-scale.svg` beside it).
 *
 * @packageDocumentation
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startPostgres } from "../scripts/postgres-server";
import type { Stack } from "@pulumi/pulumi/automation";
import { FAST_MODE_ENV, openEngine, REPO_ROOT, timed, type Engine } from "./engine";
import { runFromCommandLine, type CommandOptions } from "./command";
import { machineInfo, writeCharts } from "./report";
import { scaleGoals, scaleMarkdown } from "./scale-goals";
import {
  measureLifecycle,
  SCALE_OPS,
  VARIANTS,
  withEmulator,
  withPeakRss,
  type ScaleOp,
  type Variant,
} from "./stacks";
import { round, summarize, type Summary } from "./stats";
import {
  BACKENDS,
  MODES,
  PARTS,
  type Backend,
  type Mode,
  type Part,
  type ScaleCell,
  type ScaleResults,
} from "./scale-results";

/** Settings of {@link benchScale}. */
export interface ScaleOptions extends CommandOptions {
  /** N (subscriptions; the stack holds N + 1 resources of the program), ascending. */
  counts: number[];
  /** The largest N measured with checkpoints on; larger N only in fast mode. */
  checkpointMax: number;
  backends: Backend[];
  /** The modes measured (both by default). */
  modes: Mode[];
  /** The programs measured (all three by default; the goals need all three). */
  variants: Variant[];
}

/**
 * Options from the environment (see the module's documentation), with `overrides` on top.
 * @throws Error naming the variable when `BENCH_RUNS`, `BENCH_COUNTS` or `BENCH_CHECKPOINT_MAX`
 *   is not made of positive integers, or `BENCH_BACKENDS` names another backend.
 */
export function scaleOptions(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<ScaleOptions> = {},
): ScaleOptions {
  const flag = (v: string | undefined) => v === "1" || v === "true";
  const quick = flag(env.BENCH_QUICK);
  const ints = (name: string, fallback: number[]): number[] => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    const v = raw.split(",").map(Number);
    if (!v.every((n) => Number.isInteger(n) && n >= 1))
      throw new Error(`${name} must be positive integers separated by commas, got ${raw}`);
    return v;
  };
  const counts = ints(
    "BENCH_COUNTS",
    quick ? [3] : flag(env.BENCH_LONG) ? [10, 100, 300, 1000, 3000] : [10, 100, 300, 1000],
  ).sort((a, b) => a - b);
  const runs = ints("BENCH_RUNS", [1]);
  const checkpointMax = ints("BENCH_CHECKPOINT_MAX", [1000]);
  if (runs.length !== 1) throw new Error(`BENCH_RUNS must be one positive integer, got ${env.BENCH_RUNS}`);
  if (checkpointMax.length !== 1)
    throw new Error(`BENCH_CHECKPOINT_MAX must be one positive integer, got ${env.BENCH_CHECKPOINT_MAX}`);
  const backends = (env.BENCH_BACKENDS || BACKENDS.join(",")).split(",");
  for (const b of backends)
    if (!(BACKENDS as readonly string[]).includes(b))
      throw new Error(`BENCH_BACKENDS must name backends among ${BACKENDS.join(", ")}, got ${b}`);
  return {
    quick,
    counts,
    runs: runs[0],
    checkpointMax: checkpointMax[0],
    backends: backends as Backend[],
    modes: [...MODES],
    variants: [...VARIANTS],
    outFile: env.BENCH_OUT
      ? path.resolve(env.BENCH_OUT)
      : path.join(REPO_ROOT, "bench", "results", "latest-scale.json"),
    log: (line) => process.stderr.write(`[bench:scale] ${line}\n`),
    ...overrides,
  };
}

type Sample = { ms: number; cpuMs: number | null; parts: Record<Part, number> | null };

/**
 * Times `fn` (one operation of the stack's engine): wall time, CPU time of everything, and that
 * CPU time split by process — the Node.js program and provider process (from their own
 * accounting, bench/fixtures/peak-rss.js), this process (the in-process emulator and the
 * Automation API reading the engine's events), and the rest:
 * the engine (the Pulumi CLI and its language host, in Go).
 */
async function measure<T>(stack: Stack, fn: () => Promise<T>): Promise<Sample & { result: T }> {
  const self0 = process.cpuUsage();
  const { result: t, cpuMs } = await withPeakRss(stack, () => timed(fn));
  const self = process.cpuUsage(self0);
  const emulator = (self.user + self.system) / 1000;
  const program = cpuMs.program ?? 0;
  const provider = cpuMs.provider ?? 0;
  const parts =
    t.cpuMs === null
      ? null
      : { engine: t.cpuMs - emulator - program - provider, program, provider, emulator };
  return { ms: t.ms, cpuMs: t.cpuMs, parts, result: t.result };
}

/**
 * Deploys, re-deploys, previews, refreshes and destroys one stack, timed.
 * @throws Error when an operation fails or the engine reports other counts than expected.
 */
async function measureStack(
  engine: Engine,
  emu: { url: string; apiKey: string },
  variant: Variant,
  mode: Mode,
  n: number,
  name: string,
): Promise<{ samples: Record<ScaleOp, Sample>; stateBytesPerResource: number }> {
  const what = `${variant} ${mode} N=${n}`;
  const { figures, stateBytesPerResource } = await measureLifecycle(engine, emu, {
    variant,
    n,
    name,
    env: mode === "fast" ? FAST_MODE_ENV : undefined,
    ops: SCALE_OPS,
    label: (op) => `${what} ${op === "upNoChange" ? "up with no changes" : op}`,
    measure: (_op, stack, run) => measure(stack, run),
  });
  return { samples: figures, stateBytesPerResource };
}

/** The cells this run measures: every N in fast mode, N up to `checkpointMax` with checkpoints. */
export function scaleCells(opts: Pick<ScaleOptions, "counts" | "checkpointMax" | "backends" | "modes">) {
  return opts.backends.flatMap((backend) =>
    opts.modes.flatMap((mode) =>
      opts.counts
        .filter((n) => mode === "fast" || n <= opts.checkpointMax)
        .map((n) => ({ backend, mode, n })),
    ),
  );
}

/**
 * Runs the benchmark and writes its document and chart (see the module's documentation).
 * @throws Error when a deployment fails, or PostgreSQL is measured and its binaries are missing.
 */
export async function benchScale(opts: ScaleOptions): Promise<ScaleResults> {
  const started = Date.now();
  const machine = machineInfo();
  const pkgVersion = (file: string) =>
    (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
  const cells = scaleCells(opts);
  const samples = new Map<string, { runs: Record<ScaleOp, Sample>[]; bytes: number[] }>();
  const key = (backend: Backend, mode: Mode, variant: Variant, n: number) =>
    `${backend}/${mode}/${variant}/${n}`;
  const engines = new Map<Backend, Engine>();
  const postgres = opts.backends.includes("postgres") ? await startPostgres() : null;
  let version = "";
  try {
    for (const backend of opts.backends) {
      const url =
        backend === "postgres" ? postgres!.url(await postgres!.createDatabase("bench_scale")) : undefined;
      const engine = await openEngine("bench-scale", url);
      engines.set(backend, engine);
      version = engine.version;
    }
    await withEmulator(async (emu) => {
      for (let run = 0; run < opts.runs; run++) {
        for (const [c, { backend, mode, n }] of cells.entries()) {
          // Which program goes first turns with the cell and the run.
          const vs = opts.variants;
          const first = (c + run) % vs.length;
          for (const variant of [...vs.slice(first), ...vs.slice(0, first)]) {
            const name = `${variant}-${mode}-n${n}-r${run}`;
            const r = await measureStack(engines.get(backend)!, emu, variant, mode, n, name);
            const k = key(backend, mode, variant, n);
            const entry = samples.get(k) ?? { runs: [], bytes: [] };
            entry.runs.push(r.samples);
            entry.bytes.push(r.stateBytesPerResource);
            samples.set(k, entry);
            const s = (op: ScaleOp) => `${op} ${round(r.samples[op].ms / 1000, 2)} s`;
            opts.log(
              `run ${run + 1}/${opts.runs} ${backend} ${mode} ${variant} N=${n}: ${SCALE_OPS.map(s).join(", ")}; ` +
                `${Math.round(r.stateBytesPerResource)} B/resource`,
            );
          }
        }
      }
    });
  } finally {
    for (const engine of engines.values()) engine.dispose();
    postgres?.stop();
  }

  const measured: ScaleCell[] = cells.flatMap(({ backend, mode, n }) =>
    opts.variants.map((variant) => {
      const { runs, bytes: b } = samples.get(key(backend, mode, variant, n))!;
      const per = (f: (s: Sample) => number | null) =>
        Object.fromEntries(SCALE_OPS.map((op) => [op, runs.map((r) => f(r[op]))])) as Record<
          ScaleOp,
          (number | null)[]
        >;
      const wall = per((s) => s.ms);
      const cpu = per((s) => s.cpuMs);
      const hasCpu = SCALE_OPS.every((op) => cpu[op].every((v) => v !== null && v > 0));
      const cpuByPart = hasCpu
        ? (Object.fromEntries(
            SCALE_OPS.map((op) => [
              op,
              Object.fromEntries(
                PARTS.map((part) => [part, round(summarize(runs.map((r) => r[op].parts![part])).median, 0)]),
              ),
            ]),
          ) as Record<ScaleOp, Record<Part, number>>)
        : null;
      const sum = (m: Record<ScaleOp, (number | null)[]>) =>
        Object.fromEntries(SCALE_OPS.map((op) => [op, summarize(m[op] as number[])])) as Record<
          ScaleOp,
          Summary
        >;
      return {
        backend,
        mode,
        variant,
        n,
        ms: sum(wall),
        cpuMs: hasCpu ? sum(cpu) : null,
        cpuByPart,
        stateBytesPerResource: summarize(b),
      };
    }),
  );
  const results: ScaleResults = {
    schemaVersion: 1,
    kind: "scale",
    date: new Date(started).toISOString(),
    quick: opts.quick,
    runs: opts.runs,
    machine,
    versions: {
      node: process.version,
      pulumi: version,
      package: pkgVersion(path.join(REPO_ROOT, "package.json")),
      pulumiSdk: pkgVersion(require.resolve("@pulumi/pulumi/package.json", { paths: [REPO_ROOT] })),
    },
    counts: opts.counts,
    checkpointMax: opts.checkpointMax,
    backends: opts.backends,
    cells: measured,
    goals: [],
    durationSeconds: 0,
  };
  results.goals = scaleGoals(results);
  results.durationSeconds = round((Date.now() - started) / 1000, 1);
  mkdirSync(path.dirname(opts.outFile), { recursive: true });
  writeFileSync(opts.outFile, JSON.stringify(results, null, 2) + "\n");
  writeCharts(opts.outFile);
  return results;
}

if (require.main === module) {
  // Ctrl-C or a stop ends through process.exit, so the throw-away PostgreSQL server is stopped.
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));
  const opts = scaleOptions();
  opts.log(
    `N = ${opts.counts.join(", ")} (checkpoints up to ${opts.checkpointMax}), backends ${opts.backends.join(", ")}, ${opts.runs} run(s)`,
  );
  runFromCommandLine(benchScale(opts), scaleMarkdown, opts);
}

/**
 * `npm run bench`: the benchmarks — deploy against the engine floor, state size,
 * client against bare undici, emulator throughput — written to `bench/results/latest.json`
 * with its SVG charts beside it (`latest-*.svg`), and printed as Markdown tables on stdout
 * (progress goes to stderr).
 *
 * Environment:
 * - `BENCH_RUNS`: runs of each figure (default 3; each figure is the median with min and max);
 * - `BENCH_QUICK=1`: N = 5 only, 1 run (unless `BENCH_RUNS` is set), short loads — a smoke run,
 *   not figures to compare;
 * - `BENCH_LONG=1`: N = 10, 100, 300 and 1,000;
 * - `BENCH_COUNTS`: the N of the deploy benchmark instead, comma-separated (e.g. `10,300`);
 * - `BENCH_OUT`: the results file (default `bench/results/latest.json`), e.g.
 *   `bench/results/2026-11-23.json` for a run to commit with its charts;
 * - `BENCH_FAST=1`: every deployment in the engine's fast mode (`PULUMI_EXPERIMENTAL=true
 *   PULUMI_SKIP_CHECKPOINTS=true`, bench/engine.ts's `FAST_MODE_ENV`), with the goals of fast mode;
 * - `BENCH_ONLY=deploy`: the deploy benchmark alone (both doors against the floor), written
 *   without charts as a {@link DeployOnlyResults} document.
 *
 * @packageDocumentation
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { benchClient, type Comparison } from "./client";
import { runFromCommandLine, type CommandOptions } from "./command";
import { benchDeploy } from "./deploy";
import type { DeployResults } from "./deploy-results";
import { benchEmulator, spawnEmulatorProcess } from "./emulator";
import { FAST_MODE_ENV, openEngine, REPO_ROOT, type Engine } from "./engine";
import { benchStartup } from "./startup";
import { benchState } from "./state";
import type { ClientResults } from "./client";
import { deployGoals, evaluateGoals } from "./goals";
import { deployMarkdown, toMarkdown } from "./markdown";
import { benchVersions, machineInfo, writeCharts } from "./report";
import type { BenchResults, DeployOnlyResults } from "./run-results";
import { round, summarize } from "./stats";

/** Settings of one benchmark run. */
export interface BenchOptions extends CommandOptions {
  /** N of the deploy benchmark. */
  counts: number[];
  /** GETs per client measurement. */
  clientRequests: number;
  /** Seconds of each autocannon run. */
  loadSeconds: number;
  /** `BENCH_FAST=1`: every deployment in the engine's fast mode (no checkpoints). */
  fast: boolean;
  /** `BENCH_ONLY=deploy`: the deploy benchmark alone ({@link runDeployOnly}). */
  deployOnly: boolean;
}

/**
 * Options from the environment (`BENCH_QUICK`, `BENCH_LONG`, `BENCH_RUNS`, `BENCH_COUNTS`,
 * `BENCH_OUT`, `BENCH_FAST`, `BENCH_ONLY`), with `overrides` on top.
 * @throws Error when `BENCH_RUNS` is not a positive integer, `BENCH_COUNTS` not a
 * comma-separated list of them, or `BENCH_ONLY` other than `deploy`.
 */
export function benchOptions(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<BenchOptions> = {},
): BenchOptions {
  const quick = env.BENCH_QUICK === "1" || env.BENCH_QUICK === "true";
  const long = !quick && (env.BENCH_LONG === "1" || env.BENCH_LONG === "true");
  let runs = quick ? 1 : 3;
  if (env.BENCH_RUNS !== undefined && env.BENCH_RUNS !== "") {
    runs = Number(env.BENCH_RUNS);
    if (!Number.isInteger(runs) || runs < 1)
      throw new Error(`BENCH_RUNS must be a positive integer, got ${env.BENCH_RUNS}`);
  }
  let counts = quick ? [5] : long ? [10, 100, 300, 1000] : [10, 100, 300];
  if (env.BENCH_COUNTS !== undefined && env.BENCH_COUNTS !== "") {
    counts = env.BENCH_COUNTS.split(",").map(Number);
    if (!counts.every((n) => Number.isInteger(n) && n >= 1))
      throw new Error(`BENCH_COUNTS must be positive integers separated by commas, got ${env.BENCH_COUNTS}`);
  }
  const only = env.BENCH_ONLY ?? "";
  if (only !== "" && only !== "deploy")
    throw new Error(`BENCH_ONLY must be "deploy" (or unset), got ${only}`);
  return {
    quick,
    runs,
    counts,
    fast: env.BENCH_FAST === "1" || env.BENCH_FAST === "true",
    deployOnly: only === "deploy",
    clientRequests: quick ? 500 : 2000,
    loadSeconds: quick ? 1 : 10,
    outFile: env.BENCH_OUT
      ? path.resolve(env.BENCH_OUT)
      : path.join(REPO_ROOT, "bench", "results", "latest.json"),
    log: (line) => process.stderr.write(`[bench] ${line}\n`),
    ...overrides,
  };
}

/** Fresh processes of each kind for the fixed cost by part, outside quick mode. */
const STARTUP_RUNS = 11;

/** Fewest rounds of the client benchmark outside quick mode. */
const CLIENT_MIN_ROUNDS = 7;

/**
 * Benchmark 3 through bench/client.ts, against an emulator in its own process that keeps its
 * data in memory: what is measured is the client, so the service should answer every request
 * alike (with a data file, the request log's writes slowed some batches by a fifth).
 */
async function clientSection(opts: BenchOptions): Promise<ClientResults> {
  const emu = await spawnEmulatorProcess({ store: "memory" });
  try {
    const r = await benchClient({
      baseUrl: emu.url,
      apiKey: emu.apiKey,
      requests: opts.clientRequests,
      concurrency: 32,
      // 2,000 GETs take a fraction of a second: more rounds than deploys, for a steadier median.
      rounds: opts.quick ? opts.runs : Math.max(opts.runs, CLIENT_MIN_ROUNDS),
    });
    const mode = (concurrency: number, c: Comparison) => {
      // bench/client.ts measures bare and client alternately in each round: pair them.
      const ratio = summarize(c.clientMs.samples.map((ms, i) => ms / c.bareMs.samples[i]));
      opts.log(
        `client: concurrency ${concurrency}: client/undici ${round(ratio.median, 2)}× (${ratio.samples.map((v) => round(v, 2)).join(", ")})`,
      );
      return { concurrency, clientMs: c.clientMs, undiciMs: c.bareMs, ratio };
    };
    return { requests: r.requests, modes: [mode(1, r.sequential), mode(r.concurrency, r.concurrent)] };
  } finally {
    await emu.stop();
  }
}

/**
 * Benchmark 1 through bench/deploy.ts with the options' N and runs, in fast mode with `opts.fast`.
 * @throws Error when a deployment fails.
 */
async function deploySection(engine: Engine, opts: BenchOptions): Promise<DeployResults> {
  opts.log(
    `deploy: N = ${opts.counts.join(", ")}, ${opts.runs} run(s), floor, dynamic door and native door` +
      (opts.fast ? ", fast mode" : ""),
  );
  return benchDeploy(engine, {
    counts: opts.counts,
    runs: opts.runs,
    warmup: !opts.quick,
    log: opts.log,
    env: opts.fast ? FAST_MODE_ENV : undefined,
  });
}

/**
 * Runs the deploy benchmark alone (`BENCH_ONLY=deploy`), writes its document to `opts.outFile`
 * with its `deploy` and `operations` charts beside it, and returns it.
 * @throws Error when a deployment fails.
 */
export async function runDeployOnly(opts: BenchOptions): Promise<DeployOnlyResults> {
  const started = Date.now();
  return measureAndWrite(opts, started, machineInfo(), async (engine, header) => {
    const deploy = await deploySection(engine, opts);
    return {
      ...header,
      kind: "deploy",
      deploy,
      goals: deployGoals(deploy, opts.fast),
      durationSeconds: round((Date.now() - started) / 1000, 1),
    };
  });
}

/** The members every document of `npm run bench` starts with. */
type ResultsHeader = Pick<
  BenchResults,
  "schemaVersion" | "date" | "quick" | "runs" | "machine" | "versions"
> & {
  fastMode: boolean;
};

/**
 * Opens the bench's engine, runs `measure` with it and the document's {@link ResultsHeader}
 * (`started`, in milliseconds since the epoch, and `machine` as the run began), disposes of the
 * engine whatever happens, and writes the document `measure` returns to `opts.outFile` with its
 * charts beside it ({@link writeCharts}).
 * @throws what `measure` throws (nothing is written then), or writeCharts' error.
 */
async function measureAndWrite<R>(
  opts: BenchOptions,
  started: number,
  machine: BenchResults["machine"],
  measure: (engine: Engine, header: ResultsHeader) => Promise<R>,
): Promise<R> {
  const engine = await openEngine(opts.quick ? "bench-quick" : "bench");
  let results: R;
  try {
    results = await measure(engine, {
      schemaVersion: 1,
      date: new Date(started).toISOString(),
      quick: opts.quick,
      runs: opts.runs,
      fastMode: opts.fast,
      machine,
      versions: benchVersions(engine.version),
    });
  } finally {
    engine.dispose();
  }
  mkdirSync(path.dirname(opts.outFile), { recursive: true });
  writeFileSync(opts.outFile, JSON.stringify(results, null, 2) + "\n");
  writeCharts(opts.outFile);
  return results;
}

/**
 * Runs every benchmark, writes the JSON document to `opts.outFile` and returns it.
 * @throws Error when a benchmark fails (a deployment, a non-2xx response, …).
 */
export async function runBench(opts: BenchOptions): Promise<BenchResults> {
  const started = Date.now();
  const machine = machineInfo();

  opts.log(`emulator: autocannon, 32 connections × ${opts.loadSeconds} s, ${opts.runs} run(s) per endpoint`);
  const emulator = await benchEmulator({
    connections: 32,
    duration: opts.loadSeconds,
    runs: opts.runs,
    log: opts.log,
  });

  opts.log(`client: ${opts.clientRequests} GETs, sequential and concurrency 32, ${opts.runs} run(s)`);
  const client = await clientSection(opts);

  opts.log(`startup: the fixed cost by part, ${opts.quick ? 3 : STARTUP_RUNS} fresh processes of each kind`);
  const startup = await benchStartup({ runs: opts.quick ? 3 : STARTUP_RUNS, log: opts.log });

  return measureAndWrite(opts, started, machine, async (engine, header) => {
    opts.log(`state: one resource of each type, ${opts.runs} run(s)`);
    const state = await benchState(engine, { runs: opts.runs, log: opts.log });
    const deploy = await deploySection(engine, opts);
    return {
      ...header,
      deploy,
      startup,
      state,
      client,
      emulator,
      goals: evaluateGoals(deploy, state, client, emulator, opts.fast),
      durationSeconds: round((Date.now() - started) / 1000, 1),
    } satisfies BenchResults;
  });
}

if (require.main === module) {
  const opts = benchOptions();
  if (opts.deployOnly) runFromCommandLine(runDeployOnly(opts), deployMarkdown, opts);
  else runFromCommandLine(runBench(opts), toMarkdown, opts);
}

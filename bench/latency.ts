/**
 * The bench at a real service's latency (`npm run bench:latency`, `node dist/bench/latency.js`):
 * `up`, `refresh` and `destroy` of one `EventDestination` and N `EventSubscription`s through both
 * doors (bench/fixtures/deploy, the dynamic door; bench/fixtures/native, the native door) against
 * an emulator that adds a round trip to every answer (`latencyMs`) and limits each account's rate
 * (`rateLimit`, a token bucket), timed against the engine's floor (bench/fixtures/floor) **with
 * the same latency**: the floor's provider, which does no I/O, sleeps one round trip in each
 * method that makes one request in the real providers (create, read, update, delete; none in
 * check and diff), and has no rate limit. So the ratio to the floor is what the rate limit, the
 * retries and the providers' own work cost on top of the engine and the network.
 *
 * For each operation the emulator counts the requests it answered, by status class (2xx, 429,
 * other) and by route; a failure is an operation the engine reported an error for (a request the
 * client gave up on), and `failures` counts the service resources it did not get done: for `up`
 * and `destroy`, N + 1 minus the successful creates or deletes, for `refresh` 1 (the engine's
 * error does not say how many reads failed). The goal is 0 failures: every 429 retried, within the
 * client's retry budget (60 s; a 429 waits `Retry-After` plus jitter and does not count against the 4 retries). Then the engine's `--parallel` against the same rate limit: the dynamic and
 * native doors' up, refresh and destroy at N = `BENCH_PARALLEL_N` with each `--parallel` of
 * `BENCH_PARALLEL`.
 *
 * Environment (every one optional):
 * - `BENCH_LATENCIES`: round trips in ms, comma-separated (default `50,150`);
 * - `BENCH_COUNTS`: N, comma-separated (default `100,1000`); every latency gets every N, unless
 * - `BENCH_CELLS`: the (latency, N) pairs instead, e.g. `150:100,150:1000,50:100`;
 * - `BENCH_JITTER_MS`: the jitter of each round trip (default 0);
 * - `BENCH_RATE_LIMIT` (default `20/1s`) and `BENCH_RATE_LIMIT_BURST` (default `40`; `0` for the
 *   rolling window): the emulator's `--rate-limit` and `--rate-limit-burst`;
 * - `BENCH_PARALLEL`: the `--parallel` values of the sweep (default `1,4,8,16,32`; `0` skips it),
 *   at `BENCH_PARALLEL_N` (default 100) and the largest latency;
 * - `BENCH_RUNS`: runs of each cell with N under 1,000 and of each sweep value (default 1;
 *   figures are the median with min and max); `BENCH_RUNS_LARGE`: runs of the cells from
 *   N = 1,000 (default 1);
 * - `BENCH_MAX_RPS` and `BENCH_REQUEST_BURST` (default 1): the providers' ceiling in requests
 *   per second and burst (`SERVICE_MAX_REQUESTS_PER_SECOND`, `SERVICE_REQUEST_BURST`); unset, the
 *   providers pace at the rate they learn from the 429s (client/pacer.ts);
 * - `BENCH_CHECKPOINTS=1`: the engine writes its checkpoints (default: fast mode, without them,
 *   as at N = 1,000 they cost minutes that have nothing to do with the service);
 * - `BENCH_QUICK=1`: a smoke run: N = 5 at 50 ms, a rate limit of 2 per second in bursts of 2
 *   (so that even N = 5 meets it), the sweep at `--parallel` 2 and N = 5;
 * - `BENCH_OUT`: the results file (default `bench/results/<date>-latency.json`); its charts
 *   (`<stem>-latency.svg`, `-latency-requests.svg`, `-latency-parallel.svg`) are written beside it.
 *
 * Prints a Markdown table of the figures on stdout (bench/latency-markdown.ts), progress on
 * stderr. The settings are read by bench/latency-settings.ts; the figures have the shapes of
 * bench/latency-results.ts.
 *
 * @packageDocumentation
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { startEmulator, type RateLimitOptions } from "service-emulator";
import { FAST_MODE_ENV, openEngine, REPO_ROOT, timed, type Engine } from "./engine";
import { latencyMarkdown } from "./latency-markdown";
import {
  LATENCY_OPS,
  type LatencyCell,
  type LatencyDocument,
  type LatencyOp,
  type LatencyResults,
  type OperationSample,
  type ParallelCell,
  type VariantFigures,
} from "./latency-results";
import { latencyOptionsFromEnv, type LatencyBenchOptions } from "./latency-settings";
import { benchVersions, machineInfo, writeCharts } from "./report";
import { configure, onNewStack, RequestMeter, type Variant } from "./stacks";
import { round, summarize, type Summary } from "./stats";

/**
 * The preload that gives the floor its latency: in the floor's provider process, it wraps the
 * methods of bench/fixtures/floor/provider.js that stand for a request (create, read, update,
 * remove) with a sleep of one round trip (`BENCH_FLOOR_LATENCY_MS`, give or take
 * `BENCH_FLOOR_JITTER_MS`, uniform). Other processes never load that file, so it changes nothing
 * there.
 */
export const FLOOR_LATENCY_PRELOAD = `"use strict";
const Module = require("module");
const path = require("path");
const target = process.env.BENCH_FLOOR_PROVIDER;
const latency = Number(process.env.BENCH_FLOOR_LATENCY_MS || 0);
const jitter = Number(process.env.BENCH_FLOOR_JITTER_MS || 0);
const sleep = () =>
  new Promise((r) => setTimeout(r, Math.max(0, Math.round(latency + (2 * Math.random() - 1) * jitter))));
const load = Module._load;
Module._load = function (request, ...rest) {
  const exported = load.call(this, request, ...rest);
  if (target && path.isAbsolute(request) && path.resolve(request) === target && !exported.__benchLatency) {
    for (const name of ["create", "read", "update", "remove"]) {
      const fn = exported[name];
      exported[name] = async (...args) => {
        await sleep();
        return fn(...args);
      };
    }
    exported.__benchLatency = true;
  }
  return exported;
};
`;

/**
 * What the engine's error says about the cause: its `error:` lines (the diagnostics, where the
 * provider's message is), at most 5 of them and 2,000 characters, else the last 1,000 characters
 * (the command line's output starts with the resources' progress lines).
 */
export function diagnostics(message: string): string {
  const lines = message
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => /\berror:/.test(l));
  return lines.length > 0 ? lines.slice(0, 5).join("\n").slice(0, 2000) : message.slice(-1000);
}

/** The engine's count of what the operation did to the stack's resources. */
async function runOp(stack: Stack, op: LatencyOp, parallel: number | undefined): Promise<number | undefined> {
  const p = parallel === undefined ? {} : { parallel };
  if (op === "up") return (await stack.up(p)).summary.resourceChanges?.create;
  if (op === "refresh") return (await stack.refresh(p)).summary.resourceChanges?.same;
  return (await stack.destroy(p)).summary.resourceChanges?.delete;
}

/**
 * Runs up, refresh and destroy on a new stack of `variant` with N subscriptions, against a new
 * emulator with the latency and the rate limit (the floor: with the latency as its provider's
 * sleep), and returns each operation's sample. An operation the engine fails is recorded (its
 * error, every resource a failure), and the next ones still run, so that destroy cleans up.
 */
async function measureStack(
  engine: Engine,
  variant: Variant,
  opts: {
    n: number;
    latencyMs: number;
    jitterMs: number;
    rateLimit: RateLimitOptions;
    parallel?: number;
    fast: boolean;
    preload: string;
    name: string;
    pace?: LatencyBenchOptions["pace"];
  },
): Promise<Record<LatencyOp, OperationSample>> {
  const meter = new RequestMeter();
  const emulator = await startEmulator({
    latencyMs: opts.latencyMs,
    latencyJitterMs: opts.jitterMs,
    rateLimit: opts.rateLimit,
    onApp: meter.onApp,
  });
  try {
    return await onNewStack(engine, variant, opts.name, async (stack) => {
      const env = stack.workspace.envVars;
      if (opts.fast) Object.assign(env, FAST_MODE_ENV);
      if (opts.pace) {
        env.SERVICE_MAX_REQUESTS_PER_SECOND = String(opts.pace.maxRequestsPerSecond);
        env.SERVICE_REQUEST_BURST = String(opts.pace.burst ?? 1);
      }
      if (variant === "floor") {
        env.NODE_OPTIONS = `--require ${opts.preload}`;
        env.BENCH_FLOOR_PROVIDER = path.join(REPO_ROOT, "bench", "fixtures", "floor", "provider.js");
        env.BENCH_FLOOR_LATENCY_MS = String(opts.latencyMs);
        env.BENCH_FLOOR_JITTER_MS = String(opts.jitterMs);
      }
      await configure(stack, variant, opts.n, { url: emulator.url, apiKey: emulator.apiKeys[0] });
      const out = {} as Record<LatencyOp, OperationSample>;
      for (const op of LATENCY_OPS) {
        const before = meter.snapshot();
        const resources = opts.n + 1;
        let error: string | undefined;
        const t = await timed(async () => {
          try {
            const counted = await runOp(stack, op, opts.parallel);
            if (counted !== opts.n + 2)
              error = `${op}: expected ${opts.n + 2} resources, the engine reported ${counted}`;
          } catch (e) {
            error = diagnostics(String((e as Error).message ?? e));
          }
        });
        const requests = variant === "floor" ? null : meter.since(before);
        const failures =
          error === undefined
            ? 0
            : op === "refresh" || requests === null
              ? 1
              : Math.max(1, resources - requests.ok);
        out[op] = { ms: t.ms, requests, failures, ...(error === undefined ? {} : { error }) };
      }
      return out;
    });
  } finally {
    await emulator.close();
  }
}

/** The figures of a variant from its runs' samples. */
function figuresOf(samples: Record<LatencyOp, OperationSample>[]): VariantFigures {
  const ms = Object.fromEntries(
    LATENCY_OPS.map((op) => [op, summarize(samples.map((s) => s[op].ms))]),
  ) as Record<LatencyOp, Summary>;
  const totalMs = summarize(samples.map((s) => LATENCY_OPS.reduce((sum, op) => sum + s[op].ms, 0)));
  return { ms, totalMs, samples };
}

/**
 * Runs the latency bench (see the module comment): each cell's floor, dynamic and native stacks,
 * `runs` times, then the `--parallel` sweep.
 *
 * @throws whatever the engine throws outside an operation (creating or removing a stack).
 */
export async function benchLatency(engine: Engine, opts: LatencyBenchOptions): Promise<LatencyResults> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-latency-"));
  const preload = path.join(dir, "floor-latency.js");
  writeFileSync(preload, FLOOR_LATENCY_PRELOAD);
  const common = {
    jitterMs: opts.jitterMs,
    rateLimit: opts.rateLimit,
    fast: opts.fast,
    preload,
    pace: opts.pace,
  };
  const describe = (s: Record<LatencyOp, OperationSample>) =>
    LATENCY_OPS.map(
      (op) =>
        `${op} ${(s[op].ms / 1000).toFixed(1)} s` +
        (s[op].requests ? ` (${s[op].requests.requests} req, ${s[op].requests.limited} × 429)` : "") +
        (s[op].failures > 0 ? ` ${s[op].failures} FAILED` : ""),
    ).join(", ");
  try {
    const cells: LatencyCell[] = [];
    for (const { latencyMs, n } of opts.cells) {
      const runs: Record<Variant, Record<LatencyOp, OperationSample>[]> = { floor: [], real: [], native: [] };
      for (let run = 0; run < (n >= 1000 ? opts.runsLarge : opts.runs); run++) {
        for (const variant of ["floor", "real", "native"] as const) {
          const s = await measureStack(engine, variant, {
            ...common,
            n,
            latencyMs,
            name: `latency-${variant}-${latencyMs}-${n}`,
          });
          runs[variant].push(s);
          opts.log(`${latencyMs} ms, N = ${n}, ${variant}, run ${run + 1}: ${describe(s)}`);
        }
      }
      cells.push({
        latencyMs,
        n,
        floor: figuresOf(runs.floor),
        real: figuresOf(runs.real),
        native: figuresOf(runs.native),
      });
    }
    const parallelLatencyMs = Math.max(...opts.cells.map((c) => c.latencyMs));
    const parallel: ParallelCell[] = [];
    for (const p of opts.parallel) {
      for (const door of ["real", "native"] as const) {
        const samples: Record<LatencyOp, OperationSample>[] = [];
        for (let run = 0; run < opts.runs; run++) {
          const s = await measureStack(engine, door, {
            ...common,
            n: opts.parallelN,
            latencyMs: parallelLatencyMs,
            parallel: p,
            name: `latency-parallel-${door}-${p}`,
          });
          samples.push(s);
          opts.log(`--parallel ${p}, ${door}, N = ${opts.parallelN}, run ${run + 1}: ${describe(s)}`);
        }
        parallel.push({ parallel: p, door, figures: figuresOf(samples) });
      }
    }
    return { cells, parallel, parallelN: opts.parallelN, parallelLatencyMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const log = (line: string) => process.stderr.write(`[bench:latency] ${line}\n`);
  const started = Date.now();
  void (async () => {
    const opts = latencyOptionsFromEnv(process.env, log);
    const outFile = path.resolve(
      process.env.BENCH_OUT ||
        path.join(
          REPO_ROOT,
          "bench",
          "results",
          `${new Date(started).toISOString().slice(0, 10)}-latency.json`,
        ),
    );
    const engine = await openEngine("bench-latency");
    try {
      const r = await benchLatency(engine, opts);
      const doc: LatencyDocument = {
        schemaVersion: 1,
        kind: "latency",
        date: new Date(started).toISOString(),
        quick: opts.quick,
        machine: machineInfo(),
        versions: benchVersions(engine.version),
        settings: {
          jitterMs: opts.jitterMs,
          rateLimit: opts.rateLimit,
          runs: opts.runs,
          runsLarge: opts.runsLarge,
          fastMode: opts.fast,
          cellsParallel: "the engine's default (4 per CPU)",
          pace: opts.pace ?? "learned",
        },
        ...r,
        durationSeconds: round((Date.now() - started) / 1000, 1),
      };
      mkdirSync(path.dirname(outFile), { recursive: true });
      writeFileSync(outFile, JSON.stringify(doc, null, 2) + "\n");
      writeCharts(outFile);
      process.stdout.write(latencyMarkdown(r, opts.rateLimit) + "\n");
      log(`wrote ${path.relative(process.cwd(), outFile)} in ${doc.durationSeconds} s`);
    } finally {
      engine.dispose();
    }
  })().catch((e: unknown) => {
    process.stderr.write(`[bench:latency] ${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 1;
  });
}

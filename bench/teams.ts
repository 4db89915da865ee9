/**
 * The bench of parallel stacks (`npm run bench:teams`, docs/teams.md § Parallel stacks): K stacks
 * of one program (bench/fixtures/deploy, the dynamic door: one `EventDestination` and N
 * `EventSubscription`s each, run from a folder of the run's own, {@link ownProgramFolder}) on
 * one backend and one emulator, as a team's pipelines deploy them.
 * For each backend (a file backend, and a database of a throw-away PostgreSQL server,
 * scripts/postgres-server.ts), in each run: the K `up`s from empty at the same time, each in its
 * own engine process, then all destroyed; the same K `up`s one after the other, then all
 * destroyed. The two `up` batches are timed (wall time, and the CPU time of this process and of
 * every process the engine ran); the destroys are not. Which batch goes first, and which backend,
 * turns with the run.
 *
 * The figures are ratios taken within each run: parallel / one after the other on each backend,
 * and PostgreSQL / file for each batch (with both backends); each figure is the median of the
 * runs with min and max.
 *
 * It checks what it measures and throws when a check fails: every `up` succeeds and creates its
 * N + 2 resources (the Stack included), the emulator then holds exactly K × (N + 1) resources,
 * and every destroy deletes them all, so that the emulator is empty after each.
 *
 * Environment (every one optional): `BENCH_STACKS` (K, default 4), `BENCH_SUBSCRIPTIONS` (N,
 * default 5: stacks of 6 resources), `BENCH_RUNS` (default 3), `BENCH_BACKENDS` (`file,postgres`
 * by default), `BENCH_DOOR` (`real`, the dynamic door, by default; `native`, the plugin),
 * `BENCH_LATENCY_MS` (the emulator's added round trip, default 0), `BENCH_RATE_LIMIT` and
 * `BENCH_RATE_LIMIT_BURST` (the one account's rate limit, as bench/latency.ts reads them; default
 * none: with one, the providers pace themselves and the answers of 429 of each batch are counted),
 * `BENCH_QUICK=1` (a smoke run: K = 2, N = 1, one run, unless set otherwise),
 * `BENCH_OUT` (the results document, default `bench/results/latest-teams.json`; no chart).
 *
 * Prints a Markdown table of the figures on stdout (bench/teams-markdown.ts), progress on stderr.
 * The figures have the shapes of bench/teams-results.ts.
 *
 * @packageDocumentation
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { startEmulator, type RateLimitOptions, type RunningEmulator } from "service-emulator";
import { startPostgres, type RunningPostgres } from "../scripts/postgres-server";
import { openEngine, REPO_ROOT, timed, type Engine } from "./engine";
import { runFromCommandLine, type CommandOptions } from "./command";
import { benchVersions, machineInfo } from "./report";
import { BACKENDS, type Backend } from "./scale-results";
import { rateLimitFromEnv } from "./latency-settings";
import { expectCount, RequestMeter, variantFixture } from "./stacks";
import { round } from "./stats";
import { teamsMarkdown } from "./teams-markdown";
import {
  teamsFigures,
  type Batch,
  type BatchSample,
  type TeamsResults,
  type TeamsService,
} from "./teams-results";

/** Settings of {@link benchTeams}. */
export interface TeamsOptions extends CommandOptions {
  /** K: the stacks deployed in each batch (at least 2). */
  stacks: number;
  /** N: each stack's subscriptions (it holds N + 1 service resources, N + 2 with the Stack). */
  subscriptions: number;
  /** The backends measured, in the order of the first run. */
  backends: Backend[];
  /** The stacks' door: `real` (the dynamic door, bench/fixtures/deploy) or `native` (bench/fixtures/native). */
  door: "real" | "native";
  /** The emulator's added round trip, in milliseconds. */
  latencyMs: number;
  /** The one account's rate limit; `undefined`: none. */
  rateLimit?: RateLimitOptions;
}

/**
 * Options from the environment (see the module's documentation), with `overrides` on top.
 * @throws Error naming the variable when `BENCH_STACKS` is not a whole number from 2 up,
 *   `BENCH_SUBSCRIPTIONS` or `BENCH_RUNS` not a positive whole number, or `BENCH_BACKENDS`
 *   names another backend than `file` and `postgres` (or one twice), `BENCH_DOOR` is neither
 *   `real` nor `native`, `BENCH_LATENCY_MS` is not a whole number, or `BENCH_RATE_LIMIT` or
 *   `BENCH_RATE_LIMIT_BURST` is malformed.
 */
export function teamsOptions(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<TeamsOptions> = {},
): TeamsOptions {
  const quick = env.BENCH_QUICK === "1" || env.BENCH_QUICK === "true";
  const whole = (name: string, fallback: number, min: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    const v = Number(raw);
    if (!Number.isSafeInteger(v) || v < min)
      throw new Error(`${name} must be a whole number from ${min} up, got ${raw}`);
    return v;
  };
  const backends = (env.BENCH_BACKENDS || BACKENDS.join(",")).split(",").map((b) => b.trim());
  for (const [i, b] of backends.entries())
    if (!(BACKENDS as readonly string[]).includes(b) || backends.indexOf(b) !== i)
      throw new Error(`BENCH_BACKENDS must name backends among ${BACKENDS.join(", ")}, each once, got ${b}`);
  const door = env.BENCH_DOOR || "real";
  if (door !== "real" && door !== "native")
    throw new Error(`BENCH_DOOR must be real (the dynamic door) or native, got ${door}`);
  return {
    quick,
    door,
    latencyMs: whole("BENCH_LATENCY_MS", 0, 0),
    rateLimit: rateLimitFromEnv(env, undefined, 0),
    stacks: whole("BENCH_STACKS", quick ? 2 : 4, 2),
    subscriptions: whole("BENCH_SUBSCRIPTIONS", quick ? 1 : 5, 1),
    runs: whole("BENCH_RUNS", quick ? 1 : 3, 1),
    backends: backends as Backend[],
    outFile: env.BENCH_OUT
      ? path.resolve(env.BENCH_OUT)
      : path.join(REPO_ROOT, "bench", "results", "latest-teams.json"),
    log: (line) => process.stderr.write(`[bench:teams] ${line}\n`),
    ...overrides,
  };
}

/**
 * Awaits every operation of `ops` (one per stack, at the same time) and returns their results in
 * order.
 * @throws Error `<what>: <k> of <K> failed: <stack>: <message>; …` (each message cut to 1,000
 *   characters) once all have ended, when any of them rejected.
 */
export async function allSucceeded<T>(
  what: string,
  ops: readonly { stack: string; run: Promise<T> }[],
): Promise<T[]> {
  const settled = await Promise.allSettled(ops.map((o) => o.run));
  const failed = settled.flatMap((s, i) =>
    s.status === "rejected"
      ? [`${ops[i].stack}: ${String((s.reason as Error)?.message ?? s.reason).slice(-1000)}`]
      : [],
  );
  if (failed.length > 0)
    throw new Error(`${what}: ${failed.length} of ${ops.length} failed: ${failed.join("; ")}`);
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

/**
 * Checks what the emulator holds: exactly `want.destinations` event destinations and
 * `want.subscriptions` event subscriptions (`{ destinations: 0, subscriptions: 0 }` after a
 * destroy).
 * @throws Error `<what>: the emulator holds <d> destinations and <s> subscriptions, expected …`.
 */
export function expectHeld(
  what: string,
  snapshot: { event_destinations: readonly unknown[]; event_subscriptions: readonly unknown[] },
  want: { destinations: number; subscriptions: number },
): void {
  const d = snapshot.event_destinations.length;
  const s = snapshot.event_subscriptions.length;
  if (d !== want.destinations || s !== want.subscriptions)
    throw new Error(
      `${what}: the emulator holds ${d} destinations and ${s} subscriptions, expected ${want.destinations} and ${want.subscriptions}`,
    );
}

/** One backend's stacks, with what it needs to measure them. */
interface BackendSet {
  backend: Backend;
  engine: Engine;
  stacks: Stack[];
}

/**
 * The `up`s of one batch, timed: at the same time, or one after the other. Each must create the
 * stack's N + 2 resources; then the emulator must hold K × (N + 1).
 * @throws Error when an `up` fails or creates another number of resources, or the emulator
 *   holds other than K × (N + 1) resources afterwards.
 */
async function upBatch(
  set: BackendSet,
  batch: Batch,
  opts: TeamsOptions,
  emulator: RunningEmulator,
): Promise<BatchSample> {
  const what = `${set.backend}, ${opts.stacks} up ${batch === "parallel" ? "in parallel" : "one after the other"}`;
  const want = opts.subscriptions + 2;
  const t = await timed(async () => {
    if (batch === "parallel") {
      const ups = await allSucceeded(
        what,
        set.stacks.map((s) => ({ stack: s.name, run: s.up() })),
      );
      ups.forEach((u, i) =>
        expectCount(`${what}, ${set.stacks[i].name}`, u.summary.resourceChanges?.create, want),
      );
    } else {
      for (const s of set.stacks) {
        const [u] = await allSucceeded(what, [{ stack: s.name, run: s.up() }]);
        expectCount(`${what}, ${s.name}`, u.summary.resourceChanges?.create, want);
      }
    }
  });
  expectHeld(what, emulator.store.snapshot(), {
    destinations: opts.stacks,
    subscriptions: opts.stacks * opts.subscriptions,
  });
  return { ms: t.ms, cpuMs: t.cpuMs };
}

/**
 * Destroys every stack of the set at the same time (not timed).
 * @throws Error when a destroy fails or deletes another number of resources than N + 2, or the
 *   emulator is not empty afterwards.
 */
async function destroyAll(set: BackendSet, opts: TeamsOptions, emulator: RunningEmulator): Promise<void> {
  const what = `${set.backend}, destroy`;
  const destroys = await allSucceeded(
    what,
    set.stacks.map((s) => ({ stack: s.name, run: s.destroy() })),
  );
  destroys.forEach((d, i) =>
    expectCount(`${what}, ${set.stacks[i].name}`, d.summary.resourceChanges?.delete, opts.subscriptions + 2),
  );
  expectHeld(what, emulator.store.snapshot(), { destinations: 0, subscriptions: 0 });
}

/**
 * A folder of this run's own for the stacks' program: bench/fixtures/deploy's `Pulumi.yaml`, and
 * an `index.js` that runs its `index.js`. Under `.pulumi-state/` (in the repository, so that the
 * program finds this package and `@pulumi/pulumi` as from bench/fixtures/deploy), so that the
 * stacks' settings files (`Pulumi.<stack>.yaml`) are this run's alone: a test run ending
 * meanwhile removes the settings files it finds added under bench/fixtures. Returns the folder.
 */
export function ownProgramFolder(door: "real" | "native" = "real"): string {
  const dir = path.join(REPO_ROOT, ".pulumi-state", `bench-teams-program-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const fixture = variantFixture(door);
  // The native fixture names its plugin's folder relative to itself: here, the same folder, absolute.
  const project = readFileSync(path.join(fixture, "Pulumi.yaml"), "utf8").replace(
    /^(\s*path:\s*)(\.\.\/\S*)$/m,
    (_m, key: string, rel: string) => key + path.resolve(fixture, rel),
  );
  writeFileSync(path.join(dir, "Pulumi.yaml"), project);
  writeFileSync(
    path.join(dir, "index.js"),
    `"use strict";\nmodule.exports = require(${JSON.stringify(path.join(fixture, "index.js"))});\n`,
  );
  return dir;
}

/**
 * Runs the bench (see the module's documentation), writes its document to `opts.outFile` and
 * returns it.
 * @throws Error when a check fails (an `up` or a destroy fails or counts other resources, the
 *   emulator holds other than expected), PostgreSQL is measured and its binaries are missing,
 *   or creating or removing a stack fails.
 */
export async function benchTeams(opts: TeamsOptions): Promise<TeamsResults> {
  const started = Date.now();
  const machine = machineInfo();
  const meter = new RequestMeter();
  const emulator = await startEmulator({
    latencyMs: opts.latencyMs,
    rateLimit: opts.rateLimit,
    onApp: meter.onApp,
  });
  const emu = { url: emulator.url, apiKey: emulator.apiKeys[0] };
  const answers429: TeamsService["answers429"] = {};
  let program: string | undefined;
  let postgres: RunningPostgres | null = null;
  const sets: BackendSet[] = [];
  const samples = new Map<Backend, Record<Batch, BatchSample[]>>();
  let version = "";
  try {
    program = ownProgramFolder(opts.door);
    if (opts.backends.includes("postgres")) postgres = await startPostgres();
    for (const backend of opts.backends) {
      const url =
        backend === "postgres" ? postgres!.url(await postgres!.createDatabase("bench_teams")) : undefined;
      const engine = await openEngine("bench-teams", url);
      version = engine.version;
      const set: BackendSet = { backend, engine, stacks: [] };
      sets.push(set);
      samples.set(backend, { parallel: [], sequential: [] });
      answers429[backend] = { parallel: [], sequential: [] };
      for (let i = 1; i <= opts.stacks; i++) {
        const stack = await engine.newStack(program, `teams-${backend}-${i}`);
        set.stacks.push(stack);
        await stack.setAllConfig({
          count: { value: String(opts.subscriptions) },
          "service:baseUrl": { value: emu.url },
          "service:apiKey": { value: emu.apiKey, secret: true },
        });
      }
    }
    for (let run = 0; run < opts.runs; run++) {
      const first = run % sets.length;
      for (const set of [...sets.slice(first), ...sets.slice(0, first)]) {
        const batches: Batch[] = run % 2 === 0 ? ["parallel", "sequential"] : ["sequential", "parallel"];
        const line: string[] = [];
        for (const batch of batches) {
          const before = meter.snapshot();
          const s = await upBatch(set, batch, opts, emulator);
          const { limited } = meter.since(before);
          samples.get(set.backend)![batch].push(s);
          answers429[set.backend]![batch].push(limited);
          line.push(`${batch} ${round(s.ms / 1000, 1)} s` + (opts.rateLimit ? ` (${limited} × 429)` : ""));
          await destroyAll(set, opts, emulator);
        }
        opts.log(`run ${run + 1}/${opts.runs} ${set.backend}, ${opts.stacks} stacks: ${line.join(", ")}`);
      }
    }
  } finally {
    for (const set of sets) {
      for (const stack of set.stacks) await set.engine.removeStack(stack).catch(() => {});
      set.engine.dispose();
    }
    postgres?.stop();
    await emulator.close();
    if (program !== undefined) rmSync(program, { recursive: true, force: true });
  }

  const figures = teamsFigures(opts.backends, samples);
  const results: TeamsResults = {
    schemaVersion: 1,
    kind: "teams",
    date: new Date(started).toISOString(),
    quick: opts.quick,
    runs: opts.runs,
    stacks: opts.stacks,
    subscriptions: opts.subscriptions,
    resourcesPerStack: opts.subscriptions + 1,
    machine,
    versions: benchVersions(version),
    ...figures,
    service: { door: opts.door, latencyMs: opts.latencyMs, rateLimit: opts.rateLimit ?? null, answers429 },
    durationSeconds: round((Date.now() - started) / 1000, 1),
  };
  mkdirSync(path.dirname(opts.outFile), { recursive: true });
  writeFileSync(opts.outFile, JSON.stringify(results, null, 2) + "\n");
  return results;
}

if (require.main === module) {
  // Ctrl-C or a stop ends through process.exit, so the throw-away PostgreSQL server is stopped.
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));
  const opts = teamsOptions();
  opts.log(
    `${opts.stacks} stacks of ${opts.subscriptions + 1} resources, backends ${opts.backends.join(", ")}, ${opts.runs} run(s)`,
  );
  runFromCommandLine(benchTeams(opts), teamsMarkdown, opts);
}

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
 * by default), `BENCH_QUICK=1` (a smoke run: K = 2, N = 1, one run, unless set otherwise),
 * `BENCH_OUT` (the results document, default `bench/results/latest-teams.json`; no chart).
 *
 * Prints a Markdown table of the figures on stdout, progress on stderr.
 *
 * @packageDocumentation
 */
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { startEmulator, type RunningEmulator } from "service-emulator";
import { startPostgres, type RunningPostgres } from "../scripts/postgres-server";
import { openEngine, REPO_ROOT, timed, type Engine } from "./engine";
import { runFromCommandLine, type CommandOptions } from "./command";
import { benchVersions, machineInfo, type MachineInfo, type Versions } from "./report";
import { BACKENDS, type Backend } from "./scale-results";
import { expectCount, variantFixture } from "./stacks";
import { round, summarize, type Summary } from "./stats";

/** Settings of {@link benchTeams}. */
export interface TeamsOptions extends CommandOptions {
  /** K: the stacks deployed in each batch (at least 2). */
  stacks: number;
  /** N: each stack's subscriptions (it holds N + 1 service resources, N + 2 with the Stack). */
  subscriptions: number;
  /** The backends measured, in the order of the first run. */
  backends: Backend[];
}

/** The two batches of `up`s: all K at the same time, and one after the other. */
export type Batch = "parallel" | "sequential";

/** The figures of one backend over the runs. */
export interface TeamsBackendFigures {
  backend: Backend;
  /** Wall time of the K `up`s at the same time, in milliseconds. */
  parallelMs: Summary;
  /** Wall time of the K `up`s one after the other, in milliseconds. */
  sequentialMs: Summary;
  /**
   * CPU milliseconds of each batch (this process, with the emulator, and every process the
   * engine ran, from /proc); null where /proc cannot be read.
   */
  cpuMs: { parallel: Summary; sequential: Summary } | null;
  /** Parallel / one after the other, taken within each run (below 1: parallel is faster). */
  ratio: Summary;
}

/** The document `npm run bench:teams` writes (bench/results/latest-teams.json by default). */
export interface TeamsResults {
  /** Version of this document's shape. */
  schemaVersion: 1;
  /** Which bench wrote the document. */
  kind: "teams";
  /** ISO 8601 time the run started. */
  date: string;
  /** `BENCH_QUICK=1`: a smoke run, not figures to compare. */
  quick: boolean;
  /** Runs of each figure. */
  runs: number;
  /** K. */
  stacks: number;
  /** N. */
  subscriptions: number;
  /** Resources of each stack's program: N + 1 (the Stack left out). */
  resourcesPerStack: number;
  /** Where the figures were taken. */
  machine: MachineInfo;
  /** What was measured. */
  versions: Versions;
  /** Each backend's figures, in the order of {@link TeamsOptions.backends}. */
  backends: TeamsBackendFigures[];
  /**
   * PostgreSQL / file wall time of each batch, taken within each run; null unless both backends
   * were measured.
   */
  postgresOverFile: { parallel: Summary; sequential: Summary } | null;
  /** Wall time of the whole run, in seconds. */
  durationSeconds: number;
}

/**
 * Options from the environment (see the module's documentation), with `overrides` on top.
 * @throws Error naming the variable when `BENCH_STACKS` is not a whole number from 2 up,
 *   `BENCH_SUBSCRIPTIONS` or `BENCH_RUNS` not a positive whole number, or `BENCH_BACKENDS`
 *   names another backend than `file` and `postgres` (or one twice).
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
  return {
    quick,
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

/** One batch of `up`s of one run. */
export interface BatchSample {
  /** Wall time, in milliseconds. */
  ms: number;
  /** CPU milliseconds of this process and every process the engine ran; null without /proc. */
  cpuMs: number | null;
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

/** `a / b` of each run's samples, summarized. */
function ratios(a: readonly number[], b: readonly number[]): Summary {
  return summarize(a.map((x, i) => round(x / b[i], 3)));
}

/**
 * The figures of a run from its samples: for each backend of `backends` (in that order), each
 * batch's wall and CPU time (CPU null unless every sample has one above 0) and the ratio parallel
 * / one after the other; with both backends, PostgreSQL / file of each batch. Each ratio is
 * taken within a run (sample `i` against sample `i`) and rounded to 3 decimals.
 * @throws Error when a backend of `backends` has no samples, or a batch none (summarize's).
 */
export function teamsFigures(
  backends: readonly Backend[],
  samples: ReadonlyMap<Backend, Record<Batch, readonly BatchSample[]>>,
): Pick<TeamsResults, "backends" | "postgresOverFile"> {
  const of = (backend: Backend) => {
    const s = samples.get(backend);
    if (!s) throw new Error(`no samples of the ${backend} backend`);
    return s;
  };
  const figures = backends.map((backend): TeamsBackendFigures => {
    const s = of(backend);
    const ms = (b: Batch) => s[b].map((x) => x.ms);
    const cpu = (b: Batch) => s[b].map((x) => x.cpuMs);
    const hasCpu = [...cpu("parallel"), ...cpu("sequential")].every((v) => v !== null && v > 0);
    return {
      backend,
      parallelMs: summarize(ms("parallel")),
      sequentialMs: summarize(ms("sequential")),
      cpuMs: hasCpu
        ? {
            parallel: summarize(cpu("parallel") as number[]),
            sequential: summarize(cpu("sequential") as number[]),
          }
        : null,
      ratio: ratios(ms("parallel"), ms("sequential")),
    };
  });
  const both = backends.includes("postgres") && backends.includes("file");
  const over = (b: Batch) =>
    ratios(
      of("postgres")[b].map((x) => x.ms),
      of("file")[b].map((x) => x.ms),
    );
  return {
    backends: figures,
    postgresOverFile: both ? { parallel: over("parallel"), sequential: over("sequential") } : null,
  };
}

/**
 * A folder of this run's own for the stacks' program: bench/fixtures/deploy's `Pulumi.yaml`, and
 * an `index.js` that runs its `index.js`. Under `.pulumi-state/` (in the repository, so that the
 * program finds this package and `@pulumi/pulumi` as from bench/fixtures/deploy), so that the
 * stacks' settings files (`Pulumi.<stack>.yaml`) are this run's alone: a test run ending
 * meanwhile removes the settings files it finds added under bench/fixtures. Returns the folder.
 */
export function ownProgramFolder(): string {
  const dir = path.join(REPO_ROOT, ".pulumi-state", `bench-teams-program-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const fixture = variantFixture("real");
  copyFileSync(path.join(fixture, "Pulumi.yaml"), path.join(dir, "Pulumi.yaml"));
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
  const emulator = await startEmulator();
  const emu = { url: emulator.url, apiKey: emulator.apiKeys[0] };
  let program: string | undefined;
  let postgres: RunningPostgres | null = null;
  const sets: BackendSet[] = [];
  const samples = new Map<Backend, Record<Batch, BatchSample[]>>();
  let version = "";
  try {
    program = ownProgramFolder();
    if (opts.backends.includes("postgres")) postgres = await startPostgres();
    for (const backend of opts.backends) {
      const url =
        backend === "postgres" ? postgres!.url(await postgres!.createDatabase("bench_teams")) : undefined;
      const engine = await openEngine("bench-teams", url);
      version = engine.version;
      const set: BackendSet = { backend, engine, stacks: [] };
      sets.push(set);
      samples.set(backend, { parallel: [], sequential: [] });
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
          const s = await upBatch(set, batch, opts, emulator);
          samples.get(set.backend)![batch].push(s);
          line.push(`${batch} ${round(s.ms / 1000, 1)} s`);
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
    durationSeconds: round((Date.now() - started) / 1000, 1),
  };
  mkdirSync(path.dirname(opts.outFile), { recursive: true });
  writeFileSync(opts.outFile, JSON.stringify(results, null, 2) + "\n");
  return results;
}

/** The name of a backend in the tables. */
const BACKEND_NAMES: Record<Backend, string> = { postgres: "PostgreSQL", file: "files" };

/** `median s (min–max)` of milliseconds, in seconds with one decimal. */
function seconds(s: Summary): string {
  const v = (ms: number) => (ms / 1000).toFixed(1);
  return s.min === s.max ? `${v(s.median)} s` : `${v(s.median)} s (${v(s.min)}–${v(s.max)})`;
}

/** `median (min–max)` of a ratio, with two decimals. */
function times(s: Summary): string {
  const v = (x: number) => x.toFixed(2);
  return s.min === s.max ? v(s.median) : `${v(s.median)} (${v(s.min)}–${v(s.max)})`;
}

/**
 * The Markdown of the results: a heading line, then one row per backend (each batch's wall time,
 * their ratio, and each batch's CPU time, `—` where not measured) and, with both backends, a row
 * of PostgreSQL / file.
 */
export function teamsMarkdown(r: TeamsResults): string {
  const k = r.stacks;
  const lines = [
    `**${k} stacks of ${r.resourcesPerStack} resources each, \`up\` from empty** (${r.runs === 1 ? "one run" : `median (min–max) of ${r.runs} runs`}; ratios taken within each run; ${r.machine.cores} cores, load average ${r.machine.loadAverageAtStart} at the start${r.quick ? "; quick mode: not figures to compare" : ""})`,
    "",
    `| backend | ${k} stacks in parallel | the same ${k} one after the other | parallel / one after the other | CPU time, in parallel | CPU time, one after the other |`,
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    ...r.backends.map(
      (b) =>
        `| ${BACKEND_NAMES[b.backend]} | ${seconds(b.parallelMs)} | ${seconds(b.sequentialMs)} | ${times(b.ratio)} | ${b.cpuMs ? seconds(b.cpuMs.parallel) : "—"} | ${b.cpuMs ? seconds(b.cpuMs.sequential) : "—"} |`,
    ),
  ];
  if (r.postgresOverFile)
    lines.push(
      `| PostgreSQL / files | ${times(r.postgresOverFile.parallel)} | ${times(r.postgresOverFile.sequential)} | | | |`,
    );
  return lines.join("\n");
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

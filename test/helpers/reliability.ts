/**
 * Helpers of the engine-driven reliability tests (faults, interrupted, fast-mode…): the
 * project's Pulumi CLI run as a child process (so that a test can kill it) against a backend
 * folder of its own, the reliability program (test/fixtures/reliability), and the checks and
 * figures that compare the stack's state with the emulator's data.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  startEmulator,
  type RequestLogEntry,
  type RunningEmulator,
  type StartEmulatorOptions,
} from "./emulator";
import { engineEnv, freshBackend } from "./pulumi";
import { TYPE_TOKENS, type ExportedStack } from "../../gitops/recovery";
import { REPO_ROOT } from "../../scripts/pulumi-env";

/** The reliability program: `reliability:destinations` destinations, `reliability:subscriptions` subscriptions. */
export const PROGRAM = path.join(__dirname, "..", "fixtures", "reliability");

/** The declared resources of the engine-driven runs: 5 destinations and 50 subscriptions. */
export const COUNTS = { destinations: 5, subscriptions: 50 };

/** True for the long variants (`RELIABILITY_LONG=1`). */
export const LONG = process.env.RELIABILITY_LONG === "1";

/** Where the tests write their figures (inside the git-ignored `.pulumi-state/`). */
export const FIGURES_DIR = path.join(REPO_ROOT, ".pulumi-state", "reliability-figures");

/** The outcome of one CLI run. */
export interface CliResult {
  /** Exit code; `null` when killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall time in ms. */
  ms: number;
}

/** One stack of the reliability program in a backend folder of its own. */
export interface TestStack {
  name: string;
  /** The backend folder (a `file://` backend), also made when the stack uses another backend. */
  backend: string;
  /** `PULUMI_BACKEND_URL` of the stack: `file://<backend>` or the URL given to {@link createStack}. */
  backendUrl: string;
  env: Record<string, string>;
  /** Starts `pulumi <args> --stack <name>` in the program folder; `onStart` gets the child. */
  run(
    args: string[],
    opts?: { onStart?: (child: ChildProcess) => void; env?: Record<string, string> },
  ): Promise<CliResult>;
  /** Like {@link run}, but throws with the output when the exit code is not 0. */
  ok(args: string[]): Promise<CliResult>;
  /** `pulumi stack export` (with `--show-secrets` when asked). */
  exportState(showSecrets?: boolean): Promise<ExportedStack>;
  /** Removes the stack's settings file and backend folder; kills any engine process left. */
  dispose(): void;
}

/**
 * Creates stack `name` of the reliability program (or of `options.program`, a program folder
 * that reads the same `destinations` and `subscriptions` config) in a fresh backend folder,
 * pointed at the emulator (secret API key), with the given counts.
 */
export async function createStack(
  name: string,
  emulator: RunningEmulator,
  counts: { destinations: number; subscriptions: number },
  options: { backendUrl?: string; config?: Record<string, string>; program?: string } = {},
): Promise<TestStack> {
  const program = options.program ?? PROGRAM;
  const backend = freshBackend(`reliability-${name}`);
  const backendUrl = options.backendUrl ?? `file://${backend}`;
  const env = engineEnv(backend, { PULUMI_BACKEND_URL: backendUrl });
  const run: TestStack["run"] = (args, opts = {}) =>
    new Promise((resolve, reject) => {
      const started = Date.now();
      const child = spawn("pulumi", [...args, "--stack", name], {
        cwd: program,
        env: { ...env, ...(opts.env ?? {}) },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
      child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      child.on("error", reject);
      child.on("close", (code, signal) =>
        resolve({ code, signal, stdout, stderr, ms: Date.now() - started }),
      );
      opts.onStart?.(child);
    });
  const ok: TestStack["ok"] = async (args) => {
    const r = await run(args);
    if (r.code !== 0) {
      throw new Error(
        `pulumi ${args.join(" ")} exited ${r.code ?? r.signal}:\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`,
      );
    }
    return r;
  };
  const stack: TestStack = {
    name,
    backend,
    backendUrl,
    env,
    run,
    ok,
    async exportState(showSecrets = false) {
      const r = await ok(["stack", "export", ...(showSecrets ? ["--show-secrets"] : [])]);
      return JSON.parse(r.stdout) as ExportedStack;
    },
    dispose() {
      killEngineProcesses(backendUrl);
      rmSync(path.join(program, `Pulumi.${name}.yaml`), { force: true });
      rmSync(backend, { recursive: true, force: true });
    },
  };
  await ok(["stack", "init"]);
  await ok(["config", "set", "service:baseUrl", emulator.url]);
  await ok(["config", "set", "--secret", "service:apiKey", emulator.apiKeys[0]]);
  await ok(["config", "set", "destinations", String(counts.destinations)]);
  await ok(["config", "set", "subscriptions", String(counts.subscriptions)]);
  for (const [key, value] of Object.entries(options.config ?? {})) await ok(["config", "set", key, value]);
  return stack;
}

/** Runs `node <script> ...args` (a compiled command line of this package) and collects its output. */
export function runNode(script: string, args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [script, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr, ms: Date.now() - started }));
  });
}

/**
 * Kills (SIGKILL, by PID) every process whose environment names this backend (a folder of a
 * `file://` backend, or a backend URL): the engine and the plugins it started (language host,
 * program, provider), which outlive a killed CLI. Returns the PIDs killed.
 */
export function killEngineProcesses(backend: string): number[] {
  const marker = `PULUMI_BACKEND_URL=${/^[a-z]+:\/\//.test(backend) ? backend : `file://${backend}`}\0`;
  const killed: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "latin1").includes(marker)) {
        process.kill(Number(entry), "SIGKILL");
        killed.push(Number(entry));
      }
    } catch {
      // gone already, or not ours to read
    }
  }
  return killed;
}

/**
 * Step 0 of the recovery on a local (file) backend: a SIGKILL that lands while the CLI writes a
 * checkpoint can leave the checkpoint's metadata file (`<stack>.json.attrs`, written in place)
 * empty, and every command on the stack then fails with `failed to load checkpoint: EOF`. The
 * checkpoint itself is written to a temporary file and renamed, so it is intact (the last step
 * that was completely saved). Deleting the empty metadata file is the whole repair. Returns the
 * files removed.
 */
export function removeEmptyCheckpointAttrs(backend: string): string[] {
  const removed: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".json.attrs") && statSync(p).size === 0) {
        rmSync(p);
        removed.push(p);
      }
    }
  };
  walk(path.join(backend, ".pulumi", "stacks"));
  return removed;
}

/**
 * IDs of the stack's subscriptions and destinations (of either door: the dynamic providers' and
 * the native plugin's type tokens), and how many pending operations it holds.
 */
export function stateIds(state: ExportedStack): {
  subscriptions: string[];
  destinations: string[];
  pending: number;
} {
  const of = (...types: string[]) =>
    (state.deployment.resources ?? []).filter((r) => types.includes(r.type) && r.id).map((r) => r.id!);
  return {
    subscriptions: of(TYPE_TOKENS.subscription, "service:index:EventSubscription").sort(),
    destinations: of(TYPE_TOKENS.destination, "service:index:EventDestination").sort(),
    pending: (state.deployment.pending_operations ?? []).length,
  };
}

/** IDs and descriptions of what the emulator holds. */
export function emulatorContents(em: RunningEmulator): {
  subscriptions: { id: string; description: string }[];
  destinations: { id: string; description: string }[];
} {
  const snap = em.store.snapshot();
  const pick = (rows: unknown[]) =>
    (rows as { id: string; description: string }[]).map(({ id, description }) => ({ id, description }));
  return { subscriptions: pick(snap.event_subscriptions), destinations: pick(snap.event_destinations) };
}

/**
 * Asserts that the emulator holds exactly the declared resources (one per declared description,
 * no duplicate, no orphan) and that they are exactly the ones in the stack's state.
 */
export function expectConverged(
  em: RunningEmulator,
  state: ExportedStack,
  counts: { destinations: number; subscriptions: number },
): void {
  const ids = stateIds(state);
  const live = emulatorContents(em);
  expect(ids.pending).toBe(0);
  const declared = (what: string, n: number) =>
    Array.from({ length: n }, (_, i) => `reliability ${what} ${i}`).sort();
  expect(live.subscriptions.map((s) => s.description).sort()).toEqual(
    declared("subscription", counts.subscriptions),
  );
  expect(live.destinations.map((d) => d.description).sort()).toEqual(
    declared("destination", counts.destinations),
  );
  expect(live.subscriptions.map((s) => s.id).sort()).toEqual(ids.subscriptions);
  expect(live.destinations.map((d) => d.id).sort()).toEqual(ids.destinations);
}

/** Figures of a run, counted from the emulator's request log. */
export interface RequestFigures {
  requests: number;
  byMethod: Record<string, number>;
  /** Injected faults by kind (`503`, `429`, `reset`, `reset-after`). */
  faults: Record<string, number>;
  /** POSTs sent, and how many more than the resources they made (retries of creates). */
  posts: number;
  postRetries: number;
  /** POSTs answered with the replay of an idempotency key. */
  replays: number;
  /** List requests (`GET /event_subscriptions`, `GET /event_destinations`): lookups of ambiguous creates. */
  lookups: number;
}

/** Counts {@link RequestFigures} over `requests`, for a run that made `created` resources. */
export function requestFigures(requests: RequestLogEntry[], created: number): RequestFigures {
  const byMethod: Record<string, number> = {};
  const faults: Record<string, number> = {};
  for (const r of requests) {
    byMethod[r.method] = (byMethod[r.method] ?? 0) + 1;
    if (r.fault) faults[r.fault] = (faults[r.fault] ?? 0) + 1;
  }
  const posts = requests.filter((r) => r.method === "POST").length;
  return {
    requests: requests.length,
    byMethod,
    faults,
    posts,
    postRetries: posts - created,
    replays: requests.filter((r) => r.idempotent_replay).length,
    lookups: requests.filter(
      (r) => r.method === "GET" && /^\/event_(subscriptions|destinations)(\?|$)/.test(r.path),
    ).length,
  };
}

/**
 * The `error:` lines of a CLI run's output, and the provider's warnings about ambiguous creates
 * (from its summary of diagnostics): how many creates it adopted after a lost answer, and how
 * many it sent again after finding nothing.
 */
export function diagnostics(r: CliResult): { errors: string[]; adopted: number; resent: number } {
  const lines = (r.stdout + "\n" + r.stderr).split("\n").map((l) => l.trim());
  // Each warning appears once in the "Diagnostics:" summary (and again in the progress lines).
  const summary = lines.slice(lines.indexOf("Diagnostics:") + 1);
  const warnings = lines.includes("Diagnostics:")
    ? summary.filter((l) =>
        /^warning: (\[runtime\] )?(event subscription|event destination|abuse report):/.test(l),
      )
    : [];
  return {
    errors: [...new Set(lines.filter((l) => /^error:/.test(l)))],
    adopted: warnings.filter((w) => w.endsWith("adopted it")).length,
    resent: warnings.filter((w) => /sending it again/.test(w)).length,
  };
}

/** Writes the output of a CLI run to `.pulumi-state/reliability-figures/<name>.log` (for a person to read). */
export function writeOutput(name: string, r: CliResult): void {
  mkdirSync(FIGURES_DIR, { recursive: true });
  writeFileSync(
    path.join(FIGURES_DIR, `${name}.log`),
    `exit ${r.code ?? r.signal}\n${r.stdout}\n--- stderr\n${r.stderr}`,
  );
}

/** Writes `figures` to `.pulumi-state/reliability-figures/<name>.json` and returns the path. */
export function writeFigures(name: string, figures: unknown): string {
  mkdirSync(FIGURES_DIR, { recursive: true });
  const file = path.join(FIGURES_DIR, `${name}.json`);
  writeFileSync(file, JSON.stringify(figures, null, 2) + "\n");
  return file;
}

/** `pulumi up` as the kill tests run it: no preview, ten steps at a time. */
export const UP = ["up", "--yes", "--skip-preview", "--non-interactive", "--parallel", "10"];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A timer of a scenario's steps: `timed(step, fn)` runs `fn` and records its wall time in
 * **seconds** under `step` in `t`, whether it succeeds or throws.
 */
export function stepTimer(): {
  t: Record<string, number>;
  timed<T>(step: string, fn: () => Promise<T>): Promise<T>;
} {
  const t: Record<string, number> = {};
  return {
    t,
    async timed<T>(step: string, fn: () => Promise<T>): Promise<T> {
      const started = Date.now();
      try {
        return await fn();
      } finally {
        t[step] = (Date.now() - started) / 1000;
      }
    },
  };
}

/**
 * Runs {@link UP} on `stack` (with `env` added) and kills the CLI with SIGKILL once the emulator
 * has answered `killAfter` creates with 201 (or after 120 s). Its plugins live on: the caller
 * kills them ({@link killEngineProcesses}).
 *
 * @returns the CLI's result and how many creates had been answered 201 at the kill.
 */
export async function killUpAfterCreates(
  stack: TestStack,
  em: RunningEmulator,
  killAfter: number,
  env?: Record<string, string>,
): Promise<{ result: CliResult; ackedAtKill: number }> {
  const created = () => em.store.requests().filter((r) => r.method === "POST" && r.status === 201).length;
  let cli: ChildProcess | undefined;
  const up = stack.run(UP, { onStart: (c) => (cli = c), ...(env ? { env } : {}) });
  const deadline = Date.now() + 120_000;
  while (created() < killAfter && Date.now() < deadline) await sleep(20);
  const ackedAtKill = created();
  cli!.kill("SIGKILL");
  return { result: await up, ackedAtKill };
}

/** The engine's fast mode: no checkpoint after each step, only the final state (Pulumi's own settings). */
export const SKIP_CHECKPOINTS_ENV = { PULUMI_EXPERIMENTAL: "true", PULUMI_SKIP_CHECKPOINTS: "true" };

/**
 * The resources a `pulumi up` with `SERVICE_ADOPT_FROM` adopted instead of creating, from the
 * provider's warnings in its "Diagnostics:" summary (each appears once there): their IDs.
 */
export function recoveryAdoptions(r: CliResult): string[] {
  const lines = (r.stdout + "\n" + r.stderr).split("\n").map((l) => l.trim());
  if (!lines.includes("Diagnostics:")) return [];
  return lines
    .slice(lines.indexOf("Diagnostics:") + 1)
    .map(
      (l) =>
        /^warning: (?:\[runtime\] )?event (?:subscription|destination): (\S+) has exactly these values,.*adopted it instead of creating one$/.exec(
          l,
        )?.[1],
    )
    .filter((id): id is string => id !== undefined);
}

/** The compiled `service-recover` command line (gitops/recover-cli.ts). */
export const RECOVER_CLI = path.join(REPO_ROOT, "dist", "gitops", "recover-cli.js");

/** A scenario's emulator, its stack of the reliability program, and the timer of its steps. */
export interface ReliabilityRun {
  em: RunningEmulator;
  stack: TestStack;
  /** The steps' wall times in seconds (see {@link stepTimer}). */
  t: Record<string, number>;
  timed<T>(step: string, fn: () => Promise<T>): Promise<T>;
}

/**
 * Runs the scenario `fn` on a fresh emulator (started with `emulatorOptions`) and stack `name`
 * of the reliability program on it with `counts` ({@link createStack}), with a fresh
 * {@link stepTimer}; then, whatever happened, disposes of the stack and closes the emulator.
 */
export async function withReliabilityStack<T>(
  name: string,
  emulatorOptions: StartEmulatorOptions,
  counts: { destinations: number; subscriptions: number },
  fn: (run: ReliabilityRun) => Promise<T>,
): Promise<T> {
  let em: RunningEmulator | undefined;
  let stack: TestStack | undefined;
  try {
    em = await startEmulator(emulatorOptions);
    stack = await createStack(name, em, counts);
    return await fn({ em, stack, ...stepTimer() });
  } finally {
    stack?.dispose();
    await em?.close();
  }
}

/**
 * The kill of the kill tests: {@link killUpAfterCreates} (timed as "up until killed", its output
 * written as `<name>-killed-up`, asserted killed by SIGKILL); then, `graceMs` later, the plugins
 * the CLI left ({@link killEngineProcesses}); then half a second, for the requests the service had
 * already received to finish.
 *
 * @returns what {@link killUpAfterCreates} returns, and the PIDs of the plugins killed.
 */
export async function killUpThenPlugins(
  { em, stack, timed }: ReliabilityRun,
  name: string,
  opts: { killAfter: number; graceMs: number; env?: Record<string, string> },
): Promise<{ result: CliResult; ackedAtKill: number; leftovers: number[] }> {
  const killed = await timed("up until killed", () =>
    killUpAfterCreates(stack, em, opts.killAfter, opts.env),
  );
  writeOutput(`${name}-killed-up`, killed.result);
  expect(killed.result.signal).toBe("SIGKILL");
  if (opts.graceMs > 0) await sleep(opts.graceMs);
  const leftovers = killEngineProcesses(stack.backend);
  await sleep(500);
  return { ...killed, leftovers };
}

/**
 * Steps 1 and 2 of the recovery (docs/reliability.md): `pulumi cancel` (the killed run left its
 * lock; asserted to cancel it), then `pulumi stack export --show-secrets` into the backend folder
 * and `service-recover <exported> <fixed> ...args` against the emulator (timed as
 * "service-recover", its output written as `<name>-service-recover`, asserted to exit 0).
 * `importFixed()` then runs `pulumi stack import` of the fixed state (timed as "stack import")
 * and removes both files.
 */
export async function cancelAndRecover(
  { em, stack, timed }: ReliabilityRun,
  name: string,
  args: string[] = [],
): Promise<{ recover: CliResult; fixed: string; importFixed(): Promise<void> }> {
  const cancel = await timed("cancel", () => stack.run(["cancel", "--yes"]));
  expect(`${cancel.stdout}${cancel.stderr}`).toMatch(/canceled|cancelled/i);
  const exported = path.join(stack.backend, "exported.json");
  const fixed = path.join(stack.backend, "fixed.json");
  await stack.ok(["stack", "export", "--show-secrets", "--file", exported]);
  const recover = await timed("service-recover", () =>
    runNode(RECOVER_CLI, [exported, fixed, ...args], {
      ...process.env,
      SERVICE_API_KEY: em.apiKeys[0],
      SERVICE_BASE_URL: em.url,
    } as Record<string, string>),
  );
  writeOutput(`${name}-service-recover`, recover);
  expect(recover.code).toBe(0);
  return {
    recover,
    fixed,
    async importFixed() {
      await timed("stack import", () => stack.ok(["stack", "import", "--file", fixed]));
      rmSync(exported, { force: true });
      rmSync(fixed, { force: true });
    },
  };
}

/**
 * The last `up` of a recovery: `up()` (a CLI run of the stack), timed as `step`, its output
 * written as `<name>-up`.
 *
 * @returns its result, and how many creates the service answered 201 during it (counted from
 *   the request log).
 */
export async function finalUp(
  { em, timed }: ReliabilityRun,
  name: string,
  step: string,
  up: () => Promise<CliResult>,
): Promise<{ up: CliResult; createdByFinalUp: number }> {
  const before = em.store.requests().at(-1)?.seq ?? 0;
  const result = await timed(step, up);
  writeOutput(`${name}-up`, result);
  const createdByFinalUp = em.store
    .requests(before)
    .filter((r) => r.method === "POST" && r.status === 201).length;
  return { up: result, createdByFinalUp };
}

/**
 * Writes the figures of a test's runs, `{ variant, counts, runs }` (`variant`: `long` under
 * `RELIABILITY_LONG=1`, else `short`), to `.pulumi-state/reliability-figures/<name>.json`; returns the path.
 */
export function writeRunFigures(
  name: string,
  counts: { destinations: number; subscriptions: number },
  runs: unknown[],
): string {
  return writeFigures(name, { variant: LONG ? "long" : "short", counts, runs });
}

/**
 * What the benchmarks (bench/deploy.ts, bench/scale.ts, bench/state.ts, bench/requests.ts, …) do
 * around a stack: the programs measured ({@link Variant}) and the operations of a stack's
 * lifecycle ({@link SCALE_OPS}), an emulator in this process that counts the requests it answers,
 * the peak memory of the engine's Node.js processes, the stack's config, its exported state, the
 * measured operations of a new stack, each checked against the engine's count
 * ({@link measureLifecycle}), and service-drift's report on a stack ({@link serviceDrift}).
 *
 * @packageDocumentation
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { startEmulator, type EmulatorApp } from "service-emulator";
import { runDriftReport } from "../gitops/drift";
import { fixture, REPO_ROOT, type Engine } from "./engine";
import type { OperationRequests } from "./latency-results";

/**
 * The programs: the engine's floor, this package's dynamic providers (`real`, the dynamic door)
 * and its native plugin (`native`, the native door).
 */
export type Variant = "floor" | "real" | "native";

/** Every variant, in the order of a run's first deployments. */
export const VARIANTS: readonly Variant[] = ["floor", "real", "native"];

/**
 * The operations of a stack's lifecycle ({@link measureLifecycle}), in the order the benchmark at
 * scale (bench/scale.ts) and the deploy benchmark (bench/deploy.ts) run them.
 */
export const SCALE_OPS = ["up", "upNoChange", "preview", "refresh", "destroy"] as const;
/** One of {@link SCALE_OPS}: `upNoChange` is a second `up` of the same program. */
export type ScaleOp = (typeof SCALE_OPS)[number];

/** The program of a variant (bench/fixtures/<name>). */
export function variantFixture(variant: Variant): string {
  return fixture(variant === "real" ? "deploy" : variant);
}

/** A resource of an exported state, as far as the benchmarks read it. */
export interface ExportedResource {
  urn: string;
  type: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

/** The resources of the stack's exported state (the Stack resource included). */
export async function exportedResources(stack: Stack): Promise<ExportedResource[]> {
  return ((await stack.exportStack()).deployment.resources ?? []) as ExportedResource[];
}

/** Bytes of `value` as UTF-8: a string as it is, anything else as compact JSON. */
export function bytes(value: unknown): number {
  return Buffer.byteLength(typeof value === "string" ? value : JSON.stringify(value ?? null));
}

/**
 * Bytes of the stack's exported state per resource, the Stack resource left out of the count
 * (its bytes are in the total): compact JSON of the resources, divided by their number minus one.
 */
export async function stateBytesPerResource(stack: Stack): Promise<number> {
  const resources = await exportedResources(stack);
  return bytes(resources) / (resources.length - 1);
}

/**
 * Runs `fn` on a new stack `name` of the variant's program ({@link variantFixture}), then removes
 * the stack, even after a throw.
 * @throws whatever creating the stack or `fn` throws.
 */
export async function onNewStack<T>(
  engine: Engine,
  variant: Variant,
  name: string,
  fn: (stack: Stack) => Promise<T>,
): Promise<T> {
  const stack = await engine.newStack(variantFixture(variant), name);
  try {
    return await fn(stack);
  } finally {
    await engine.removeStack(stack);
  }
}

/**
 * Requests the emulator answered and the milliseconds it spent on them, so far; and the same
 * requests by method and route pattern (`routes`, e.g. `{ "GET /event_subscriptions/{id}": 12 }`;
 * a request that matched no route counts under `<METHOD> (no route)`).
 */
export interface EmulatorMeter {
  requests: number;
  ms: number;
  routes: Record<string, number>;
}

/**
 * The key of a request in {@link EmulatorMeter.routes}: its method and its route's pattern with
 * Fastify's `:param` written `{param}` (`GET /event_subscriptions/{id}`), or `<METHOD> (no route)`
 * when `url` (the matched route's pattern) is undefined.
 */
export function routeKey(method: string, url: string | undefined): string {
  return `${method} ${url === undefined ? "(no route)" : url.replace(/:(\w+)/g, "{$1}")}`;
}

/** Counts the emulator's answers; {@link RequestMeter.since} gives those after a snapshot. */
export class RequestMeter {
  #all: OperationRequests = { requests: 0, ok: 0, limited: 0, other: 0, routes: {} };

  /**
   * Counts every answer of the emulator it is given to (`startEmulator`'s `onApp`), by status
   * class and route ({@link routeKey}).
   */
  readonly onApp = (app: EmulatorApp): void => {
    app.addHook("onResponse", async (request, reply) => {
      this.count(reply.statusCode, routeKey(request.method, request.routeOptions.url));
    });
  };

  /** Counts one answer. */
  count(status: number, key: string): void {
    const m = this.#all;
    m.requests += 1;
    if (status >= 200 && status < 300) m.ok += 1;
    else if (status === 429) m.limited += 1;
    else m.other += 1;
    m.routes[key] = (m.routes[key] ?? 0) + 1;
  }

  /** A copy of the counts so far. */
  snapshot(): OperationRequests {
    return { ...this.#all, routes: { ...this.#all.routes } };
  }

  /** The counts since `before` (a {@link RequestMeter.snapshot}). */
  since(before: OperationRequests): OperationRequests {
    const now = this.#all;
    const routes: Record<string, number> = {};
    for (const [k, v] of Object.entries(now.routes)) {
      const d = v - (before.routes[k] ?? 0);
      if (d > 0) routes[k] = d;
    }
    return {
      requests: now.requests - before.requests,
      ok: now.ok - before.ok,
      limited: now.limited - before.limited,
      other: now.other - before.other,
      routes,
    };
  }
}

/** An emulator in this process for the deployments (the runner's event loop is idle meanwhile). */
export async function withEmulator<T>(
  fn: (e: { url: string; apiKey: string; meter: EmulatorMeter }) => Promise<T>,
): Promise<T> {
  const meter: EmulatorMeter = { requests: 0, ms: 0, routes: {} };
  const emulator = await startEmulator({
    onApp: (app) => {
      app.addHook("onResponse", async (request, reply) => {
        meter.requests += 1;
        meter.ms += reply.elapsedTime;
        const key = routeKey(request.method, request.routeOptions.url);
        meter.routes[key] = (meter.routes[key] ?? 0) + 1;
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
 * Runs `fn` (an operation of the stack's engine) with every Node.js process it starts writing its
 * peak resident memory and CPU time at exit; returns the largest peak of each role (`provider`,
 * `program`), in bytes, and the CPU milliseconds of each role summed over its processes (null
 * where no process of the role wrote one).
 */
export async function withPeakRss<T>(
  stack: Stack,
  fn: () => Promise<T>,
): Promise<{
  result: T;
  provider: number | null;
  program: number | null;
  cpuMs: { provider: number | null; program: number | null };
}> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-rss-"));
  const env = stack.workspace.envVars;
  const before = env.NODE_OPTIONS;
  env.NODE_OPTIONS = `${before ? `${before} ` : ""}--require ${PEAK_RSS_HOOK}`;
  env.BENCH_RSS_DIR = dir;
  try {
    const result = await fn();
    const peaks = { provider: null as number | null, program: null as number | null };
    const cpuMs = { provider: null as number | null, program: null as number | null };
    for (const f of readdirSync(dir)) {
      const {
        role,
        peakRssBytes,
        cpuMs: cpu,
      } = JSON.parse(readFileSync(path.join(dir, f), "utf8")) as {
        role: string;
        peakRssBytes: number;
        cpuMs: number;
      };
      if (role === "provider" || role === "program") {
        peaks[role] = Math.max(peaks[role] ?? 0, peakRssBytes);
        cpuMs[role] = (cpuMs[role] ?? 0) + cpu;
      }
    }
    return { result, ...peaks, cpuMs };
  } finally {
    if (before === undefined) delete env.NODE_OPTIONS;
    else env.NODE_OPTIONS = before;
    delete env.BENCH_RSS_DIR;
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Sets the stack's config for a deployment of `n` subscriptions; both doors also get the
 * emulator's URL and its API key (a secret), which the native door's default provider reads
 * from the same `service:*` keys.
 */
export async function configure(
  stack: Stack,
  variant: Variant,
  n: number,
  emu: { url: string; apiKey: string },
) {
  await stack.setConfig("count", { value: String(n) });
  if (variant !== "floor") {
    await stack.setConfig("service:baseUrl", { value: emu.url });
    await stack.setConfig("service:apiKey", { value: emu.apiKey, secret: true });
  }
}

/** @throws Error when the engine reported `got` resources for `what` instead of `want`. */
export function expectCount(what: string, got: number | undefined, want: number): void {
  if (got !== want) throw new Error(`${what}: expected ${want} resources, the engine reported ${got}`);
}

/**
 * Runs `service-drift`'s report (gitops/drift.ts `runDriftReport`: a preview-only refresh that
 * runs the program, then a preview) on the stack, with the stack's folder, environment and CLI.
 * @throws Error `<what> service-drift: expected no drift over <n + 1> resources, …` when the
 *   report finds drift or checks other than the N + 1 resources; a DriftError when it fails.
 */
export async function serviceDrift(stack: Stack, n: number, what: string): Promise<void> {
  const ws = stack.workspace;
  const report = await runDriftReport({
    stack: stack.name,
    cwd: ws.workDir,
    env: ws.envVars,
    pulumiCommand: ws.pulumiCommand,
  });
  if (report.drift || report.checkedResources !== n + 1)
    throw new Error(
      `${what} service-drift: expected no drift over ${n + 1} resources, got drift ${report.drift} over ${report.checkedResources}`,
    );
}

/**
 * The engine's count after each operation that must equal all of a stack's resources: created by
 * `up` from empty, unchanged by a second `up` (`upNoChange`), by `preview` (run expecting no
 * changes) and by `refresh`, deleted by `destroy`.
 */
const COUNTED: Record<ScaleOp, (stack: Stack) => Promise<number | undefined>> = {
  up: async (stack) => (await stack.up()).summary.resourceChanges?.create,
  upNoChange: async (stack) => (await stack.up()).summary.resourceChanges?.same,
  preview: async (stack) => (await stack.preview({ expectNoChanges: true })).changeSummary.same,
  refresh: async (stack) => (await stack.refresh()).summary.resourceChanges?.same,
  destroy: async (stack) => (await stack.destroy()).summary.resourceChanges?.delete,
};

/** What {@link measureLifecycle} runs: a new stack of a variant's program, and its operations. */
export interface Lifecycle<M> {
  variant: Variant;
  /** Subscriptions: the stack holds `n + 2` resources (with the destination and the Stack). */
  n: number;
  /** The stack's name. */
  name: string;
  /** Added to the engine's environment of the stack (e.g. fast mode's settings). */
  env?: Readonly<Record<string, string>>;
  /** The operations, in order; the first is an `up` from empty. */
  ops: readonly ScaleOp[];
  /** Names operation `op` in the error of a wrong count. */
  label: (op: ScaleOp) => string;
  /**
   * Measures operation `op`: calls `run` once (it runs the operation and throws unless the engine
   * counted all `n + 2` resources) and returns the figures of that call.
   */
  measure: (op: ScaleOp, stack: Stack, run: () => Promise<void>) => Promise<M>;
}

/**
 * On a new stack `name` of the variant's program ({@link onNewStack}), configured for `n`
 * subscriptions on the emulator `emu` ({@link configure}), runs each operation of `ops` in order
 * through `measure`, and reads the exported state's bytes per resource
 * ({@link stateBytesPerResource}) right after the first. Returns each operation's figures.
 *
 * @throws Error `<label(op)>: expected <n + 2> resources, the engine reported <count>` when an
 *   operation counts other than every resource; whatever creating the stack or an operation throws.
 */
export async function measureLifecycle<M>(
  engine: Engine,
  emu: { url: string; apiKey: string },
  lifecycle: Lifecycle<M>,
): Promise<{ figures: Record<ScaleOp, M>; stateBytesPerResource: number }> {
  const { variant, n, name, env, ops, label, measure } = lifecycle;
  return onNewStack(engine, variant, name, async (stack) => {
    if (env) Object.assign(stack.workspace.envVars, env);
    await configure(stack, variant, n, emu);
    const figures = {} as Record<ScaleOp, M>;
    let stateBytes = NaN;
    for (const [i, op] of ops.entries()) {
      figures[op] = await measure(op, stack, async () =>
        expectCount(label(op), await COUNTED[op](stack), n + 2),
      );
      if (i === 0) stateBytes = await stateBytesPerResource(stack);
    }
    return { figures, stateBytesPerResource: stateBytes };
  });
}

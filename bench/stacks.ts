/**
 * What the deploy, scale and state benchmarks (bench/deploy.ts, bench/scale.ts, bench/state.ts) do
 * around a stack: an emulator in this process that counts the requests it answers, the peak memory of the engine's
 * Node.js processes, the stack's config, and its exported state.
 *
 * @packageDocumentation
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { startEmulator } from "service-emulator";
import { fixture, REPO_ROOT, type Engine } from "./engine";

/**
 * The programs: the engine's floor, this package's dynamic providers (`real`, the dynamic door)
 * and its native plugin (`native`, the native door).
 */
export type Variant = "floor" | "real" | "native";

/** Every variant, in the order of a run's first deployments. */
export const VARIANTS: readonly Variant[] = ["floor", "real", "native"];

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

/** Requests the emulator answered and the milliseconds it spent on them, so far. */
export interface EmulatorMeter {
  requests: number;
  ms: number;
}

/** An emulator in this process for the deployments (the runner's event loop is idle meanwhile). */
export async function withEmulator<T>(
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

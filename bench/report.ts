/**
 * The results document of `npm run bench` (bench/results/latest.json): the machine, the
 * versions, the figures of the four benchmarks, and each goal as met or missed (bench/goals.ts);
 * its rendering as Markdown tables is bench/markdown.ts.
 *
 * @packageDocumentation
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ClientResults } from "./client";
import type { DeployResults } from "./deploy";
import type { EmulatorResults } from "./emulator";
import type { Goal } from "./goals";
import type { StartupResults } from "./startup";
import type { StateResults } from "./state";
import { REPO_ROOT } from "./engine";
import { round } from "./stats";

/** The machine the figures were taken on. */
export interface MachineInfo {
  /** CPU model as the OS reports it. */
  cpuModel: string;
  /** Logical CPUs. */
  cores: number;
  /** Total memory, GiB. */
  memoryGiB: number;
  /** OS type, release and architecture. */
  os: string;
  /** 1-minute load average when the run started (other work on a shared machine shows here). */
  loadAverageAtStart: number;
}

/** Versions of what was measured. */
export interface Versions {
  /** Node.js (`process.version`). */
  node: string;
  /** The Pulumi CLI that ran the deployments (`pulumi version`). */
  pulumi: string;
  /** This package (`pulumi-service`). */
  package: string;
  /** The `@pulumi/pulumi` SDK. */
  pulumiSdk: string;
}

/**
 * The {@link Versions} of what a bench measures: Node.js, the engine `pulumiVersion` (`pulumi
 * version`), this package and `@pulumi/pulumi`, read from their package.json files.
 */
export function benchVersions(pulumiVersion: string): Versions {
  const pkg = (file: string) => (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
  return {
    node: process.version,
    pulumi: pulumiVersion,
    package: pkg(path.join(REPO_ROOT, "package.json")),
    pulumiSdk: pkg(require.resolve("@pulumi/pulumi/package.json", { paths: [REPO_ROOT] })),
  };
}

/** The whole document written to bench/results/latest.json. */
export interface BenchResults {
  /** Version of this document's shape. */
  schemaVersion: 1;
  /** ISO 8601 time the run started. */
  date: string;
  /** `BENCH_QUICK=1`: N=5 only, one run, short loads. */
  quick: boolean;
  /** Runs of each figure. */
  runs: number;
  /** `BENCH_FAST=1`: the deployments ran in the engine's fast mode (no checkpoints); absent in older documents. */
  fastMode?: boolean;
  /** Where the figures were taken. */
  machine: MachineInfo;
  /** What was measured. */
  versions: Versions;
  /** Benchmark 1. */
  deploy: DeployResults;
  /** Benchmark 1's fixed cost, by part (bench/startup.ts). */
  startup: StartupResults;
  /** Benchmark 2. */
  state: StateResults;
  /** Benchmark 3. */
  client: ClientResults;
  /** Benchmark 4. */
  emulator: EmulatorResults;
  /** Every performance goal, met or missed. */
  goals: Goal[];
  /** Wall time of the whole run, seconds. */
  durationSeconds: number;
}

/**
 * The document of the deploy benchmark alone (`BENCH_ONLY=deploy npm run bench`): the header
 * fields and the deploy figures of {@link BenchResults}, and the goals judged on them.
 */
export interface DeployOnlyResults extends Pick<
  BenchResults,
  | "schemaVersion"
  | "date"
  | "quick"
  | "runs"
  | "machine"
  | "versions"
  | "deploy"
  | "goals"
  | "durationSeconds"
> {
  /** Which benchmarks the document holds: the deploy benchmark alone. */
  kind: "deploy";
  /** `BENCH_FAST=1`: the deployments ran in the engine's fast mode (no checkpoints). */
  fastMode: boolean;
}

/** The machine this process runs on. */
export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? "unknown",
    cores: cpus.length,
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverageAtStart: round(os.loadavg()[0], 2),
  };
}

/**
 * Draws the charts of a results document (any kind: the whole bench, the deploy bench alone,
 * scale, requests, latency) next to it as `<stem>-<chart>.svg` with bench/charts.mjs, an ES
 * module run in its own process; returns the files written.
 * @throws Error with the script's output when it fails.
 */
export function writeCharts(resultsFile: string): string[] {
  const script = path.join(REPO_ROOT, "bench", "charts.mjs");
  const r = spawnSync(process.execPath, [script, resultsFile], { encoding: "utf8", timeout: 120_000 });
  if (r.status !== 0) throw new Error(`bench/charts.mjs failed (${r.status}): ${r.stderr}`);
  return r.stdout.trim().split("\n");
}

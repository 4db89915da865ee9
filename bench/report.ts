/**
 * What every results document of the benchmarks says of its run besides its figures: the
 * machine ({@link machineInfo}) and the versions ({@link benchVersions}) it was measured on; and
 * its charts, drawn beside it ({@link writeCharts}, bench/charts.mjs).
 *
 * @packageDocumentation
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
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

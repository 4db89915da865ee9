/**
 * The results document of `npm run bench` (bench/results/latest.json): the machine, the
 * versions, the figures of the four benchmarks, and each goal as met or missed (bench/goals.ts);
 * its rendering as Markdown tables is bench/markdown.ts. Also the document of the deploy
 * benchmark alone (`BENCH_ONLY=deploy`).
 *
 * @packageDocumentation
 */
import type { ClientResults } from "./client";
import type { DeployResults } from "./deploy-results";
import type { EmulatorResults } from "./emulator";
import type { Goal } from "./goals";
import type { MachineInfo, Versions } from "./report";
import type { StartupResults } from "./startup";
import type { StateResults } from "./state";

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

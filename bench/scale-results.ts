/**
 * What the benchmark at scale (bench/scale.ts) measures and writes: its backends, modes and the
 * processes CPU time is split into, one cell of figures and the results document, which
 * bench/scale-goals.ts judges. Its operations are `SCALE_OPS` of bench/stacks.ts.
 *
 * @packageDocumentation
 */
import type { Goal } from "./goals";
import type { MachineInfo } from "./report";
import type { ScaleOp, Variant } from "./stacks";
import type { Summary } from "./stats";

/** Where the engine keeps the state: a local folder, or a PostgreSQL database. */
export type Backend = "file" | "postgres";
/** Every backend, in the order measured. */
export const BACKENDS: readonly Backend[] = ["file", "postgres"];

/** The engine's default (`checkpoints`: the state after every step) or skipped checkpoints. */
export type Mode = "checkpoints" | "fast";
/** Every mode, in the order measured. */
export const MODES: readonly Mode[] = ["checkpoints", "fast"];

/** The processes an operation's CPU time is split into (see {@link ScaleCell.cpuByPart}). */
export const PARTS = ["engine", "program", "provider", "emulator"] as const;
/** One of {@link PARTS}. */
export type Part = (typeof PARTS)[number];

/** The figures of one program, in one mode, on one backend, at one N. */
export interface ScaleCell {
  backend: Backend;
  mode: Mode;
  variant: Variant;
  n: number;
  /** Wall time of each operation, in milliseconds. */
  ms: Record<ScaleOp, Summary>;
  /**
   * CPU time of each operation (the CLI and everything it ran, and the in-process emulator), in
   * milliseconds; null where /proc is missing.
   */
  cpuMs: Record<ScaleOp, Summary> | null;
  /**
   * That CPU time by process, in milliseconds (medians): `engine` (the Pulumi CLI and its
   * language host), `program` (the Node.js program), `provider` (the dynamic-provider process or
   * the native plugin) and `emulator` (this process: the in-process emulator, and the Automation
   * API reading the engine's events); null where /proc is missing.
   */
  cpuByPart: Record<ScaleOp, Record<Part, number>> | null;
  /** Bytes of the exported state (compact JSON) after `up`, divided by its resources minus the Stack. */
  stateBytesPerResource: Summary;
}

/** The results document of `npm run bench:scale`. */
export interface ScaleResults {
  schemaVersion: 1;
  kind: "scale";
  /** ISO 8601 time the run started. */
  date: string;
  quick: boolean;
  runs: number;
  machine: MachineInfo;
  versions: { node: string; pulumi: string; package: string; pulumiSdk: string };
  counts: number[];
  checkpointMax: number;
  backends: Backend[];
  cells: ScaleCell[];
  goals: Goal[];
  durationSeconds: number;
}

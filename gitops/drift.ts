/**
 * The drift report of `service-drift`, built on Pulumi's Automation API.
 *
 * How drift is computed:
 *
 * 1. `pulumi refresh --preview-only --run-program` (`Stack.previewRefresh`): the engine reads
 *    every resource of the stack from the service (the providers' `read`) and compares it with
 *    the last deployment, **without writing anything to the state**. The program runs so that
 *    the providers use the stack's current configuration (`service:apiKey`, `service:baseUrl`)
 *    rather than the one saved at the last deployment. For each resource the engine emits
 *    a `resOutputsEvent` whose `op` is the refresh's result: `same`, `update` (the provider's
 *    `diff` between the live values and the last deployed inputs finds a change — the same
 *    comparison `pulumi up` would make, so e.g. a reordered list is not a change) or `delete`
 *    (the resource no longer exists). `old.outputs` is the last deployment, `new.outputs` the
 *    live value.
 * 2. Drift = every custom resource (provider resources excluded) whose result is `update`
 *    (reported as `changed`, with each top-level output property whose value differs: before
 *    = last deployment, after = live; lists compared in any order) or `delete` (reported as
 *    `deleted`). Output-only changes the provider does not count as a change (e.g. an abuse
 *    report's review status) are not drift.
 * 3. Pending changes = a normal `pulumi preview` of the program against the state: what the
 *    next `pulumi up` would do because the **program** changed. It never includes drift
 *    (preview does not refresh), and drift never includes it.
 *
 * Reads: before the refresh, the report reads the stack's state (`pulumi stack export`) and
 * announces to the providers how many event subscriptions and destinations the refresh will
 * read ({@link expectedReads}, in `SERVICE_EXPECTED_READS` of listReads.ts), so each kind is read
 * from the service's list endpoint, page by page from the first read, instead of one `GET` per
 * resource; a resource the listing does not hold is re-checked with its own `GET` before it is
 * reported deleted. The report is the same as with single reads.
 *
 * Secrets: the engine's events carry secret values masked (`[secret]`), so this module never
 * sees them. A secret property that changed is reported as `[secret]` → `[secret]` when the
 * provider saw a change that no visible property explains (e.g. a destination's `target`,
 * which is secret as a whole).
 *
 * @packageDocumentation
 */
import * as fs from "fs";
import * as path from "path";
import {
  LocalWorkspace,
  PulumiCommand,
  type EngineEvent,
  type OpMap,
  type Stack,
} from "@pulumi/pulumi/automation";
import {
  analyzePreviewEvents,
  analyzeRefreshEvents,
  nameOf,
  type DriftedResource,
  type PendingChange,
} from "./events";
import { RESOURCES } from "service-contract";
import { EXPECTED_READS_ENV } from "../provider/impl/reads/listReads";
import { EXIT_CODES, redact } from "./io";

export * from "./events";
export { redact } from "./io";

/** The whole report, as `service-drift --json` prints it. */
export interface DriftReport {
  /** The stack checked, e.g. `dev`. */
  stack: string;
  /** Absolute path of the Pulumi project folder. */
  workDir: string;
  /** True when at least one resource drifted (then `exitCode` is 2). */
  drift: boolean;
  /** Number of resources of the service compared with the service (custom resources, providers excluded). */
  checkedResources: number;
  /** Resources that drifted, in the engine's order. */
  resources: DriftedResource[];
  /** Program changes not yet deployed (a `pulumi preview`), kept apart from drift. */
  pendingChanges: {
    /** True when `pulumi up` would change something. */
    present: boolean;
    /** The preview's counts per operation, e.g. `{ same: 5, update: 1 }`. */
    summary: OpMap;
    /** The resources concerned (unchanged ones left out). */
    resources: PendingChange[];
  };
  /**
   * 0 (no drift; program changes not yet deployed do not count) or 2 (drift), like `terraform
   * plan -detailed-exitcode`: `EXIT_CODES.ok` or `EXIT_CODES.attention` of gitops/io.ts.
   */
  exitCode: 0 | 2;
}

/**
 * The steps of a drift report, in the order {@link DriftOptions.onProgress} announces them:
 * `select` (finding the Pulumi CLI, selecting the stack), `refresh` (the preview-only refresh that
 * reads every resource from the service, usually the longest), `preview` (the preview of the
 * program), `done` (the report is complete).
 */
export type DriftPhase = "select" | "refresh" | "preview" | "done";

/** Options of {@link runDriftReport}. */
export interface DriftOptions {
  /** Stack name (as `pulumi stack ls` shows it), e.g. `dev`. */
  stack: string;
  /** The Pulumi project folder (holding `Pulumi.yaml`). Default: the current directory. */
  cwd?: string;
  /** Environment of the Pulumi CLI. Default: this process's environment. */
  env?: Record<string, string>;
  /** The Pulumi CLI to use. Default: see {@link findPulumiCommand}. */
  pulumiCommand?: PulumiCommand;
  /**
   * Called as each step starts, and once more (`done`) when the report is complete; not called
   * for the steps after a failure. For progress lines: the report itself never prints.
   */
  onProgress?: (phase: DriftPhase) => void;
}

/**
 * An error of the drift report: its message is meant for users and holds no secret (secret
 * config values and `SERVICE_API_KEY` are removed, see {@link redact}).
 */
export class DriftError extends Error {
  override name = "DriftError";
}

/** Removes Pulumi's color directives (`<{%reset%}>`) and ANSI escapes from a message. */
function plain(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/<\{%[^%]*%\}>/g, "").replace(/\u001b\[[0-9;]*m/g, "");
}

/**
 * The Pulumi CLI to drive: the one this package's toolchain finds (`scripts/pulumi-env.js`: a
 * compatible `pulumi` on `PATH`, else the project's cache), else `pulumi` from `PATH`.
 *
 * @returns the command, and folders to put first on `PATH` (the language host and the
 *   dynamic-provider shim live next to the CLI).
 * @throws DriftError when no Pulumi CLI can be run.
 */
export async function findPulumiCommand(): Promise<{ command: PulumiCommand; pathDirs: string[] }> {
  const envModule = findToolchainModule();
  if (envModule) {
    const found = envModule.findPulumi() as { dirs: string[] } | null;
    if (found) {
      return {
        command: await PulumiCommand.get({ root: path.dirname(found.dirs[0]) }),
        pathDirs: found.dirs,
      };
    }
  }
  try {
    return { command: await PulumiCommand.get(), pathDirs: [] };
  } catch {
    throw new DriftError(
      "No Pulumi CLI found: install Pulumi v3.248 or newer and put `pulumi` on PATH (or run `node scripts/ensure-pulumi.js` in this package).",
    );
  }
}

/** `scripts/pulumi-env.js` of this package, found from this file's folder (source or `dist/`). */
function findToolchainModule(): { findPulumi: () => unknown } | undefined {
  for (let dir = __dirname, i = 0; i < 4; i += 1, dir = path.dirname(dir)) {
    const candidate = path.join(dir, "scripts", "pulumi-env.js");
    if (fs.existsSync(candidate) && fs.existsSync(path.join(dir, "package.json"))) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      return require(candidate) as { findPulumi: () => unknown };
    }
  }
  return undefined;
}

/** Secret values to keep out of every message: secret stack config values and `SERVICE_API_KEY`. */
async function secretsOf(
  stack: Stack | undefined,
  env: Record<string, string | undefined>,
): Promise<string[]> {
  const secrets = [env.SERVICE_API_KEY, process.env.SERVICE_API_KEY].filter((s): s is string => !!s);
  if (stack) {
    try {
      const config = await stack.getAllConfig();
      for (const v of Object.values(config)) if (v.secret && v.value) secrets.push(v.value);
    } catch {
      // No readable config: nothing more to hide.
    }
  }
  return secrets;
}

/** Error diagnostics of an operation, one line each, prefixed with the resource name. */
function errorDiagnostics(events: readonly EngineEvent[]): string[] {
  const lines: string[] = [];
  for (const e of events) {
    const d = e.diagnosticEvent;
    if (!d || d.severity !== "error") continue;
    const msg = plain(d.message).trim();
    if (!msg) continue;
    lines.push(d.urn ? `${nameOf(d.urn)}: ${msg}` : msg);
  }
  return [...new Set(lines)];
}

/** The useful part of an Automation API error: its stderr, else its message. */
function commandErrorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const m = /stderr:\s*([\s\S]*?)(?:\n\s*err\?:|$)/.exec(text);
  const body = (m ? m[1] : text).trim();
  return plain(body)
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== "")
    .slice(0, 20)
    .join("\n");
}

/**
 * Runs the drift report of a stack: a preview-only refresh, then a preview of the program.
 * Nothing in the state changes, and nothing is written to the service (the providers only
 * read).
 *
 * @returns the report; its `exitCode` is 0 (no drift) or 2 (drift).
 * @throws DriftError with a message naming the stack and the step that failed (no stack,
 *   project not found, authentication error of the service, program error…), holding no
 *   secret.
 */
export async function runDriftReport(opts: DriftOptions): Promise<DriftReport> {
  const workDir = path.resolve(opts.cwd ?? process.cwd());
  const baseEnv = opts.env ?? (process.env as Record<string, string>);
  const progress = opts.onProgress ?? (() => undefined);
  progress("select");
  if (!fs.existsSync(path.join(workDir, "Pulumi.yaml")) && !fs.existsSync(path.join(workDir, "Pulumi.yml"))) {
    throw new DriftError(`No Pulumi project in ${workDir} (no Pulumi.yaml): pass --cwd <project folder>.`);
  }
  let command = opts.pulumiCommand;
  let envVars: Record<string, string> = {};
  if (!command) {
    const found = await findPulumiCommand();
    command = found.command;
    if (found.pathDirs.length > 0) {
      envVars = { PATH: [...found.pathDirs, baseEnv.PATH ?? ""].join(path.delimiter) };
    }
  }
  if (opts.env) envVars = { ...opts.env, ...envVars };
  envVars.PULUMI_SKIP_UPDATE_CHECK = "1";

  let stack: Stack | undefined;
  const fail = async (step: string, err: unknown, events: readonly EngineEvent[]): Promise<never> => {
    const diags = errorDiagnostics(events);
    let detail = diags.length > 0 ? diags.join("\n") : commandErrorText(err);
    if (/\b401\b/.test(detail)) {
      detail +=
        "\nThe service refused the API key: set a valid one with `pulumi config set --secret service:apiKey <key>`" +
        " (or SERVICE_API_KEY when the stack's config has none).";
    }
    const secrets = await secretsOf(stack, { ...baseEnv, ...envVars });
    throw new DriftError(redact(`${step} of stack "${opts.stack}" failed:\n${indent(detail)}`, secrets));
  };

  try {
    stack = await LocalWorkspace.selectStack(
      { stackName: opts.stack, workDir },
      { pulumiCommand: command, envVars },
    );
  } catch (err) {
    await fail("Selecting the stack", err, []);
  }
  const s = stack as Stack;

  const refreshEvents: EngineEvent[] = [];
  progress("refresh");
  const expected = await announcement(s);
  if (expected) s.workspace.envVars[EXPECTED_READS_ENV] = expected;
  try {
    // runProgram: the providers get the program's current configuration (e.g. a rotated API
    // key), not the one stored at the last deployment.
    await s.previewRefresh({ runProgram: true, onEvent: (e) => refreshEvents.push(e) });
  } catch (err) {
    await fail("The refresh (preview only) that reads the live resources", err, refreshEvents);
  } finally {
    delete s.workspace.envVars[EXPECTED_READS_ENV];
  }
  const { checked, resources } = analyzeRefreshEvents(refreshEvents);

  const previewEvents: EngineEvent[] = [];
  let summary: OpMap = {};
  progress("preview");
  try {
    summary = (await s.preview({ onEvent: (e) => previewEvents.push(e) })).changeSummary;
  } catch (err) {
    await fail("The preview of the program", err, previewEvents);
  }
  const pending = analyzePreviewEvents(previewEvents);

  const drift = resources.length > 0;
  progress("done");
  return {
    stack: opts.stack,
    workDir,
    drift,
    checkedResources: checked,
    resources,
    pendingChanges: { present: pending.length > 0, summary, resources: pending },
    exitCode: drift ? EXIT_CODES.attention : EXIT_CODES.ok,
  };
}

/** The kinds whose reads a listing answers (listReads.ts), by ID prefix. */
const LISTED_PREFIXES = [RESOURCES.eventSubscription.idPrefix, RESOURCES.eventDestination.idPrefix];

/**
 * How many resources of each listed kind (event subscriptions and destinations) a refresh of the
 * state `deployment` (`pulumi stack export`'s `deployment`) reads: `{ "<ID prefix>": count }`,
 * kinds with none left out. Placeholders of pending creates (no service ID) are not read.
 */
export function expectedReads(deployment: unknown): Record<string, number> {
  const resources = (deployment as { resources?: unknown } | undefined)?.resources;
  const counts: Record<string, number> = {};
  if (!Array.isArray(resources)) return counts;
  for (const r of resources as { id?: unknown; custom?: unknown; type?: unknown }[]) {
    if (!r?.custom || typeof r.id !== "string" || String(r.type).startsWith("pulumi:providers:")) continue;
    const prefix = LISTED_PREFIXES.find((p) => (r.id as string).startsWith(p));
    if (prefix) counts[prefix] = (counts[prefix] ?? 0) + 1;
  }
  return counts;
}

/**
 * The announcement of {@link expectedReads} for the stack `s` (`SERVICE_EXPECTED_READS`'s JSON),
 * or `undefined` when its state cannot be read: the refresh then reads as without it.
 */
async function announcement(s: Stack): Promise<string | undefined> {
  try {
    return JSON.stringify(expectedReads((await s.exportStack()).deployment));
  } catch {
    return undefined;
  }
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");
}

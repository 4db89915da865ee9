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
 * 2a. `ignoreChanges`: a changed property that the resource option `ignoreChanges` covers, as
 *    the state recorded it at the last deployment (gitops/ignore.ts), is not drift, whether the
 *    refresh's result is `update` or `same`: it is listed apart in `ignored`, and a report with
 *    only ignored changes exits 0. A secret property counts as ignored only when a path names
 *    it as a whole (`target`), since its values are masked.
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
import type { EngineEvent, OpMap, Stack } from "@pulumi/pulumi/automation";
import {
  analyzeRefreshEvents,
  type DriftedResource,
  type IgnoredResource,
  type PendingChange,
} from "./events";
import { RESOURCES } from "service-contract";
import { EXPECTED_READS_ENV } from "../provider/impl/reads/listReads";
import { ignoreChangesOf } from "./ignore";
import { EXIT_CODES } from "./io";
import { analyzePreviewEvents } from "./preview";
import { openStack, type StackOptions } from "./stack";

export * from "./events";
export { analyzePreviewEvents } from "./preview";
export { redact } from "./io";
export { DriftError, findPulumiCommand, type StackOptions } from "./stack";

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
  /**
   * Resources changed on the service only in properties their `ignoreChanges` resource option
   * covers (as the last deployment recorded it): not drift, never a failure, listed apart.
   */
  ignored: IgnoredResource[];
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

/** Options of {@link runDriftReport}: the stack, its project folder, the CLI's environment and more. */
export interface DriftOptions extends StackOptions {
  /**
   * Called as each step starts, and once more (`done`) when the report is complete; not called
   * for the steps after a failure. For progress lines: the report itself never prints.
   */
  onProgress?: (phase: DriftPhase) => void;
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
  const progress = opts.onProgress ?? (() => undefined);
  progress("select");
  const { stack: s, workDir, fail } = await openStack(opts);

  const refreshEvents: EngineEvent[] = [];
  progress("refresh");
  const deployment = await exportedState(s);
  if (deployment !== undefined)
    s.workspace.envVars[EXPECTED_READS_ENV] = JSON.stringify(expectedReads(deployment));
  try {
    // runProgram: the providers get the program's current configuration (e.g. a rotated API
    // key), not the one stored at the last deployment.
    await s.previewRefresh({ runProgram: true, onEvent: (e) => refreshEvents.push(e) });
  } catch (err) {
    await fail("The refresh (preview only) that reads the live resources", err, refreshEvents);
  } finally {
    delete s.workspace.envVars[EXPECTED_READS_ENV];
  }
  const { checked, resources, ignored } = analyzeRefreshEvents(refreshEvents, ignoreChangesOf(deployment));

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
    ignored,
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
 * The stack's state (`pulumi stack export`'s `deployment`), read once before the refresh for
 * {@link expectedReads} and the resources' `ignoreChanges`; `undefined` when it cannot be read
 * (the refresh then reads one resource at a time, and no change is ignored).
 */
async function exportedState(s: Stack): Promise<unknown> {
  try {
    return (await s.exportStack()).deployment as unknown;
  } catch {
    return undefined;
  }
}

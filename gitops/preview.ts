/**
 * The preview summary of `service-drift preview`: a `pulumi preview` of a stack through the
 * Automation API, read back per resource (create, update, replace, delete; the changed inputs
 * with the state's value before and the program's after, secrets `[secret]`, values only known
 * after the deployment `[unknown]`), and a guard that refuses chosen operations on chosen
 * resource types or names (exit code 2), for a pull request's check. With policy packs
 * (`pulumi preview --policy-pack`), the violations of their rules are listed too, and a mandatory
 * one is a refusal (exit code 2) rather than a failed preview.
 *
 * The preview does not refresh (as `pulumi preview` without `--refresh`): it shows what the
 * program changes against the state; the drift report (gitops/drift.ts) shows what changed on the
 * service. Nothing is written to the state or the service.
 *
 * @packageDocumentation
 */
import type { EngineEvent, OpMap } from "@pulumi/pulumi/automation";
import {
  diffProperties,
  maskSecrets,
  nameOf,
  shortType,
  SECRET_TEXT,
  type PendingChange,
  type PropertyDrift,
} from "./events";
import { EXIT_CODES } from "./io";
import { DriftError, openStack, type StackOptions } from "./stack";

/** The text a value only known after the deployment (an output of another resource) is shown as. */
export const UNKNOWN_TEXT = "[unknown]";

/** The engine's sentinel of an unknown value in a preview's events. */
const UNKNOWN_SENTINEL = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** The operations a guard can refuse, as {@link PreviewResource.op} names them. */
export const GUARD_OPS = ["create", "update", "replace", "delete"] as const;

/** One of {@link GUARD_OPS}. */
export type GuardOp = (typeof GUARD_OPS)[number];

/**
 * One changed input of a resource in a preview: `before` is the state's value (the last
 * deployment; `null` for a create), `after` the program's (`null` for a delete); secrets are
 * `"[secret]"`, values only known after the deployment `"[unknown]"`.
 */
export type PreviewProperty = PropertyDrift;

/** A resource the next `pulumi up` would change. */
export interface PreviewResource {
  /** Pulumi resource name, e.g. `audit`. */
  name: string;
  /** Short type, e.g. `EventDestination`. */
  type: string;
  /** Full type token, e.g. `service:index:EventDestination`. */
  typeToken: string;
  /** The resource's URN. */
  urn: string;
  /** The service's ID; `""` for a resource not yet created. */
  id: string;
  /**
   * `create`, `update`, `replace` (a replacement's steps merged into one) or `delete`; the
   * engine's other operations (`import`, `discard`…) as it names them.
   */
  op: string;
  /** For a `replace`: the properties whose change forces it (`replaceOnChanges`, the provider's). */
  replaceReasons: string[];
  /** The changed inputs (for a create every input, for a delete every input of the state). */
  properties: PreviewProperty[];
}

/** What the guard refuses: operations, narrowed to resource types and/or names. */
export interface GuardRule {
  /** Operations to refuse, e.g. `["replace", "delete"]`; an empty list refuses nothing. */
  failOn: GuardOp[];
  /** Only resources of these types (short, `EventDestination`, or full type tokens); empty: all. */
  types?: string[];
  /** Only resources of these names (or URNs); empty: all. */
  names?: string[];
}

/** The guard's verdict, in {@link PreviewSummary.guard}. */
export interface GuardResult {
  /** The operations refused. */
  failOn: GuardOp[];
  /** The types it applies to (empty: all). */
  types: string[];
  /** The names it applies to (empty: all). */
  names: string[];
  /** The resources whose operation it refuses, in the preview's order (empty: it passes). */
  refused: Pick<PreviewResource, "name" | "type" | "urn" | "op">[];
}

/** A violation of a policy pack's rule in the preview (`pulumi preview --policy-pack`). */
export interface PolicyViolation {
  /** The pack, e.g. `service-policy`. */
  policyPack: string;
  /** The rule's ID, e.g. `service-destination-targets`. */
  policy: string;
  /** `mandatory` (fails the preview, refuses `pulumi up`) or `advisory` (a warning). */
  enforcementLevel: "mandatory" | "advisory";
  /** The resource's name (`audit`); `""` for a violation not tied to one resource. */
  name: string;
  /** The resource's URN; `""` as for `name`. */
  urn: string;
  /** What the rule reports: the violation's text, without the rule's description. */
  message: string;
}

/** The whole summary, as `service-drift preview --format json` prints it. */
export interface PreviewSummary {
  /** The stack previewed, e.g. `dev`. */
  stack: string;
  /** Absolute path of the Pulumi project folder. */
  workDir: string;
  /** True when `pulumi up` would change something. */
  changes: boolean;
  /** The engine's counts per operation, e.g. `{ same: 4, replace: 1 }`. */
  summary: OpMap;
  /** The resources that would change, in the engine's order (unchanged ones and providers left out). */
  resources: PreviewResource[];
  /** The guard's verdict; `null` without a guard (no `--fail-on`). */
  guard: GuardResult | null;
  /** The policy packs' violations, in the engine's order; empty without `policyPacks`. */
  policyViolations: PolicyViolation[];
  /**
   * 0 (the guard passes, or none, and no mandatory policy violation) or 2 (the guard refuses, or
   * a mandatory violation): `EXIT_CODES` of gitops/io.ts.
   */
  exitCode: 0 | 2;
}

/** Options of {@link runPreviewSummary}. */
export interface PreviewOptions extends StackOptions {
  /** The guard; without it the summary never fails. */
  guard?: GuardRule;
  /** Policy packs to run, paths of their folders (`pulumi preview --policy-pack`). */
  policyPacks?: string[];
  /** JSON config files of `policyPacks`, one per pack in order (`--policy-pack-config`). */
  policyPackConfigs?: string[];
}

/** An error of the preview summary: a bad guard, or a preview that failed; no secret in its message. */
export class PreviewError extends DriftError {
  override name = "PreviewError";
}

/**
 * Checks a guard rule before anything runs.
 * @throws PreviewError naming the flag (`--fail-on`…) and the accepted values: an operation not
 *   in {@link GUARD_OPS}, or types or names without any operation to refuse.
 */
export function checkGuardRule(rule: GuardRule): GuardRule {
  const bad = rule.failOn.filter((op) => !(GUARD_OPS as readonly string[]).includes(op));
  if (bad.length > 0)
    throw new PreviewError(
      `--fail-on: ${bad.map((b) => JSON.stringify(b)).join(", ")} is not an operation; use one or more of ${GUARD_OPS.join(", ")} (e.g. --fail-on replace,delete).`,
    );
  if (rule.failOn.length === 0 && ((rule.types?.length ?? 0) > 0 || (rule.names?.length ?? 0) > 0))
    throw new PreviewError(
      "--fail-on-type and --fail-on-name narrow --fail-on: give the operations to refuse too (e.g. --fail-on replace,delete).",
    );
  return rule;
}

/**
 * The guard's verdict on `resources`: each resource whose `op` is in `rule.failOn`, whose type
 * (short or full token) is in `rule.types` and whose name (or URN) is in `rule.names` (an empty
 * or absent list matches every resource) is refused.
 */
export function applyGuard(resources: readonly PreviewResource[], rule: GuardRule): GuardResult {
  const types = rule.types ?? [];
  const names = rule.names ?? [];
  const refused = resources
    .filter((r) => (rule.failOn as string[]).includes(r.op))
    .filter((r) => types.length === 0 || types.includes(r.type) || types.includes(r.typeToken))
    .filter((r) => names.length === 0 || names.includes(r.name) || names.includes(r.urn))
    .map(({ name, type, urn, op }) => ({ name, type, urn, op }));
  return { failOn: [...rule.failOn], types: [...types], names: [...names], refused };
}

/** `value` with the engine's unknown sentinel replaced by {@link UNKNOWN_TEXT}. */
function showUnknowns(value: unknown): unknown {
  if (value === UNKNOWN_SENTINEL) return UNKNOWN_TEXT;
  if (Array.isArray(value)) return value.map(showUnknowns);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, showUnknowns(v)]),
    );
  return value;
}

const SKIPPED_OPS = new Set(["same", "read", "refresh"]);
const REPLACE_STEPS = new Set(["replace", "create-replacement", "delete-replaced"]);

/**
 * The resources of a preview's events (`resourcePreEvent`s) that would change: one entry per
 * URN, a replacement's steps merged into one `replace`; provider resources and unchanged ones
 * left out. A secret input the provider reports changed (`diffs`) while both masked values look
 * the same is listed as `[secret]` → `[secret]`.
 */
export function analyzePreviewChanges(events: readonly EngineEvent[]): PreviewResource[] {
  const byUrn = new Map<string, PreviewResource>();
  for (const e of events) {
    const md = e.resourcePreEvent?.metadata;
    if (!md || SKIPPED_OPS.has(md.op) || md.type.startsWith("pulumi:providers:")) continue;
    const op = REPLACE_STEPS.has(md.op) ? "replace" : md.op;
    // A replacement's delete step carries the old state only: nothing to compare.
    const properties: PreviewProperty[] =
      md.op === "delete-replaced"
        ? []
        : diffProperties(md.old?.inputs, md.new?.inputs).map((p) => ({
            ...p,
            before: showUnknowns(p.before),
            after: showUnknowns(p.after),
          }));
    const listed = new Set(properties.map((p) => p.property));
    for (const key of md.diffs ?? []) {
      if (listed.has(key) || key.startsWith("__")) continue;
      const secret = maskSecrets(md.new?.inputs?.[key]).secret || maskSecrets(md.old?.inputs?.[key]).secret;
      if (secret) properties.push({ property: key, before: SECRET_TEXT, after: SECRET_TEXT, secret: true });
    }
    const prev = byUrn.get(md.urn);
    if (!prev) {
      byUrn.set(md.urn, {
        name: nameOf(md.urn),
        type: shortType(md.type),
        typeToken: md.type,
        urn: md.urn,
        id: md.old?.id ?? "",
        op,
        replaceReasons: op === "replace" ? [...(md.keys ?? [])].sort() : [],
        properties: properties.sort((a, b) => a.property.localeCompare(b.property)),
      });
      continue;
    }
    if (op === "replace") {
      prev.op = "replace";
      prev.replaceReasons = [...new Set([...prev.replaceReasons, ...(md.keys ?? [])])].sort();
    }
    if (!prev.id && md.old?.id) prev.id = md.old.id;
    const known = new Set(prev.properties.map((p) => p.property));
    prev.properties = [...prev.properties, ...properties.filter((p) => !known.has(p.property))].sort((a, b) =>
      a.property.localeCompare(b.property),
    );
  }
  return [...byUrn.values()];
}

/**
 * Pending program changes from the events of a `preview`, as the drift report lists them: one
 * entry per resource the next `pulumi up` would create, update, delete or replace (the steps of a
 * replacement merged into one `replace`), with the names of its changed inputs that are not
 * secret (for an update or a replace; none for a create or a delete). See
 * {@link analyzePreviewChanges} for the values.
 */
export function analyzePreviewEvents(events: readonly EngineEvent[]): PendingChange[] {
  return analyzePreviewChanges(events).map(({ name, type, urn, op, properties }) => ({
    name,
    type,
    urn,
    op,
    properties:
      op === "update" || op === "replace" ? properties.filter((p) => !p.secret).map((p) => p.property) : [],
  }));
}

/**
 * The policy violations of a preview's events (`policyEvent`s), in order. The engine's message
 * holds the rule's description, then the violation's text: the text alone is kept.
 */
export function analyzePolicyEvents(events: readonly EngineEvent[]): PolicyViolation[] {
  return events.flatMap((e) => {
    const p = e.policyEvent;
    if (!p) return [];
    const lines = p.message.trim().split("\n");
    return [
      {
        policyPack: p.policyPackName,
        policy: p.policyName,
        enforcementLevel: p.enforcementLevel === "mandatory" ? "mandatory" : "advisory",
        name: p.resourceUrn ? nameOf(p.resourceUrn) : "",
        urn: p.resourceUrn ?? "",
        message: (lines.length > 1 ? lines.slice(1) : lines).join("\n").trim(),
      },
    ];
  });
}

/**
 * Runs `pulumi preview` of a stack (no refresh) and summarizes it per resource, with the guard's
 * verdict when `opts.guard` is given and the violations of `opts.policyPacks`. Nothing in the
 * state or on the service changes.
 *
 * @returns the summary; its `exitCode` is 2 when the guard refuses an operation or a policy pack
 *   reports a mandatory violation (which fails the engine's preview), else 0.
 * @throws PreviewError for a bad guard (before anything runs), or when the stack cannot be
 *   selected or the preview fails (a message naming the stack and the step, holding no secret).
 */
export async function runPreviewSummary(opts: PreviewOptions): Promise<PreviewSummary> {
  const rule = opts.guard && checkGuardRule(opts.guard);
  const { stack, workDir, fail } = await openStack(opts, (m) => new PreviewError(m));
  const events: EngineEvent[] = [];
  let summary: OpMap = {};
  try {
    summary = (
      await stack.preview({
        onEvent: (e) => events.push(e),
        ...(opts.policyPacks ? { policyPacks: opts.policyPacks } : {}),
        ...(opts.policyPackConfigs ? { policyPackConfigs: opts.policyPackConfigs } : {}),
      })
    ).changeSummary;
  } catch (err) {
    // A mandatory violation fails the engine's preview: the summary reports it (exit code 2).
    const refusedByPolicy = analyzePolicyEvents(events).some((v) => v.enforcementLevel === "mandatory");
    if (!refusedByPolicy || events.some(failedOtherwise))
      await fail("The preview of the program", err, events);
  }
  const resources = analyzePreviewChanges(events);
  const guard = rule ? applyGuard(resources, rule) : null;
  const policyViolations = analyzePolicyEvents(events);
  const mandatory = policyViolations.some((v) => v.enforcementLevel === "mandatory");
  return {
    stack: opts.stack,
    workDir,
    changes: resources.length > 0,
    summary,
    resources,
    guard,
    policyViolations,
    exitCode: (guard && guard.refused.length > 0) || mandatory ? EXIT_CODES.attention : EXIT_CODES.ok,
  };
}

/**
 * Whether an event is an error of the preview other than a policy pack's refusal: an error
 * diagnostic of a resource (a provider's check, the program), which a policy's refusal is not.
 */
function failedOtherwise(e: EngineEvent): boolean {
  return (
    e.diagnosticEvent?.severity === "error" &&
    Boolean(e.diagnosticEvent.urn) &&
    !/preview failed/.test(e.diagnosticEvent.message)
  );
}

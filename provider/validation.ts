/**
 * Input validation of the three resources, as pure functions that the providers' `check`
 * calls. They use the client's validation (the same limits as the service: bytes where the
 * spec says bytes, characters where it says characters) and turn its issues into Pulumi check
 * failures whose reason quotes the field, e.g. `description: at most 255 characters, got 256`.
 *
 * Values still unknown during a preview (outputs of resources not yet created) are not
 * failures: issues about them, or about a list that holds one, are dropped, and `up` checks
 * again once they are known.
 *
 * Spec: decisions.md § Abuse reports, § Event subscriptions, § Event destinations.
 *
 * @packageDocumentation
 */
import {
  validateAbuseReportCreate,
  validateEventDestinationCreate,
  validateEventSubscriptionCreate,
  type ValidationIssue,
} from "../sdk";

/** The value Pulumi's engine sends for an input that is not known yet (during a preview). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** One check failure as Pulumi reports it: a top-level `property` and a `reason`. */
export interface CheckFailure {
  /** Top-level input property, e.g. `sources` for an issue at `sources[1].type`. */
  property: string;
  /** Message that quotes the full field path and the limit. */
  reason: string;
}

/**
 * Paths of every unknown value inside `value`, in the client's field notation
 * (`destinationIds[0]`, `target.datadog.apiKey`).
 */
export function unknownPaths(value: unknown, prefix = ""): string[] {
  if (value === UNKNOWN) return [prefix];
  if (Array.isArray(value)) return value.flatMap((v, i) => unknownPaths(v, `${prefix}[${i}]`));
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([k, v]) => unknownPaths(v, prefix ? `${prefix}.${k}` : k));
  }
  return [];
}

function related(field: string, path: string): boolean {
  const within = (inner: string, outer: string) =>
    inner === outer || inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`);
  return within(field, path) || within(path, field);
}

function topLevel(field: string): string {
  const m = /^[^.[]+/.exec(field);
  return m ? m[0] : field;
}

/** Turns client issues into check failures, leaving out those about values not known yet. */
export function toCheckFailures(issues: ValidationIssue[], inputs: unknown): CheckFailure[] {
  const unknown = unknownPaths(inputs);
  return issues
    .filter((issue) => !unknown.some((path) => related(issue.field, path)))
    .map((issue) => ({ property: topLevel(issue.field), reason: issue.message }));
}

function withoutPulumiKeys(inputs: Record<string, unknown>, extra: string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(inputs ?? {})) {
    if (k.startsWith("__") || extra.includes(k) || v === undefined || v === null) continue;
    out[k] = v;
  }
  return out;
}

/**
 * Checks the inputs of an `EventSubscription` (`sources`, `destinationIds`, `description?`,
 * `metadata?`; `adoptId?` is the provider's own). Never throws.
 */
export function checkEventSubscriptionInputs(inputs: Record<string, unknown>): CheckFailure[] {
  const body = withoutPulumiKeys(inputs, ["adoptId"]);
  const failures = toCheckFailures(validateEventSubscriptionCreate(body), body);
  return failures.concat(checkAdoptId(inputs, "esb_", "event subscription"));
}

/**
 * Checks the inputs of an `EventDestination` (`format?`, `target`, `description?`,
 * `metadata?`; `adoptId?` is the provider's own). Never throws.
 */
export function checkEventDestinationInputs(inputs: Record<string, unknown>): CheckFailure[] {
  const body = withoutPulumiKeys(inputs, ["adoptId"]);
  const failures = toCheckFailures(validateEventDestinationCreate(body), body);
  return failures.concat(checkAdoptId(inputs, "ed_", "event destination"));
}

/** Checks the inputs of an `AbuseReport` (`urls`, `metadata?`). Never throws. */
export function checkAbuseReportInputs(inputs: Record<string, unknown>): CheckFailure[] {
  const body = withoutPulumiKeys(inputs);
  return toCheckFailures(validateAbuseReportCreate(body), body);
}

function checkAdoptId(inputs: Record<string, unknown>, prefix: string, what: string): CheckFailure[] {
  const id = inputs?.adoptId;
  if (id === undefined || id === null || id === UNKNOWN) return [];
  if (typeof id !== "string" || !id.startsWith(prefix)) {
    return [
      {
        property: "adoptId",
        reason: `adoptId: must be the ID of an existing ${what} (${prefix}…), got ${JSON.stringify(id)}`,
      },
    ];
  }
  return [];
}

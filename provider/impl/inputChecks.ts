/**
 * Input validation of the three resources, as pure functions that the providers' `check`
 * calls. They use the client's validation of each resource's create schema, read from its
 * descriptor in the contract (the same limits as the service: bytes where the contract counts
 * bytes, characters where it counts characters) and turn its issues into Pulumi check
 * failures whose reason quotes the field, e.g. `description: at most 255 characters, got 256`.
 *
 * Values still unknown during a preview (outputs of resources not yet created) are not
 * failures: issues about them, or about a list that holds one, are dropped, and `up` checks
 * again once they are known.
 *
 * Reference: docs/service-api.md § Abuse reports, § Event subscriptions, § Event destinations.
 *
 * @packageDocumentation
 */
import type { ValidationIssue } from "../../client/errors";
import type * as SdkValidation from "../../client/requestValidation";
import type * as Contract from "service-contract";

/**
 * The client's validation and the contract, loaded on the first check. A Pulumi program imports
 * this module through the package's index but never calls a check (the provider process does),
 * so it does not pay for loading the contract and zod, most of the package's cost at a
 * program's start (docs/performance.md § Fixed cost). Kept after the first call: a `require`
 * of a package name resolves it again each time (stat calls, its `package.json` read), about
 * 0.1 ms per check, 0.1 s of a no-change `up` or `preview` of 1,000.
 */
function load(): { validation: typeof SdkValidation; contract: typeof Contract } {
  return (loaded ??= {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    validation: require("../../client/requestValidation") as typeof SdkValidation,
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    contract: require("service-contract") as typeof Contract,
  });
}
let loaded: { validation: typeof SdkValidation; contract: typeof Contract } | undefined;

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
 * (`destinationIds[0]`, `target.datadog.apiKey`). Looks into arrays and plain objects only, 64
 * levels deep; never reads anything else (instances of classes, whose getters may throw).
 */
export function unknownPaths(value: unknown, prefix = "", seen = new Set<unknown>(), depth = 0): string[] {
  if (value === UNKNOWN) return [prefix];
  // Inputs are shallow and acyclic; deeper or repeated objects (hostile input only) are not searched.
  if (value === null || typeof value !== "object" || seen.has(value) || depth >= MAX_DEPTH) return [];
  seen.add(value);
  if (Array.isArray(value))
    return value.flatMap((v, i) => unknownPaths(v, `${prefix}[${i}]`, seen, depth + 1));
  if (!isPlainObject(value)) return [];
  return Object.entries(value).flatMap(([k, v]) =>
    unknownPaths(v, prefix ? `${prefix}.${k}` : k, seen, depth + 1),
  );
}

/** Deepest nesting {@link unknownPaths} and the copy of the inputs look into. */
const MAX_DEPTH = 64;

/** True for an object made by a literal or `Object.create(null)`: data, not an instance of a class. */
function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function related(field: string, path: string): boolean {
  const within = (inner: string, outer: string) =>
    inner === outer || inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`);
  return within(field, path) || within(path, field);
}

/**
 * The top-level property a field path belongs to: the longest key of `inputs` the path starts
 * with (so that a key such as `a.b` is its own property), else the path up to the first `.` or `[`.
 */
function topLevel(field: string, inputs: unknown): string {
  const keys = inputs !== null && typeof inputs === "object" ? Object.keys(inputs) : [];
  let best = "";
  for (const k of keys) {
    const starts = field === k || field.startsWith(`${k}.`) || field.startsWith(`${k}[`);
    if (starts && k.length > best.length) best = k;
  }
  if (best !== "") return best;
  const m = /^[^.[]+/.exec(field);
  return m ? m[0] : field;
}

/** Turns client issues into check failures, leaving out those about values not known yet. */
export function toCheckFailures(issues: ValidationIssue[], inputs: unknown): CheckFailure[] {
  const unknown = unknownPaths(inputs);
  return issues
    .filter((issue) => !unknown.some((path) => related(issue.field, path)))
    .map((issue) => ({ property: topLevel(issue.field, inputs), reason: issue.message }));
}

/**
 * A copy of `value` made of plain arrays and objects (own enumerable keys; other values as they
 * are), so that validation reads data, not getters or proxies. Throws when reading throws.
 */
function plainCopy(value: unknown, copies = new Map<object, unknown>(), depth = 0): unknown {
  if (value === null || typeof value !== "object" || depth >= MAX_DEPTH) return value;
  const done = copies.get(value);
  if (done !== undefined) return done;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    copies.set(value, out);
    for (let i = 0; i < value.length; i++) out.push(plainCopy(value[i], copies, depth + 1));
    return out;
  }
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  copies.set(value, out);
  for (const k of Object.keys(value)) {
    Object.defineProperty(out, k, {
      value: plainCopy((value as Record<string, unknown>)[k], copies, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * The inputs as a plain record of their own keys, without Pulumi's own (`__…`) keys and absent
 * values; inputs that are not an object count as none. A property whose value cannot be read
 * (only hostile callers build such values) is left out and reported as a failure of its own.
 */
function readInputs(inputs: unknown): { plain: Record<string, unknown>; failures: CheckFailure[] } {
  const plain: Record<string, unknown> = {};
  const failures: CheckFailure[] = [];
  let keys: string[] = [];
  try {
    if (inputs !== null && typeof inputs === "object" && !Array.isArray(inputs)) keys = Object.keys(inputs);
  } catch {
    keys = [];
  }
  for (const k of keys) {
    if (k.startsWith("__")) continue;
    let v: unknown;
    try {
      v = plainCopy((inputs as Record<string, unknown>)[k]);
    } catch {
      failures.push({ property: k, reason: `${k}: could not be read` });
      continue;
    }
    if (v !== undefined && v !== null) plain[k] = v;
  }
  return { plain, failures };
}

function without(inputs: Record<string, unknown>, extra: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(inputs)) if (!extra.includes(k)) out[k] = v;
  return out;
}

/**
 * The check of one resource's inputs: its create body against the create schema of its
 * descriptor; for a resource that can be adopted, the body is the inputs without the provider's
 * own `adoptId`, which is checked against the resource's ID prefix.
 */
function checkInputs(
  kind: keyof typeof Contract.RESOURCES,
  inputs: Record<string, unknown>,
  adoptable: boolean,
): CheckFailure[] {
  const { validation, contract } = load();
  const resource = contract.RESOURCES[kind];
  const { plain, failures } = readInputs(inputs);
  const body = adoptable ? without(plain, ["adoptId"]) : plain;
  return failures
    .concat(toCheckFailures(validation.validateBody(resource.schemas.create, body), body))
    .concat(adoptable ? checkAdoptId(plain, resource.idPrefix, resource.names.singular) : []);
}

/**
 * Checks the inputs of an `EventSubscription` (`sources`, `destinationIds`, `description?`,
 * `metadata?`; `adoptId?` is the provider's own). Never throws.
 */
export function checkEventSubscriptionInputs(inputs: Record<string, unknown>): CheckFailure[] {
  return checkInputs("eventSubscription", inputs, true);
}

/**
 * Checks the inputs of an `EventDestination` (`format?`, `target`, `description?`,
 * `metadata?`; `adoptId?` is the provider's own). Never throws.
 */
export function checkEventDestinationInputs(inputs: Record<string, unknown>): CheckFailure[] {
  return checkInputs("eventDestination", inputs, true);
}

/** Checks the inputs of an `AbuseReport` (`urls`, `metadata?`; no adoption). Never throws. */
export function checkAbuseReportInputs(inputs: Record<string, unknown>): CheckFailure[] {
  return checkInputs("abuseReport", inputs, false);
}

function checkAdoptId(inputs: Record<string, unknown>, prefix: string, what: string): CheckFailure[] {
  const id = inputs.adoptId;
  if (id === undefined || id === null || id === UNKNOWN) return [];
  if (typeof id !== "string" || !id.startsWith(prefix)) {
    // The value is described, not printed: an input of any depth or size gives a short message.
    const got = load().validation.describeValue(id);
    return [
      {
        property: "adoptId",
        reason: `adoptId: must be the ID of an existing ${what} (${prefix}…), got ${got}`,
      },
    ];
  }
  return [];
}

/**
 * The pure part of the drift report: reading the engine's events of a preview-only refresh
 * (drift) and of a preview (pending program changes), with secret values kept masked.
 *
 * @packageDocumentation
 */
import type { EngineEvent, StepEventMetadata } from "@pulumi/pulumi/automation";
import { ignoredProperties } from "./ignore";

/** The text every secret value is replaced with in reports. */
export const SECRET_TEXT = "[secret]";

/** Keys of the engine's masked secret value: `{ [SECRET_SIG_KEY]: SECRET_SIG_VALUE, ciphertext }`. */
const SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG_VALUE = "1b47061264138c4ac30d75fd1eb44270";

/** One property of a resource whose live value differs from the last deployment. */
export interface PropertyDrift {
  /** Top-level output property, e.g. `description`. */
  property: string;
  /** Value at the last deployment (JSON; `"[secret]"` for a secret; `null` when absent). */
  before: unknown;
  /** Live value on the service (same conventions as `before`). */
  after: unknown;
  /** True when the value is (or holds) a secret, so `before` / `after` are masked. */
  secret: boolean;
}

/** A resource that drifted: changed or deleted outside Pulumi since the last deployment. */
export interface DriftedResource {
  /** Pulumi resource name (the last part of the URN), e.g. `multi`. */
  name: string;
  /** Short type, e.g. `EventSubscription` (the part after the last `:`). */
  type: string;
  /** Full type token, e.g. `pulumi-nodejs:dynamic/service:EventSubscription`. */
  typeToken: string;
  /** The resource's URN. */
  urn: string;
  /** The service's ID (`esb_…`, `ed_…`). */
  id: string;
  /** `changed`: it exists with other values; `deleted`: it no longer exists on the service. */
  status: "changed" | "deleted";
  /** The differing properties (empty for `deleted`). */
  properties: PropertyDrift[];
}

/** A resource the next `pulumi up` would change because the program changed. */
export interface PendingChange {
  /** Pulumi resource name. */
  name: string;
  /** Short type, e.g. `EventSubscription`. */
  type: string;
  /** The resource's URN. */
  urn: string;
  /** The engine's operation: `create`, `update`, `delete`, `replace`, … */
  op: string;
  /** Top-level inputs whose program value differs from the state (secret inputs are masked and never listed). */
  properties: string[];
}

/** True for the engine's masked secret value. */
function isMaskedSecret(v: unknown): boolean {
  return (
    !!v &&
    typeof v === "object" &&
    !Array.isArray(v) &&
    (v as Record<string, unknown>)[SECRET_SIG_KEY] === SECRET_SIG_VALUE
  );
}

/**
 * `value` with each masked secret replaced by `"[secret]"`; `secret` tells whether any was.
 * Also accepts values that are already `"[secret]"`.
 */
export function maskSecrets(value: unknown): { value: unknown; secret: boolean } {
  let secret = false;
  const walk = (v: unknown): unknown => {
    if (isMaskedSecret(v) || v === SECRET_TEXT) {
      secret = true;
      return SECRET_TEXT;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, walk(x)]));
    }
    return v;
  };
  return { value: walk(value), secret };
}

/** A canonical JSON text of `v`: object keys sorted, lists sorted (order does not count). */
function canonical(v: unknown): string {
  const norm = (x: unknown): unknown => {
    if (Array.isArray(x)) {
      return x
        .map(norm)
        .map((e) => JSON.stringify(e))
        .sort()
        .map((s) => JSON.parse(s) as unknown);
    }
    if (x && typeof x === "object") {
      const o = x as Record<string, unknown>;
      return Object.fromEntries(
        Object.keys(o)
          .sort()
          .filter((k) => o[k] !== undefined)
          .map((k) => [k, norm(o[k])]),
      );
    }
    return x ?? null;
  };
  return JSON.stringify(norm(v));
}

/** Short type of a type token: `pulumi-nodejs:dynamic/service:EventSubscription` → `EventSubscription`. */
export function shortType(typeToken: string): string {
  const i = typeToken.lastIndexOf(":");
  return i >= 0 ? typeToken.slice(i + 1) : typeToken;
}

/** The resource name of a URN: the text after its last `::`. */
export function nameOf(urn: string): string {
  const i = urn.lastIndexOf("::");
  return i >= 0 ? urn.slice(i + 2) : urn;
}

function isProviderType(type: string): boolean {
  return type.startsWith("pulumi:providers:");
}

/**
 * Top-level properties of `before` and `after` (engine property maps, secrets masked) whose
 * values differ, lists compared in any order; keys starting with `__` (Pulumi's own, e.g. the
 * serialized dynamic provider) are left out.
 */
export function diffProperties(
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown> | undefined,
): PropertyDrift[] {
  const b = before ?? {};
  const a = after ?? {};
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])].filter((k) => !k.startsWith("__")).sort();
  const out: PropertyDrift[] = [];
  for (const k of keys) {
    const mb = maskSecrets(b[k]);
    const ma = maskSecrets(a[k]);
    if (canonical(mb.value) !== canonical(ma.value)) {
      out.push({
        property: k,
        before: mb.value ?? null,
        after: ma.value ?? null,
        secret: mb.secret || ma.secret,
      });
    }
  }
  return out;
}

/** Top-level properties of `props` whose value is or holds a secret. */
function secretProperties(props: Record<string, unknown> | undefined): string[] {
  return Object.keys(props ?? {})
    .filter((k) => !k.startsWith("__") && maskSecrets((props ?? {})[k]).secret)
    .sort();
}

/**
 * A resource whose properties changed on the service only where the program's `ignoreChanges`
 * says to ignore them: not drift (it never makes the report fail), reported apart.
 */
export interface IgnoredResource {
  /** Pulumi resource name, e.g. `multi`. */
  name: string;
  /** Short type, e.g. `EventSubscription`. */
  type: string;
  /** Full type token. */
  typeToken: string;
  /** The resource's URN. */
  urn: string;
  /** The service's ID. */
  id: string;
  /** The resource's `ignoreChanges` paths, as the state records them (e.g. `["description"]`). */
  ignoreChanges: string[];
  /** The changed properties those paths cover: before = last deployment, after = live. */
  properties: PropertyDrift[];
}

/** True when `a` and `b` are the same value for the report: secrets masked, lists in any order. */
function sameValue(a: unknown, b: unknown): boolean {
  return canonical(maskSecrets(a).value) === canonical(maskSecrets(b).value);
}

/** The resource fields of a report entry, from an event's metadata. */
function resourceOf(md: StepEventMetadata) {
  return {
    name: nameOf(md.urn),
    type: shortType(md.type),
    typeToken: md.type,
    urn: md.urn,
    id: md.old?.id ?? md.new?.id ?? "",
  };
}

/**
 * Drift from the events of a `previewRefresh` (see the module comment): one entry per custom
 * resource whose refresh result is `update` or `delete`. A changed property that the resource's
 * `ignoreChanges` covers (paths by URN, see `ignoreChangesOf` of gitops/ignore.ts) is not
 * drift: it goes to `ignored`, whether the engine reported the resource as `update` or `same`.
 *
 * @param ignoreChanges - each resource's `ignoreChanges` paths by URN (from the state).
 * @returns the drifted resources, the resources with ignored changes only, and how many
 *   resources were checked.
 */
export function analyzeRefreshEvents(
  events: readonly EngineEvent[],
  ignoreChanges: ReadonlyMap<string, readonly string[]> = new Map(),
): {
  checked: number;
  resources: DriftedResource[];
  ignored: IgnoredResource[];
} {
  let checked = 0;
  const resources: DriftedResource[] = [];
  const ignored: IgnoredResource[] = [];
  for (const e of events) {
    const md: StepEventMetadata | undefined = e.resOutputsEvent?.metadata;
    if (!md) continue;
    const state = md.old ?? md.new;
    if (!state?.custom || isProviderType(md.type)) continue;
    checked += 1;
    const base = resourceOf(md);
    if (md.op === "delete") {
      resources.push({ ...base, status: "deleted", properties: [] });
      continue;
    }
    if (md.op !== "update" && md.op !== "same") continue;
    const paths = ignoreChanges.get(md.urn) ?? [];
    const all = diffProperties(md.old?.outputs, md.new?.outputs);
    const names = ignoredProperties(
      all.map((p) => p.property),
      md.old?.outputs,
      md.new?.outputs,
      paths,
      sameValue,
    );
    const covered = all.filter((p) => names.includes(p.property));
    if (covered.length > 0) ignored.push({ ...base, ignoreChanges: [...paths], properties: covered });
    if (md.op !== "update") continue;
    let properties = all.filter((p) => !names.includes(p.property));
    if (properties.length === 0) {
      // The provider saw a change that no visible value explains: it is in a secret, unless
      // `ignoreChanges` names that secret property (or everything) as a whole.
      const secrets = secretProperties(md.new?.outputs);
      properties = secrets
        .filter((property) => !paths.includes(property) && !paths.includes("*"))
        .map((property) => ({ property, before: SECRET_TEXT, after: SECRET_TEXT, secret: true }));
      if (properties.length === 0 && paths.length > 0) continue;
    }
    resources.push({ ...base, status: "changed", properties });
  }
  return { checked, resources, ignored };
}

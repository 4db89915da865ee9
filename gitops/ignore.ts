/**
 * `ignoreChanges` in the drift report: which changes on the service fall under the resource
 * option `ignoreChanges` of the program, as the last `pulumi up` recorded it in the state.
 *
 * Pulumi records each resource's `ignoreChanges` (property paths such as `description`,
 * `target.datadog.ddsite`, `sources[0].filter` or `tags["a.b"]`, `*` for every element or key) in
 * the state at each `pulumi up`; the report uses those of the state, not the program's current
 * ones (a path added to the program counts from the next `pulumi up`), since a preview-only
 * refresh can report a change under them as an `update` all the same. This module reads them
 * from the exported state and splits a resource's changed properties into drift and ignored.
 *
 * @packageDocumentation
 */

/** One step of a property path: a key of an object, an index of a list, or `*` (every one). */
type PathStep = string | number | { wildcard: true };

/**
 * The steps of a Pulumi property path (`a.b[0]["c.d"].*`), as `pulumi` parses `ignoreChanges`.
 * @throws Error naming the path when it is not a property path (an unclosed bracket or quote).
 */
export function parsePropertyPath(text: string): PathStep[] {
  const steps: PathStep[] = [];
  let i = 0;
  const bad = () => new Error(`Not a property path: ${JSON.stringify(text)} (at character ${i + 1})`);
  while (i < text.length) {
    if (text[i] === ".") i += 1;
    if (text[i] === "[") {
      const close = text.indexOf("]", i);
      if (close < 0) throw bad();
      const inner = text.slice(i + 1, close);
      if (inner.startsWith('"')) {
        const end = text.indexOf('"]', i + 2);
        if (end < 0) throw bad();
        steps.push(JSON.parse(text.slice(i + 1, end + 1)) as string);
        i = end + 2;
        continue;
      }
      if (inner === "*") steps.push({ wildcard: true });
      else if (/^\d+$/.test(inner)) steps.push(Number(inner));
      else throw bad();
      i = close + 1;
      continue;
    }
    const m = /^[^.[]+/.exec(text.slice(i));
    if (!m) throw bad();
    steps.push(m[0] === "*" ? { wildcard: true } : m[0]);
    i += m[0].length;
  }
  return steps;
}

type Json = unknown;

/**
 * `after` with the value at each of `paths` taken from `before` (added, replaced or removed as
 * `before` has it): what the service would hold had nobody touched an ignored property.
 * Neither argument is changed.
 */
export function resetPaths(before: Json, after: Json, paths: readonly PathStep[][]): Json {
  const clone = (v: Json): Json => (v === undefined ? undefined : (JSON.parse(JSON.stringify(v)) as Json));
  const reset = (b: Json, a: Json, steps: readonly PathStep[]): Json => {
    if (steps.length === 0) return clone(b);
    if (!a || typeof a !== "object") return a;
    const [step, ...rest] = steps;
    const keys =
      typeof step === "object"
        ? [...new Set([...Object.keys(a), ...Object.keys((b ?? {}) as object)])]
        : [String(step)];
    const out = (Array.isArray(a) ? [...a] : { ...(a as object) }) as Record<string, Json>;
    const bo = (b && typeof b === "object" ? b : {}) as Record<string, Json>;
    for (const k of keys) {
      const v = reset(bo[k], out[k], rest);
      if (v === undefined && !Array.isArray(out)) delete out[k];
      else out[k] = v;
    }
    return out;
  };
  let out = after;
  for (const p of paths) out = reset(before, out, p);
  return out;
}

/**
 * The `ignoreChanges` of each resource of an exported state (`pulumi stack export`'s
 * `deployment`), by URN; resources without any are left out. Paths that do not parse are
 * kept as written (they then match the top-level property of that name only).
 */
export function ignoreChangesOf(deployment: unknown): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const resources = (deployment as { resources?: unknown } | undefined)?.resources;
  if (!Array.isArray(resources)) return out;
  for (const r of resources as { urn?: unknown; ignoreChanges?: unknown }[]) {
    if (typeof r?.urn !== "string" || !Array.isArray(r.ignoreChanges)) continue;
    const paths = r.ignoreChanges.filter((p): p is string => typeof p === "string");
    if (paths.length > 0) out.set(r.urn, paths);
  }
  return out;
}

/**
 * Splits the top-level properties of a resource that differ between `before` (the last
 * deployment) and `after` (the service) into those that `ignoreChanges` explains and the rest:
 * a property is ignored when setting its ignored paths back to `before` makes it equal again.
 *
 * @param changed - the differing top-level properties.
 * @param equal - the comparison of two values of a property (e.g. lists in any order).
 * @returns the names of the ignored properties (a subset of `changed`).
 */
export function ignoredProperties(
  changed: readonly string[],
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown> | undefined,
  ignoreChanges: readonly string[],
  equal: (a: unknown, b: unknown) => boolean,
): string[] {
  if (ignoreChanges.length === 0) return [];
  const paths = ignoreChanges.map((p) => {
    try {
      return parsePropertyPath(p);
    } catch {
      return [p];
    }
  });
  const restored = resetPaths(before ?? {}, after ?? {}, paths) as Record<string, unknown>;
  return changed.filter((k) => equal((before ?? {})[k], restored[k]));
}

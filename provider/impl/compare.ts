/**
 * Comparisons used by the providers' `diff`. A value not known yet (during a preview) never
 * compares equal, so the change shows as pending until it is known.
 *
 * @packageDocumentation
 */
import { UNKNOWN, unknownPaths } from "./inputChecks";

/** True when `a` and `b` hold the same strings, in any order, and neither holds an unknown. */
export function sameSet(a: readonly string[], b: readonly string[]): boolean {
  if (a.includes(UNKNOWN) || b.includes(UNKNOWN)) return false;
  if (!Array.isArray(a) || !Array.isArray(b)) return false;
  const sa = [...a].sort();
  const sb = [...b].sort();
  return sa.length === sb.length && sa.every((v, i) => v === sb[i]);
}

/** True when `a` and `b` hold the same strings in the same order, and neither holds an unknown. */
export function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.includes(UNKNOWN) || b.includes(UNKNOWN)) return false;
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** Deep equality of JSON values; an unknown anywhere makes it false. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === UNKNOWN || b === UNKNOWN) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]))
    );
  }
  if (a && b && typeof a === "object" && typeof b === "object") {
    const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
    const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
    return (
      ka.length === kb.length &&
      ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
  }
  return a === b;
}

/** `value` without unknown entries (for lists that may hold outputs not known yet). */
export function withoutUnknown<T>(value: readonly T[]): T[] {
  return value.filter((v) => (v as unknown) !== UNKNOWN);
}

/** True when `value` is, or holds anywhere inside it, a value not known yet (a preview's unknown). */
export function hasUnknown(value: unknown): boolean {
  return unknownPaths(value).length > 0;
}

/**
 * The properties of `managed` whose new input differs from the old output: an input that is or
 * holds an unknown always counts as changed, and its comparison is not run (so it never sees a
 * sentinel string where it expects a list or an object).
 */
export function changedProperties<O, N>(
  managed: Record<string, (olds: O, news: N) => boolean>,
  olds: O,
  news: N,
): string[] {
  return Object.keys(managed).filter(
    (k) => hasUnknown((news as Record<string, unknown>)[k]) || !managed[k](olds, news),
  );
}

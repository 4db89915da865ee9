/**
 * Resource options that the providers must apply themselves, and the diff result both doors
 * build their answers from.
 *
 * The engine applies `replaceOnChanges` to the property names a provider's `diff` reports as
 * changed. The native door reports them (its server turns {@link ServiceDiffResult.diffs} into
 * the changed keys and the detailed diff). The dynamic door cannot: `@pulumi/pulumi`'s dynamic
 * provider host drops every field of a diff result but `changes`, `replaces` and
 * `deleteBeforeReplace`, and never sends the resource options to the provider. So the dynamic
 * door's resource classes hand the options to the provider as one extra input,
 * {@link RESOURCE_OPTIONS_INPUT}, which `diff` reads to turn changed properties into replacements.
 *
 * @packageDocumentation
 */
import type * as pulumi from "@pulumi/pulumi";

/**
 * The input under which the dynamic door's resource classes pass the resource options the
 * dynamic provider host does not forward (`__resourceOptions`: `{ replaceOnChanges, customTimeouts }`). Pulumi's
 * own inputs start with `__` too, so input checks and request bodies never see it.
 */
export const RESOURCE_OPTIONS_INPUT = "__resourceOptions";

/** The options carried in {@link RESOURCE_OPTIONS_INPUT}. */
export interface ForwardedOptions {
  /**
   * Property paths whose change replaces the resource (Pulumi's `replaceOnChanges`): a
   * property name (`description`), a path below one (`sources[*].type`, matched by its first
   * name), or `*` for every property.
   */
  replaceOnChanges?: string[];
  /**
   * Pulumi's `customTimeouts` as the program gave them (duration strings such as `"2s"`), read
   * by create, update and delete (timeouts.ts). The provider's create and update copy the
   * options into the outputs ({@link carryOptions}), since a delete sees only those.
   */
  customTimeouts?: { create?: string; update?: string; delete?: string };
}

/**
 * A provider's `diff` result with the names of the changed properties: what Pulumi's dynamic
 * `DiffResult` holds (`changes`, `replaces`, `stables`, `deleteBeforeReplace`) plus `diffs`, the
 * changed top-level properties (input names), which the native door answers as the changed keys
 * and the detailed diff.
 */
export interface ServiceDiffResult extends pulumi.dynamic.DiffResult {
  /** Names of the properties whose new input differs from the state (a superset of `replaces`). */
  diffs: string[];
}

/**
 * `result` with the forwarded options of `from` (inputs, or the state's outputs) copied into its
 * outputs, so that a later delete, which sees only the outputs, still has them; `result` itself
 * when `from` has none (always, on the native door).
 */
export function carryOptions<R extends { outs?: unknown }>(result: R, from: unknown): R {
  const options = (from as Record<string, unknown> | undefined)?.[RESOURCE_OPTIONS_INPUT];
  if (options === undefined) return result;
  return { ...result, outs: { ...(result.outs as object), [RESOURCE_OPTIONS_INPUT]: options } };
}

/** The options of {@link RESOURCE_OPTIONS_INPUT} in `inputs`, or none when it is absent or malformed. */
export function forwardedOptions(inputs: unknown): ForwardedOptions {
  const value = (inputs as Record<string, unknown> | undefined)?.[RESOURCE_OPTIONS_INPUT];
  if (!value || typeof value !== "object") return {};
  const { replaceOnChanges } = value as Record<string, unknown>;
  return Array.isArray(replaceOnChanges)
    ? { replaceOnChanges: replaceOnChanges.filter((p): p is string => typeof p === "string") }
    : {};
}

/**
 * True when a change of the top-level property `name` matches one of the `replaceOnChanges`
 * paths: `*`, the name itself, or a path whose first name it is (`name.x`, `name[0]`, `name[*].x`).
 */
export function replacesOnChange(name: string, paths: readonly string[]): boolean {
  return paths.some((p) => p === "*" || p.split(/[.[]/, 1)[0] === name);
}

/**
 * The diff result for the properties `changed`. `replaceAll` makes every change a replacement
 * (a resource that cannot be updated); otherwise only those named by the dynamic door's
 * forwarded `replaceOnChanges` (in `news`) replace, and the rest update in place.
 */
export function diffResult(
  changed: string[],
  news: unknown,
  options: { replaceAll?: boolean } = {},
): ServiceDiffResult {
  const paths = forwardedOptions(news).replaceOnChanges ?? [];
  const replaces = options.replaceAll ? changed : changed.filter((k) => replacesOnChange(k, paths));
  return {
    changes: changed.length > 0,
    diffs: changed,
    replaces,
    stables: ["uri", "createdAt"],
    deleteBeforeReplace: false,
  };
}

/**
 * Schema builders that are the service's rules: each sets the check that `safeParse` applies and
 * the JSON Schema the OpenAPI document shows, in one call, so that every limit is written once.
 * A failed check reports a zod issue whose `params.rule` names the rule (see {@link CheckRule});
 * `validate.ts` maps issues onto the service's error codes and messages.
 *
 * @packageDocumentation
 */
import { z } from "zod";
import {
  API_KEY_PATTERN,
  API_KEY_RULE,
  codePoints,
  isAbsoluteHttpUrl,
  isEventType,
  utf8Bytes,
} from "./limits";

/**
 * What a failed check of this module reports in its issue's `params`: the rule and its limit.
 * `event-type` is checked by the service after the body (error 238), not with it.
 */
export type CheckRule =
  | { rule: "chars"; max: number }
  | { rule: "bytes"; max: number }
  | { rule: "http-url" }
  | { rule: "api-key" }
  | { rule: "integer" }
  | { rule: "event-type" }
  | { rule: "min-items"; min: number }
  | { rule: "max-items"; max: number }
  | { rule: "unique"; what: string; key?: string; caseInsensitive?: boolean; first: number; value: string };

/** A string of at most `max` of a unit `length` counts: the check and its JSON Schema together. */
function limited(rule: "chars" | "bytes", max: number, length: (s: string) => number, meta: object) {
  const unit = rule === "chars" ? "characters" : "bytes";
  return z
    .string()
    .refine((s) => length(s) <= max, {
      message: `at most ${max} ${unit}`,
      params: { rule, max } satisfies CheckRule,
    })
    .meta({ "x-unit": unit, ...meta });
}

/** A string of at most `max` **characters** (Unicode code points; JSON Schema `maxLength` counts the same). */
export function chars(max: number) {
  return limited("chars", max, codePoints, {
    maxLength: max,
    description: `at most ${max} characters (Unicode code points)`,
  });
}

/** A string of at most `max` **bytes** of UTF-8 (`x-max-bytes` in JSON Schema, which has no keyword for it). */
export function bytes(max: number) {
  return limited("bytes", max, utf8Bytes, {
    "x-max-bytes": max,
    description: `at most ${max} bytes of UTF-8`,
  });
}

/**
 * A whole number of any size (`type: integer`); unlike zod's `.int()`, not limited to the range
 * of safe integers, as the service reads JSON numbers.
 */
export function integer() {
  return z
    .number()
    .refine(Number.isInteger, {
      message: "must be an integer",
      params: { rule: "integer" } satisfies CheckRule,
    })
    .meta({ type: "integer" });
}

/** A string that must not be empty (`minLength: 1`). */
export function filled() {
  return z.string().min(1);
}

/** An absolute `http` or `https` URL with a host (see `isAbsoluteHttpUrl`). */
export function httpUrl() {
  return z
    .string()
    .refine(isAbsoluteHttpUrl, {
      message: "must be an absolute http or https URL with a host",
      params: { rule: "http-url" } satisfies CheckRule,
    })
    .meta({ format: "uri", description: "absolute http(s) URL with a host" });
}

/**
 * An API key ({@link API_KEY_PATTERN}), a write-only secret: the message of a key that breaks the
 * rule states the rule and never quotes the key.
 */
export function apiKey() {
  return z
    .string()
    .refine((s) => API_KEY_PATTERN.test(s), {
      message: API_KEY_RULE,
      params: { rule: "api-key" } satisfies CheckRule,
    })
    .meta({
      pattern: API_KEY_PATTERN.source,
      writeOnly: true,
      description: "an API key: 1 to 512 characters of A-Z a-z 0-9 . _ ~ + / = -",
    });
}

/** An event type of the catalogue (`EVENT_TYPES`); the service checks it after the body (238). */
export function eventType() {
  return z.string().refine(isEventType, {
    message: "unknown event type",
    params: { rule: "event-type" } satisfies CheckRule,
  });
}

/** What the items of a {@link list} must not repeat. */
export interface Uniqueness {
  /** Member of each item compared (absent: the item itself). */
  key?: string;
  /** The compared thing in words, for messages, e.g. `event type`. */
  what: string;
  /** Compare lower-cased. */
  caseInsensitive?: boolean;
}

/** Limits of a {@link list}. */
export interface ListRules {
  min?: number;
  max?: number;
  unique?: Uniqueness;
}

const isArray = (payload: { value: unknown }) => Array.isArray(payload.value);

/**
 * A list of `element`s with at least `min` and at most `max` items (`minItems`, `maxItems`) whose
 * items do not repeat by `unique` (`uniqueItems: true`; each repeat is an issue at the repeated
 * item, e.g. `sources[2].type`). The sizes are checked even when an item is of the wrong type.
 */
export function list<T extends z.ZodType>(element: T, rules: ListRules) {
  const { min, max, unique } = rules;
  let schema = z.array(element);
  if (min !== undefined)
    schema = schema.refine((a) => a.length >= min, {
      message: `at least ${min} items`,
      params: { rule: "min-items", min } satisfies CheckRule,
      when: isArray,
    });
  if (max !== undefined)
    schema = schema.refine((a) => a.length <= max, {
      message: `at most ${max} items`,
      params: { rule: "max-items", max } satisfies CheckRule,
      when: isArray,
    });
  if (unique) schema = schema.superRefine((items, ctx) => repeats(items, unique, ctx));
  return schema.meta({
    ...(min !== undefined ? { minItems: min } : {}),
    ...(max !== undefined ? { maxItems: max } : {}),
    ...(unique ? { uniqueItems: true } : {}),
  });
}

function repeats(items: unknown[], unique: Uniqueness, ctx: z.RefinementCtx): void {
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    const raw = String(unique.key === undefined ? item : (item as Record<string, unknown>)[unique.key]);
    const value = unique.caseInsensitive ? raw.toLowerCase() : raw;
    const first = seen.get(value);
    if (first === undefined) return void seen.set(value, i);
    const params: CheckRule = { rule: "unique", ...unique, first, value };
    ctx.addIssue({
      code: "custom",
      path: unique.key === undefined ? [i] : [i, unique.key],
      params,
      message: `duplicate ${unique.what}`,
    });
  });
}

/**
 * Exactly one of `members`, e.g. a target's kind: a union of one object per member, with the
 * other members allowed only as `null`; strict (other keys rejected) unless `strict` is `false`,
 * as in a response schema. In `members`' order (the first key of each option is its member).
 */
export function exactlyOne<M extends Record<string, z.ZodType>>(members: M, strict = true): OneOf<M> {
  const names = Object.keys(members);
  const object = strict ? z.strictObject : z.object;
  const options = names.map((name) =>
    object({
      [name]: members[name],
      ...Object.fromEntries(names.filter((n) => n !== name).map((n) => [n, z.null().optional()])),
    }),
  );
  return z.union(options) as unknown as OneOf<M>;
}

/**
 * The type of an {@link exactlyOne} schema: its values have one member (the others, allowed as
 * `null` on input, are not part of the type).
 */
export type OneOf<M extends Record<string, z.ZodType>> = z.ZodType<
  { [K in keyof M]: { [P in K]: z.output<M[P]> } }[keyof M],
  { [K in keyof M]: { [P in K]: z.input<M[P]> } }[keyof M]
>;

/** The member of each option of a union built by {@link exactlyOne}, in order; `[]` for another schema. */
export function membersOf(schema: z.ZodType): string[] {
  if (!(schema instanceof z.ZodUnion)) return [];
  return (schema.options as z.ZodType[]).flatMap((o) =>
    o instanceof z.ZodObject ? [Object.keys(o.shape as object)[0]] : [],
  );
}

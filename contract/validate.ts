/**
 * Validation of a request body on the wire against a contract schema, in the order and with the
 * messages of the service (reference: docs/service-api.md § Errors):
 *
 * 1. unknown fields anywhere in the body → 214, the message lists the supported fields of the
 *    object in question (wire names: a camelCase key is unknown where the wire is snake_case);
 * 2. types, required fields, list sizes, string limits, duplicates → 215, the message names the
 *    field and the limit, e.g. `description: at most 255 characters, got 256`.
 *
 * The rules are read from the zod schemas themselves (types, optionality, list sizes, enums,
 * number bounds) and from their metadata (`x-max-chars`, `x-max-bytes`, `x-format`,
 * `x-unique`, `x-non-empty`). ID formats are not checked here: a body ID the service does not
 * know is its own error (223).
 *
 * @packageDocumentation
 */
import { z } from "zod";
import { codePoints, isAbsoluteHttpUrl, utf8Bytes } from "./limits";
import { camelToSnake } from "./wire";

/** The first problem of a request body: its service code (214 or 215) and message. */
export interface RequestIssue {
  code: 214 | 215;
  /** Wire path of the field, e.g. `sources[1].type` (`""` for the body itself). */
  field: string;
  /** The message of the error body, starting with the field, e.g. `metadata: at most 4096 bytes, got 4097`. */
  message: string;
}

/** What a list's items must not repeat (`x-unique` metadata). */
export interface UniqueRule {
  /** Member of each item compared (absent: the item itself). */
  key?: string;
  /** The compared thing in words, e.g. `event type`. */
  what: string;
  /** Compare lower-cased. */
  caseInsensitive?: boolean;
}

type Rule =
  | {
      kind: "string";
      nonEmpty: boolean;
      maxChars?: number;
      maxBytes?: number;
      oneOf?: string[];
      httpUrl: boolean;
    }
  | { kind: "number"; integer: boolean; min?: number; max?: number }
  | { kind: "array"; items: Rule; min?: number; max?: number; unique?: UniqueRule }
  | { kind: "object"; fields: [wire: string, rule: Rule, required: boolean][]; exactlyOne?: string[] };

const metaOf = (s: z.ZodType) => (z.globalRegistry.get(s) ?? {}) as Record<string, unknown>;
/** A schema's checks as zod defines them (`min_length`, `greater_than`, `number_format`, …). */
function limitsOf(s: z.ZodType): { minimum?: number; maximum?: number; integer: boolean } {
  const checks = (
    (s as unknown as { _zod: { def: { checks?: { _zod: { def: Record<string, unknown> } }[] } } })._zod.def
      .checks ?? []
  ).map((c) => c._zod.def);
  const out: { minimum?: number; maximum?: number; integer: boolean } = { integer: false };
  for (const c of checks) {
    if (c.check === "min_length") out.minimum = c.minimum as number;
    if (c.check === "max_length") out.maximum = c.maximum as number;
    if (c.check === "greater_than" && c.inclusive === true) out.minimum = c.value as number;
    if (c.check === "less_than" && c.inclusive === true) out.maximum = c.value as number;
    if (c.check === "number_format" && typeof c.format === "string" && /int/.test(c.format))
      out.integer = true;
  }
  return out;
}

/** The rule of a zod schema; `meta` carries metadata found on wrappers around it. */
function ruleOf(schema: z.ZodType, camel: boolean, meta: Record<string, unknown> = {}): Rule {
  const m = { ...meta, ...metaOf(schema) };
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) {
    return ruleOf(schema.unwrap() as z.ZodType, camel, m);
  }
  if (schema instanceof z.ZodString) {
    const { minimum } = limitsOf(schema);
    return {
      kind: "string",
      nonEmpty: m["x-non-empty"] === true || (minimum !== undefined && minimum > 0),
      maxChars: m["x-max-chars"] as number | undefined,
      maxBytes: m["x-max-bytes"] as number | undefined,
      httpUrl: m["x-format"] === "http-url",
    };
  }
  if (schema instanceof z.ZodEnum) {
    return { kind: "string", nonEmpty: false, oneOf: schema.options.map(String), httpUrl: false };
  }
  if (schema instanceof z.ZodNumber) {
    const { minimum, maximum, integer } = limitsOf(schema);
    return { kind: "number", integer, min: minimum, max: maximum };
  }
  if (schema instanceof z.ZodArray) {
    const { minimum, maximum } = limitsOf(schema);
    return {
      kind: "array",
      items: ruleOf(schema.element as z.ZodType, camel),
      min: minimum,
      max: maximum,
      unique: m["x-unique"] as UniqueRule | undefined,
    };
  }
  if (schema instanceof z.ZodObject) {
    const name = (k: string) => (camel ? k : camelToSnake(k));
    return {
      kind: "object",
      fields: Object.entries(schema.shape as Record<string, z.ZodType>).map(([k, v]) => [
        name(k),
        ruleOf(v, camel),
        !(v instanceof z.ZodOptional),
      ]),
    };
  }
  if (schema instanceof z.ZodUnion) {
    // A union of one-member objects: exactly one of those members (a `null` one counts as absent).
    const fields: [string, Rule, boolean][] = [];
    for (const option of schema.options as z.ZodType[]) {
      const rule = ruleOf(option, camel);
      if (rule.kind !== "object" || rule.fields.length !== 1)
        throw new Error("unsupported union in a request schema");
      fields.push([rule.fields[0][0], rule.fields[0][1], false]);
    }
    return { kind: "object", fields, exactlyOne: fields.map(([k]) => k) };
  }
  throw new Error(`unsupported schema in a request: ${schema.constructor.name}`);
}

const rules = new WeakMap<z.ZodType, Rule>();

/** The (cached) rule of a request schema. */
function compiled(schema: z.ZodType, camel: boolean): Rule {
  let rule = rules.get(schema);
  if (!rule) rules.set(schema, (rule = ruleOf(schema, camel)));
  return rule;
}

class Stop {
  constructor(readonly issue: RequestIssue) {}
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const child = (parent: string, key: string) => (parent === "" ? key : `${parent}.${key}`);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const bad = (field: string, message: string) =>
  new Stop({ code: 215, field, message: `${field}: ${message}` });

function checkUnknown(value: unknown, rule: Rule, path: string): void {
  if (rule.kind === "object" && isPlainObject(value)) {
    const names = rule.fields.map(([k]) => k);
    for (const key of Object.keys(value)) {
      if (!names.includes(key)) {
        const where = path === "" ? "the request body" : path;
        const field = child(path, key);
        throw new Stop({
          code: 214,
          field,
          message: `unknown field "${field}"; supported fields of ${where}: ${names.join(", ")}`,
        });
      }
    }
    for (const [key, sub] of rule.fields) {
      const v = value[key];
      if (v !== undefined && v !== null) checkUnknown(v, sub, child(path, key));
    }
  } else if (rule.kind === "array" && Array.isArray(value)) {
    value.forEach((item, i) => checkUnknown(item, rule.items, `${path}[${i}]`));
  }
}

function checkString(value: unknown, rule: Extract<Rule, { kind: "string" }>, path: string): void {
  if (typeof value !== "string") throw bad(path, "must be a string");
  if (rule.nonEmpty && value === "") throw bad(path, "must not be empty");
  if (rule.maxChars !== undefined && codePoints(value) > rule.maxChars)
    throw bad(path, `at most ${rule.maxChars} characters, got ${codePoints(value)}`);
  if (rule.maxBytes !== undefined && utf8Bytes(value) > rule.maxBytes)
    throw bad(path, `at most ${rule.maxBytes} bytes, got ${utf8Bytes(value)}`);
  if (rule.oneOf && !rule.oneOf.includes(value))
    throw bad(
      path,
      `must be one of ${rule.oneOf.map((s) => `"${s}"`).join(", ")}, got ${JSON.stringify(value)}`,
    );
  if (rule.httpUrl && !isAbsoluteHttpUrl(value))
    throw bad(path, `must be an absolute http or https URL with a host, got ${JSON.stringify(value)}`);
}

function checkTypes(value: unknown, rule: Rule, path: string): void {
  switch (rule.kind) {
    case "string":
      return checkString(value, rule, path);
    case "number": {
      if (typeof value !== "number" || !Number.isFinite(value)) throw bad(path, "must be a number");
      if (rule.integer && !Number.isInteger(value)) throw bad(path, `must be an integer, got ${value}`);
      if (rule.min !== undefined && value < rule.min) throw bad(path, `at least ${rule.min}, got ${value}`);
      if (rule.max !== undefined && value > rule.max) throw bad(path, `at most ${rule.max}, got ${value}`);
      return;
    }
    case "array": {
      if (!Array.isArray(value)) throw bad(path, "must be a list");
      if (rule.min !== undefined && value.length < rule.min)
        throw bad(path, `at least ${plural(rule.min, "item")}, got ${value.length}`);
      if (rule.max !== undefined && value.length > rule.max)
        throw bad(path, `at most ${plural(rule.max, "item")}, got ${value.length}`);
      value.forEach((item, i) => checkTypes(item, rule.items, `${path}[${i}]`));
      const unique = rule.unique;
      if (unique) {
        const seen = new Map<string, number>();
        value.forEach((item, i) => {
          const raw = String(unique.key === undefined ? item : (item as Record<string, unknown>)[unique.key]);
          const key = unique.caseInsensitive ? raw.toLowerCase() : raw;
          const first = seen.get(key);
          if (first !== undefined) {
            const suffix = unique.key === undefined ? "" : `.${unique.key}`;
            throw bad(
              `${path}[${i}]${suffix}`,
              `duplicate ${unique.what} ${JSON.stringify(key)} (also at ${path}[${first}])`,
            );
          }
          seen.set(key, i);
        });
      }
      return;
    }
    case "object": {
      if (!isPlainObject(value)) throw bad(path, "must be an object");
      if (rule.exactlyOne) {
        const present = rule.exactlyOne.filter((k) => value[k] !== undefined && value[k] !== null);
        if (present.length !== 1) {
          throw bad(
            path,
            `exactly one of ${rule.exactlyOne.join(", ")} is required, got ${present.length === 0 ? "none" : present.join(", ")}`,
          );
        }
      }
      for (const [key, sub, required] of rule.fields) {
        const v = value[key];
        const p = child(path, key);
        const nullable = rule.exactlyOne?.includes(key) ?? false;
        if (v === undefined || (nullable && v === null)) {
          if (required) throw bad(p, "required");
          continue;
        }
        checkTypes(v, sub, p);
      }
      return;
    }
  }
}

/**
 * The first problem of a request body (parsed JSON, wire names) against a contract schema:
 * unknown fields first (214), then types and limits (215); `undefined` when the body is valid.
 * With `camelCaseOnWire`, the wire names are the schema's own (the emulator's fault settings).
 *
 * @throws Error when the schema uses a construct this validator does not know (a contract bug).
 */
export function validateRequest(
  schema: z.ZodType,
  body: Record<string, unknown>,
  camelCaseOnWire = false,
): RequestIssue | undefined {
  const rule = compiled(schema, camelCaseOnWire);
  try {
    checkUnknown(body, rule, "");
    checkTypes(body, rule, "");
    return undefined;
  } catch (e) {
    if (e instanceof Stop) return e.issue;
    throw e;
  }
}

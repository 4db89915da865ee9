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
 * `x-unique`, `x-non-empty`). The service checks ID formats and the event-type catalogue after
 * the body (codes 223 and 238); {@link requestIssues} can check them too, as the client does.
 *
 * {@link validateRequest} stops at the first problem, as the service does; {@link requestIssues}
 * collects every problem, as the client reports them before anything is sent.
 *
 * @packageDocumentation
 */
import { z } from "zod";
import { codePoints, isAbsoluteHttpUrl, isWellFormedId, utf8Bytes } from "./limits";
import { ID_KIND_NAMES } from "./resources";
import { metaOf } from "./common";
import { camelToSnake } from "./wire";

/** A problem of a request body: its service code (214, 215, or 238 for an event type) and message. */
export interface RequestIssue {
  code: 214 | 215 | 238;
  /** Wire path of the field, e.g. `sources[1].type` (`""` for the body itself). */
  field: string;
  /** The message of the error body, starting with the field, e.g. `metadata: at most 4096 bytes, got 4097`. */
  message: string;
  /** The problem without the field, e.g. `at most 4096 bytes, got 4097` or `unknown field`. */
  problem: string;
  /** For an unknown field (214): the fields the object supports. */
  supported?: string[];
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
      /** The ID prefix of an ID (`x-id-prefix`). */
      idPrefix?: string;
      /** A catalogue the value must be in (`enum` metadata: the event types). */
      catalogue?: string[];
    }
  | { kind: "number"; integer: boolean; min?: number; max?: number }
  | { kind: "array"; items: Rule; min?: number; max?: number; unique?: UniqueRule }
  | { kind: "object"; fields: [wire: string, rule: Rule, required: boolean][]; exactlyOne?: string[] };

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
      idPrefix: m["x-id-prefix"] as string | undefined,
      catalogue: m.enum as string[] | undefined,
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

/** Compiled rules, by schema: wire names (`false`) and camelCase names (`true`). */
const rules = { false: new WeakMap<z.ZodType, Rule>(), true: new WeakMap<z.ZodType, Rule>() };

/** The (cached) rule of a request schema. */
function compiled(schema: z.ZodType, camel: boolean): Rule {
  const cache = rules[`${camel}`];
  let rule = cache.get(schema);
  if (!rule) cache.set(schema, (rule = ruleOf(schema, camel)));
  return rule;
}

/** Options of {@link requestIssues}. */
export interface IssueOptions {
  /** The body's keys are the schema's own camelCase names (the client's inputs, the fault settings). */
  camelCase?: boolean;
  /** Also check ID formats (`x-id-prefix`) and catalogues (event types), as the service does after the body. */
  references?: boolean;
}

class Stop {}

/** Where the checks put what they find: every issue, or only the first (then it stops the walk). */
class Found {
  readonly issues: RequestIssue[] = [];
  constructor(
    readonly all: boolean,
    readonly references: boolean,
    /** Messages may quote the values they reject (the client's own inputs; never the service's). */
    readonly quote: boolean,
  ) {}
  /** `, got "<value>"` when values may be quoted, else nothing. */
  got(value: unknown): string {
    return this.quote ? `, got ${JSON.stringify(value)}` : "";
  }
  add(issue: RequestIssue): void {
    this.issues.push(issue);
    if (!this.all) throw new Stop();
  }
  bad(field: string, problem: string, code: 215 | 238 = 215): void {
    this.add({ code, field, problem, message: `${field}: ${problem}` });
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const child = (parent: string, key: string) => (parent === "" ? key : `${parent}.${key}`);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function checkUnknown(found: Found, value: unknown, rule: Rule, path: string): void {
  if (rule.kind === "object" && isPlainObject(value)) {
    const names = rule.fields.map(([k]) => k);
    for (const key of Object.keys(value)) {
      if (!names.includes(key) && !(found.all && value[key] === undefined)) {
        const where = path === "" ? "the request body" : path;
        const field = child(path, key === "" && found.all ? '""' : key);
        found.add({
          code: 214,
          field,
          problem: "unknown field",
          supported: names,
          message: `unknown field "${field}"; supported fields of ${where}: ${names.join(", ")}`,
        });
      }
    }
    for (const [key, sub] of rule.fields) {
      const v = value[key];
      if (v !== undefined && v !== null) checkUnknown(found, v, sub, child(path, key));
    }
  } else if (rule.kind === "array" && Array.isArray(value)) {
    value.forEach((item, i) => checkUnknown(found, item, rule.items, `${path}[${i}]`));
  }
}

function checkString(
  found: Found,
  value: unknown,
  rule: Extract<Rule, { kind: "string" }>,
  path: string,
): void {
  if (typeof value !== "string") return found.bad(path, "must be a string");
  if (rule.nonEmpty && value === "") return found.bad(path, "must not be empty");
  if (rule.maxChars !== undefined && codePoints(value) > rule.maxChars)
    return found.bad(path, `at most ${rule.maxChars} characters, got ${codePoints(value)}`);
  if (rule.maxBytes !== undefined && utf8Bytes(value) > rule.maxBytes)
    return found.bad(path, `at most ${rule.maxBytes} bytes, got ${utf8Bytes(value)}`);
  if (rule.oneOf && !rule.oneOf.includes(value))
    return found.bad(path, `must be one of ${rule.oneOf.map((s) => `"${s}"`).join(", ")}${found.got(value)}`);
  if (rule.httpUrl && !isAbsoluteHttpUrl(value))
    return found.bad(path, `must be an absolute http or https URL with a host${found.got(value)}`);
  if (!found.references) return;
  if (rule.catalogue && !rule.catalogue.includes(value))
    return found.bad(path, `unknown event type${found.quote ? ` ${JSON.stringify(value)}` : ""}`, 238);
  if (rule.idPrefix !== undefined && !isWellFormedId(value, rule.idPrefix))
    found.bad(
      path,
      `must be ${ID_KIND_NAMES[rule.idPrefix] ?? "an"} ID (${rule.idPrefix}…)${found.got(value)}`,
    );
}

function checkArray(
  found: Found,
  value: unknown,
  rule: Extract<Rule, { kind: "array" }>,
  path: string,
): void {
  if (!Array.isArray(value)) return found.bad(path, "must be a list");
  if (rule.min !== undefined && value.length < rule.min)
    return found.bad(path, `at least ${plural(rule.min, "item")}, got ${value.length}`);
  if (rule.max !== undefined && value.length > rule.max)
    return found.bad(path, `at most ${plural(rule.max, "item")}, got ${value.length}`);
  const before = found.issues.length;
  value.forEach((item, i) => checkTypes(found, item, rule.items, `${path}[${i}]`));
  const unique = rule.unique;
  // Duplicates are looked for once every item has the right type (an unknown event type, 238, still allows it).
  if (!unique || found.issues.slice(before).some((i) => i.code !== 238)) return;
  const seen = new Map<string, number>();
  value.forEach((item, i) => {
    const raw = String(unique.key === undefined ? item : (item as Record<string, unknown>)[unique.key]);
    const key = unique.caseInsensitive ? raw.toLowerCase() : raw;
    const first = seen.get(key);
    if (first !== undefined) {
      const suffix = unique.key === undefined ? "" : `.${unique.key}`;
      found.bad(
        `${path}[${i}]${suffix}`,
        `duplicate ${unique.what}${found.quote ? ` ${JSON.stringify(key)}` : ""} (also at ${path}[${first}])`,
      );
    } else seen.set(key, i);
  });
}

function checkObject(
  found: Found,
  value: unknown,
  rule: Extract<Rule, { kind: "object" }>,
  path: string,
): void {
  if (!isPlainObject(value)) return found.bad(path, "must be an object");
  if (rule.exactlyOne) {
    const present = rule.exactlyOne.filter((k) => value[k] !== undefined && value[k] !== null);
    if (present.length !== 1) {
      return found.bad(
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
      if (required) found.bad(p, "required");
      continue;
    }
    checkTypes(found, v, sub, p);
  }
}

function checkTypes(found: Found, value: unknown, rule: Rule, path: string): void {
  switch (rule.kind) {
    case "string":
      return checkString(found, value, rule, path);
    case "number": {
      if (typeof value !== "number" || !Number.isFinite(value)) return found.bad(path, "must be a number");
      if (rule.integer && !Number.isInteger(value))
        return found.bad(path, `must be an integer, got ${value}`);
      if (rule.min !== undefined && value < rule.min)
        return found.bad(path, `at least ${rule.min}, got ${value}`);
      if (rule.max !== undefined && value > rule.max)
        return found.bad(path, `at most ${rule.max}, got ${value}`);
      return;
    }
    case "array":
      return checkArray(found, value, rule, path);
    case "object":
      return checkObject(found, value, rule, path);
  }
}

function run(
  found: Found,
  schema: z.ZodType,
  body: Record<string, unknown>,
  camelCase: boolean,
): RequestIssue[] {
  const rule = compiled(schema, camelCase);
  try {
    checkUnknown(found, body, rule, "");
    checkTypes(found, body, rule, "");
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
  }
  return found.issues;
}

/**
 * The first problem of a request body (parsed JSON, wire names) against a contract schema:
 * unknown fields first (214), then types and limits (215); `undefined` when the body is valid.
 * With `camelCaseOnWire`, the wire names are the schema's own (the emulator's fault settings).
 *
 * The message names the field and the rule but quotes none of the body's values (the service's
 * answers echo nothing a body may hide a secret in); `quoteValues` adds them, as the service's
 * former messages did (`…, got "xml"`).
 *
 * @throws Error when the schema uses a construct this validator does not know (a contract bug).
 */
export function validateRequest(
  schema: z.ZodType,
  body: Record<string, unknown>,
  camelCaseOnWire = false,
  quoteValues = false,
): RequestIssue | undefined {
  return run(new Found(false, false, quoteValues), schema, body, camelCaseOnWire)[0];
}

/**
 * Every problem of a request body against a contract schema, in the order {@link validateRequest}
 * meets them (unknown fields, then each field in the schema's order); a field whose value is
 * wrong is not looked into further. `[]` when the body is valid. Keys that hold `undefined` count
 * as left out. Field paths use the body's own names (`options.camelCase`). Messages quote the
 * rejected values (the caller's own inputs, checked before anything is sent; write-only secrets
 * are only ever checked for being non-empty strings, so they are never quoted).
 *
 * @throws Error when the schema uses a construct this validator does not know (a contract bug).
 */
export function requestIssues(
  schema: z.ZodType,
  body: Record<string, unknown>,
  options: IssueOptions = {},
): RequestIssue[] {
  return run(new Found(true, options.references ?? false, true), schema, body, options.camelCase ?? false);
}

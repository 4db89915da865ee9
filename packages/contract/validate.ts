/**
 * Validation of a request body on the wire against a contract schema: the schema's own
 * `safeParse`, its zod issues mapped onto the service's codes, messages and order (reference:
 * docs/service-api.md § Errors):
 *
 * 1. unknown fields anywhere in the body → 214, the message lists the supported fields of the
 *    object in question (wire names: a camelCase key is unknown where the wire is snake_case);
 * 2. types, required fields, list sizes, string limits, duplicates → 215, the message names the
 *    field and the limit, e.g. `description: at most 255 characters, got 256`.
 *
 * The service checks ID formats and the event-type catalogue after the body (codes 223 and 238);
 * the schemas hold them too, and {@link requestIssues} reports them when asked, as the client does.
 * A field is looked into no further than its first problem: a list of the wrong size is not
 * looked into, nor checked for duplicates while an item is wrong.
 *
 * {@link validateRequest} gives the first problem, as the service does; {@link requestIssues}
 * gives every problem, as the client reports them before anything is sent.
 *
 * @packageDocumentation
 */
import { z } from "zod";
import { membersOf, type CheckRule } from "./checks";
import { metaOf } from "./common";
import { codePoints, utf8Bytes } from "./limits";
import { ID_KIND_NAMES } from "./descriptors";
import { camelToSnake, snakeToCamel } from "./wire";

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

/** Options of {@link requestIssues}. */
export interface IssueOptions {
  /** The body's keys are the schema's own camelCase names (the client's inputs, the fault settings). */
  camelCase?: boolean;
  /** Also check ID formats and the event-type catalogue, as the service does after the body. */
  references?: boolean;
}

type Path = (string | number)[];
type Obj = Record<string, unknown>;
type Issue = z.core.$ZodIssue;

/** Prefix of a wire key that names no field in schema form (e.g. `destinationIds` on the wire). */
const FOREIGN = "\u0000";

const isPlainObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** A copy of `value` with its keys in the schema's form: wire keys renamed to camelCase. */
function schemaKeys(value: unknown, wire: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => schemaKeys(v, wire));
  if (!isPlainObject(value)) return value;
  const out: Obj = {};
  for (const key of Object.keys(value)) {
    const camel = snakeToCamel(key);
    const name = !wire ? key : camelToSnake(camel) === key ? camel : FOREIGN + key;
    // Assigning "__proto__" would set the prototype; define it as an ordinary own key instead.
    Object.defineProperty(out, name, {
      value: schemaKeys(value[key], wire),
      enumerable: true,
      writable: true,
    });
  }
  return out;
}

/**
 * The value at `path` of `value`, or `undefined`: a path of a zod issue, whose every step but the
 * last is an object or list of the body (the last may be a key the body leaves out).
 */
function at(value: unknown, path: Path): unknown {
  return path.reduce<unknown>((v, c) => (v as Obj)[c], value);
}

/** The schema of the value at `path` of a value of `schema` (public API: shape, element, options). */
function schemaAt(schema: z.ZodType, path: Path): z.ZodType | undefined {
  let s: z.ZodType | undefined = schema;
  for (const c of path) {
    while (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType;
    if (s instanceof z.ZodArray) s = s.element as z.ZodType;
    else if (s instanceof z.ZodObject) s = (s.shape as Record<string, z.ZodType>)[c];
    else if (s instanceof z.ZodUnion) {
      const option = (s.options as z.ZodType[]).find(
        (o) => o instanceof z.ZodObject && Object.keys(o.shape as object)[0] === c,
      ) as z.ZodObject | undefined;
      s = option ? (option.shape as Record<string, z.ZodType>)[c] : undefined;
    } else return undefined;
  }
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType;
  return s;
}

/** What the issues of one parse say, in zod's order (a field's problems before its object's unknown keys). */
type Finding =
  | { kind: "unknown"; at: Path; key: string }
  | { kind: "issue"; path: Path; issue: Issue }
  | { kind: "exactlyOne"; path: Path; present: string[] };

/**
 * The findings of `issues` (of a value `root` of `schema`): an `exactlyOne` union's issue becomes
 * the unknown keys of its object, the issues of each member present, and whether exactly one is.
 */
function findings(issues: readonly Issue[], schema: z.ZodType, root: unknown, prefix: Path = []): Finding[] {
  const out: Finding[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path.map((c) => c as string | number)];
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) out.push({ kind: "unknown", at: path, key });
    } else if (issue.code === "invalid_union" && isPlainObject(at(root, path))) {
      const value = at(root, path) as Obj;
      const members = membersOf(schemaAt(schema, path) as z.ZodType);
      const own = issue.errors[0] ?? [];
      out.push(
        ...findings(
          own.filter((i) => i.code === "unrecognized_keys" && i.path.length === 0),
          schema,
          root,
          path,
        ),
      );
      const present = members.filter((m) => value[m] !== undefined && value[m] !== null);
      for (const m of present) {
        const mine = (issue.errors[members.indexOf(m)] ?? []).filter((i) => i.path[0] === m);
        out.push(...findings(mine, schema, root, path));
      }
      if (present.length !== 1) out.push({ kind: "exactlyOne", path, present });
    } else out.push({ kind: "issue", path, issue });
  }
  return out;
}

/** How issues are written: wire names or camelCase, values quoted or not. */
interface Writer {
  wire: boolean;
  quote: boolean;
  all: boolean;
}

function fieldOf(path: Path, w: Writer): string {
  let out = "";
  for (const c of path) {
    if (typeof c === "number") out += `[${c}]`;
    else {
      const name = c.startsWith(FOREIGN) ? c.slice(1) : w.wire ? camelToSnake(c) : c;
      out += out === "" ? name : `.${name}`;
    }
  }
  return out;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const startsWith = (path: Path, prefix: Path) =>
  prefix.length <= path.length && prefix.every((c, i) => path[i] === c);

/** The unknown keys, in the order of a walk that reports an object's own keys before its fields'. */
function unknownIssues(found: Finding[], schema: z.ZodType, root: unknown, w: Writer): RequestIssue[] {
  const unknown = found.flatMap((f, index) => (f.kind === "unknown" ? [{ ...f, index }] : []));
  // zod reports the keys of one field together, and an object's own unknown keys after its
  // fields': an object's keys go before those inside it, any other two keep zod's order.
  const inside = (a: Path, b: Path) => a.length > b.length && startsWith(a, b);
  const before = (a: (typeof unknown)[number], b: (typeof unknown)[number]): number =>
    inside(b.at, a.at) ? -1 : inside(a.at, b.at) ? 1 : a.index - b.index;
  return unknown
    .sort(before)
    .filter((u) => !(w.all && at(root, [...u.at, u.key]) === undefined))
    .map((u) => {
      const object = schemaAt(schema, u.at) as z.ZodType;
      const names = object instanceof z.ZodObject ? Object.keys(object.shape as object) : membersOf(object);
      const supported = names.map((n) => fieldOf([n], w));
      const where = u.at.length === 0 ? "the request body" : fieldOf(u.at, w);
      const key = u.key === "" && w.all ? '""' : fieldOf([u.key], w);
      const field = u.at.length === 0 ? key : `${where}.${key}`;
      return {
        code: 214 as const,
        field,
        problem: "unknown field",
        supported,
        message: `unknown field "${field}"; supported fields of ${where}: ${supported.join(", ")}`,
      };
    });
}

/** The problem an issue states about `value`, with its code; `undefined` for a reference not asked for. */
function problemOf(
  issue: Issue,
  value: unknown,
  schema: z.ZodType | undefined,
  w: Writer,
  references: boolean,
): { code: 215 | 238; problem: string } | undefined {
  const got = (v: unknown) => (w.quote ? `, got ${JSON.stringify(v)}` : "");
  const bad = (problem: string) => ({ code: 215 as const, problem });
  switch (issue.code) {
    case "invalid_type":
      if (value === undefined) return bad("required");
      // zod expects "int" of a number only (another value is expected to be a "number").
      if (issue.expected === "int") return bad(`must be an integer, got ${String(value)}`);
      return bad(
        { array: "must be a list", object: "must be an object" }[issue.expected as string] ??
          `must be a ${issue.expected}`,
      );
    case "invalid_union":
      return bad(value === undefined ? "required" : "must be an object");
    case "invalid_value":
      if (typeof value !== "string") return bad("must be a string");
      return bad(`must be one of ${issue.values.map((s) => `"${String(s)}"`).join(", ")}${got(value)}`);
    case "too_small":
      if (issue.origin === "string") return bad("must not be empty");
      return bad(`at least ${String(issue.minimum)}, got ${String(value)}`);
    case "too_big":
      return bad(`at most ${String(issue.maximum)}, got ${String(value)}`);
    case "invalid_format": {
      if (!references) return undefined;
      const prefix = metaOf(schema ?? z.never())["x-id-prefix"] as string;
      return bad(`must be ${ID_KIND_NAMES[prefix] ?? "an"} ID (${prefix}…)${got(value)}`);
    }
    case "custom": {
      const rule = issue.params as CheckRule;
      const s = String(value);
      const n = Array.isArray(value) ? value.length : 0;
      switch (rule.rule) {
        case "chars":
          return bad(`at most ${rule.max} characters, got ${codePoints(s)}`);
        case "bytes":
          return bad(`at most ${rule.max} bytes, got ${utf8Bytes(s)}`);
        case "integer":
          return bad(`must be an integer, got ${String(value)}`);
        case "http-url":
          return bad(`must be an absolute http or https URL with a host${got(value)}`);
        case "api-key":
          return bad(issue.message); // never quoted: a key is a secret
        case "event-type":
          return references
            ? { code: 238, problem: `unknown event type ${JSON.stringify(value)}` } // asked by requestIssues, which quotes
            : undefined;
        case "min-items":
          return bad(`at least ${plural(rule.min, "item")}, got ${n}`);
        case "max-items":
          return bad(`at most ${plural(rule.max, "item")}, got ${n}`);
        case "unique":
          return bad(`duplicate ${rule.what}${w.quote ? ` ${JSON.stringify(rule.value)}` : ""}`);
      }
    }
  }
  return bad(issue.message);
}

/** The problems of the types and limits, in the schema's order (see the module comment). */
function typeIssues(
  found: Finding[],
  schema: z.ZodType,
  root: unknown,
  w: Writer,
  refs: boolean,
): RequestIssue[] {
  /** `whole`: a problem of the whole value (its kind, its size), which stops looking inside it. */
  const kept: { path: Path; code: 215 | 238; problem: string; rule?: CheckRule; whole?: boolean }[] = [];
  for (const f of found) {
    if (f.kind === "unknown") continue;
    if (f.kind === "exactlyOne") {
      const members = membersOf(schemaAt(schema, f.path) as z.ZodType).map((m) => fieldOf([m], w));
      const present = f.present.length === 0 ? "none" : f.present.map((m) => fieldOf([m], w)).join(", ");
      kept.push({
        path: f.path,
        code: 215,
        problem: `exactly one of ${members.join(", ")} is required, got ${present}`,
        whole: true,
      });
      continue;
    }
    const p = problemOf(f.issue, at(root, f.path), schemaAt(schema, f.path), w, refs);
    const rule = f.issue.code === "custom" ? (f.issue.params as CheckRule) : undefined;
    const whole = rule?.rule === "min-items" || rule?.rule === "max-items";
    if (p) kept.push({ path: f.path, ...p, rule, whole });
  }
  // A field is looked into no further than its first problem: a second problem of it goes, and
  // a problem of the whole value takes the place of those found inside it.
  const out: typeof kept = [];
  for (const k of kept) {
    if (k.rule?.rule === "unique") {
      out.push(k); // judged below, once every problem of its list is known
      continue;
    }
    const settled = (o: (typeof kept)[number]) =>
      o.rule?.rule !== "unique" &&
      startsWith(k.path, o.path) &&
      (o.whole === true || o.path.length === k.path.length);
    if (out.some(settled)) continue;
    if (k.whole)
      for (let i = out.length - 1; i >= 0; i--) if (startsWith(out[i].path, k.path)) out.splice(i, 1);
    out.push(k);
  }
  return out.flatMap((k) => {
    if (k.rule?.rule === "unique") {
      const list = k.path.slice(0, k.rule.key === undefined ? -1 : -2);
      // Duplicates count once every item has the right type (an unknown event type still lets them).
      if (out.some((o) => o.rule?.rule !== "unique" && o.code !== 238 && startsWith(o.path, list))) return [];
      const field = fieldOf(k.path, w);
      const problem = `${k.problem} (also at ${fieldOf([...list, k.rule.first], w)})`;
      return [{ code: k.code, field, problem, message: `${field}: ${problem}` }];
    }
    const field = fieldOf(k.path, w);
    // A rule of the whole body (e.g. the fault shares' sum) is stated without a field.
    const message = field === "" ? k.problem : `${field}: ${k.problem}`;
    return [{ code: k.code, field, problem: k.problem, message }];
  });
}

function run(schema: z.ZodType, body: Obj, w: Writer, references: boolean): RequestIssue[] {
  const root = schemaKeys(body, w.wire);
  const result = schema.safeParse(root);
  if (result.success) return [];
  const found = findings(result.error.issues, schema, root);
  return [...unknownIssues(found, schema, root, w), ...typeIssues(found, schema, root, w, references)];
}

/**
 * The first problem of a request body (parsed JSON, wire names) against a contract schema:
 * unknown fields first (214), then types and limits (215); `undefined` when the body is valid.
 * With `camelCaseOnWire`, the wire names are the schema's own (the emulator's fault settings).
 *
 * The message names the field and the rule but quotes none of the body's values (the service's
 * answers echo nothing a body may hide a secret in); `quoteValues` adds them, as the service's
 * former messages did (`…, got "xml"`).
 */
export function validateRequest(
  schema: z.ZodType,
  body: Record<string, unknown>,
  camelCaseOnWire = false,
  quoteValues = false,
): RequestIssue | undefined {
  return run(schema, body, { wire: !camelCaseOnWire, quote: quoteValues, all: false }, false)[0];
}

/**
 * Every problem of a request body against a contract schema, in the order {@link validateRequest}
 * meets them (unknown fields, then each field in the schema's order); a field whose value is
 * wrong is not looked into further. `[]` when the body is valid. Keys that hold `undefined` count
 * as left out. Field paths use the body's own names (`options.camelCase`). Messages quote the
 * rejected values (the caller's own inputs, checked before anything is sent; write-only secrets
 * are only ever checked for being non-empty strings, so they are never quoted).
 */
export function requestIssues(
  schema: z.ZodType,
  body: Record<string, unknown>,
  options: IssueOptions = {},
): RequestIssue[] {
  const w = { wire: !(options.camelCase ?? false), quote: true, all: true };
  return run(schema, body, w, options.references ?? false);
}

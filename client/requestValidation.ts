/**
 * Client-side validation: the contract's request schemas checked before anything is sent, with
 * every problem found (the service stops at the first). The rules are the contract's own (see
 * `contract/validate.ts`), the same the emulator enforces, plus the checks the service makes
 * after the body: ID formats and the event-type catalogue. Reference: docs/service-api.md
 * § Abuse reports, § Event subscriptions, § Event destinations.
 *
 * These functions never throw, whatever the input (it is typed `unknown` on purpose, so the
 * provider can check user input before any request). An empty array means "valid". Field names
 * in issues are the TypeScript (camelCase) names: `destinationIds[0]`,
 * `target.firehose.auth.creds.awsSecretAccessKey`; every message starts with its field.
 *
 * @packageDocumentation
 */
import type { z } from "zod";
import type { ValidationIssue } from "./errors";
import { ID_KIND_NAMES, PAGE_LIMIT_MAX, PAGE_LIMIT_MIN } from "service-contract";
import { requestIssues } from "service-contract";
import {
  AbuseReportCreate,
  EventDestinationCreate,
  EventDestinationUpdate,
  EventSubscriptionCreate,
  EventSubscriptionUpdate,
} from "service-contract";

export type { ValidationIssue } from "./errors";

const issue = (field: string, problem: string): ValidationIssue => ({
  field,
  message: `${field}: ${problem}`,
});

/**
 * A short description of a value for messages, never the value whole: a string quoted and cut at
 * 60 characters, a number, boolean or `null` as written, else its type (`array`, `object`). Never
 * throws, whatever the value's size or depth.
 */
export function describeValue(value: unknown): string {
  if (typeof value === "string") {
    const cut = [...value].length > 60 ? `${[...value].slice(0, 60).join("")}…` : value;
    return JSON.stringify(cut);
  }
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/**
 * Every issue of `input` against a contract request schema, in camelCase names. An input that
 * is not an object, or cannot be read (a hostile getter, a Proxy), is one issue of `input`.
 */
function check(schema: z.ZodType, input: unknown): ValidationIssue[] {
  return safely("input", () => {
    if (typeof input !== "object" || input === null || Array.isArray(input))
      return [issue("input", `must be an object, got ${describeValue(input)}`)];
    const options = { camelCase: true, references: true };
    const body = input as Record<string, unknown>;
    const issues = () =>
      requestIssues(schema, body, options).map((i) =>
        i.code === 214
          ? issue(i.field, `unknown field (expected one of ${(i.supported ?? []).join(", ")})`)
          : { field: i.field, message: i.message },
      );
    try {
      return issues();
    } catch (err) {
      // A value too deep (or too hostile) to walk: name the fields it comes from, one by one.
      const unreadable = Object.keys(body).filter(
        (k) => safely(k, () => (requestIssues(schema, { [k]: body[k] }, options), [])).length > 0,
      );
      // None throws alone (a value that fails only once, or only beside the others): name them all.
      const named = unreadable.length > 0 ? unreadable : Object.keys(body);
      if (named.length === 0) throw err;
      // A key with no name is written `""`, as the walk names it when it can.
      return named.map((k) =>
        issue(k === "" ? '""' : k, `could not be read (${err instanceof Error ? err.name : typeof err})`),
      );
    }
  });
}

/** Runs `list`, turning an exception (a hostile getter, a revoked Proxy) into one issue of `field`. */
function safely(field: string, list: () => ValidationIssue[]): ValidationIssue[] {
  try {
    return list();
  } catch (err) {
    return [issue(field, `could not be read (${err instanceof Error ? err.name : typeof err})`)];
  }
}

/**
 * Checks `input` against a contract request schema (a resource descriptor's `schemas.create` or
 * `schemas.update`): every issue, in camelCase names, ID formats and event types included.
 * Never throws.
 */
export function validateBody(schema: z.ZodType, input: unknown): ValidationIssue[] {
  return check(schema, input);
}

/**
 * Checks an {@link AbuseReportCreate}: `urls` required, 1 to 100 absolute `http`/`https` URLs
 * with a host; `metadata` optional, at most 4096 **bytes** of UTF-8. Never throws.
 */
export function validateAbuseReportCreate(input: unknown): ValidationIssue[] {
  return check(AbuseReportCreate, input);
}

/**
 * Checks an {@link EventSubscriptionCreate}: `sources` required, 1 to 10 entries `{type}` of
 * known event types without duplicates; `destinationIds` required, 1 to 10 distinct
 * well-formed `ed_…` IDs; `metadata` ≤ 4096 **characters**; `description` ≤ 255
 * **characters** (code points). Never throws.
 */
export function validateEventSubscriptionCreate(input: unknown): ValidationIssue[] {
  return check(EventSubscriptionCreate, input);
}

/**
 * Checks an {@link EventSubscriptionUpdate}: every field optional; the fields present follow
 * the rules of {@link validateEventSubscriptionCreate}. Never throws.
 */
export function validateEventSubscriptionUpdate(input: unknown): ValidationIssue[] {
  return check(EventSubscriptionUpdate, input);
}

/**
 * Checks an {@link EventDestinationCreate}: `target` required with exactly one kind (and, for
 * AWS kinds, exactly one of `auth.role` / `auth.creds`), every field of the kind a non-empty
 * string (Datadog's optional `ddtags`, `service`, `ddsite` any string); `format` optional, only
 * `"json"`; `metadata` ≤ 4096 **bytes**; `description` ≤ 255 **characters**. Never throws.
 */
export function validateEventDestinationCreate(input: unknown): ValidationIssue[] {
  return check(EventDestinationCreate, input);
}

/**
 * Checks an {@link EventDestinationUpdate}: every field optional; the fields present follow the
 * rules of {@link validateEventDestinationCreate} (a `target` sent replaces the whole target).
 * Never throws.
 */
export function validateEventDestinationUpdate(input: unknown): ValidationIssue[] {
  return check(EventDestinationUpdate, input);
}

/**
 * Checks an ID used in a path: a string with the right prefix (`abrp_`, `esb_`, `ed_`); the
 * service answers 400 / 227 to a wrong prefix. The rest is left to the service (an unknown ID
 * answers 404). Never throws.
 */
export function validateId(id: unknown, prefix: string): ValidationIssue[] {
  return safely("id", () => {
    if (typeof id !== "string")
      return [issue("id", id === undefined ? "required" : `must be a string, got ${describeValue(id)}`)];
    if (id.startsWith(prefix) && id.length > prefix.length) return [];
    return [
      issue("id", `must be ${ID_KIND_NAMES[prefix] ?? "an"} ID (${prefix}…), got ${describeValue(id)}`),
    ];
  });
}

/** Checks the parameters of a list: `limit` optional, an integer from 1 to 100. Never throws. */
export function validateListParams(input: unknown): ValidationIssue[] {
  return safely("params", () => {
    if (input === undefined) return [];
    if (typeof input !== "object" || input === null || Array.isArray(input))
      return [issue("params", `must be an object, got ${describeValue(input)}`)];
    const params = input as Record<string, unknown>;
    const unknown = Object.keys(params).filter((k) => k !== "limit" && params[k] !== undefined);
    const out = unknown.map((k) => issue(k, "unknown field (expected one of limit)"));
    const limit = params.limit;
    const valid =
      typeof limit === "number" &&
      Number.isInteger(limit) &&
      limit >= PAGE_LIMIT_MIN &&
      limit <= PAGE_LIMIT_MAX;
    if (limit !== undefined && !valid)
      out.push(
        issue(
          "limit",
          `must be an integer from ${PAGE_LIMIT_MIN} to ${PAGE_LIMIT_MAX}, got ${describeValue(limit)}`,
        ),
      );
    return out;
  });
}

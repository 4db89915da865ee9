/**
 * Client-side validation: pure functions that check an input against the same rules as the
 * service (docs/service-api.md § Abuse reports, § Event subscriptions, § Event destinations) and return
 * every problem found. They never throw, whatever the input (it is typed `unknown` on purpose,
 * so the provider can check user input before any request). An empty array means "valid".
 *
 * Units follow the service reference exactly: abuse-report and destination `metadata` are counted in
 * **bytes** of UTF-8; subscription `metadata` and every `description` in **characters**
 * (Unicode code points). Limits come from `limits.ts`, shared with the emulator.
 *
 * Field names in issues are the TypeScript (camelCase) names: `destinationIds[0]`,
 * `target.firehose.auth.creds.awsSecretAccessKey`.
 *
 * @packageDocumentation
 */
import type { ValidationIssue } from "./errors";
import {
  ABUSE_REPORT_URLS_MAX,
  ABUSE_REPORT_URLS_MIN,
  DESCRIPTION_MAX_CHARS,
  DESTINATION_IDS_MAX,
  DESTINATION_IDS_MIN,
  ID_PREFIX,
  METADATA_MAX_BYTES,
  METADATA_MAX_CHARS,
  PAGE_LIMIT_MAX,
  PAGE_LIMIT_MIN,
  SOURCES_MAX,
  SOURCES_MIN,
  codePoints,
  isAbsoluteHttpUrl,
  isEventType,
  isWellFormedId,
  utf8Bytes,
} from "../contract/limits";
import {
  AbuseReportCreate,
  AwsCredentials,
  AwsRole,
  AzureLogsIngestionTarget,
  CloudwatchLogsTarget,
  DESTINATION_TARGET_KINDS,
  DatadogTarget,
  EventDestinationCreate,
  EventSourceReplace,
  EventSubscriptionCreate,
  FirehoseTarget,
  KinesisTarget,
} from "../contract";

export type { ValidationIssue } from "./errors";

type Obj = Record<string, unknown>;

/** Collects issues; every check reports through it so that the message always starts with the field. */
class Issues {
  readonly list: ValidationIssue[] = [];
  add(field: string, problem: string): void {
    this.list.push({ field, message: `${field}: ${problem}` });
  }
}

/** Short description of a value for messages: strings quoted (and cut at 60 characters), else the type. */
function show(value: unknown): string {
  if (typeof value === "string") {
    const cut = [...value].length > 60 ? `${[...value].slice(0, 60).join("")}…` : value;
    return JSON.stringify(cut);
  }
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  if (Array.isArray(value)) return "array";
  return typeof value;
}

const join = (parent: string, key: string) => (parent ? `${parent}.${key}` : key);

/**
 * Checks that `value` is a plain object whose present keys (those not `undefined`) are all in
 * `known`; reports unknown keys like the service (400 / 214). Returns the object or `undefined`.
 * `keyPrefix` is the path its keys are reported under (`""` for the top-level input).
 */
function object(
  issues: Issues,
  field: string,
  value: unknown,
  known: readonly string[],
  keyPrefix = field,
): Obj | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    issues.add(field, `must be an object, got ${show(value)}`);
    return undefined;
  }
  const obj = value as Obj;
  for (const key of Object.keys(obj)) {
    if (obj[key] !== undefined && !known.includes(key)) {
      // A key with no name is shown as "" so that the message still starts with a field.
      issues.add(
        join(keyPrefix, key === "" ? '""' : key),
        `unknown field (expected one of ${known.join(", ")})`,
      );
    }
  }
  return obj;
}

function present(obj: Obj, key: string): boolean {
  return obj[key] !== undefined;
}

function string(issues: Issues, field: string, value: unknown): value is string {
  if (typeof value === "string") return true;
  issues.add(field, value === undefined ? "required" : `must be a string, got ${show(value)}`);
  return false;
}

function maxBytes(issues: Issues, field: string, value: unknown, max: number): void {
  if (!string(issues, field, value)) return;
  const n = utf8Bytes(value);
  if (n > max) issues.add(field, `at most ${max} bytes, got ${n}`);
}

function maxChars(issues: Issues, field: string, value: unknown, max: number): void {
  if (!string(issues, field, value)) return;
  const n = codePoints(value);
  if (n > max) issues.add(field, `at most ${max} characters, got ${n}`);
}

/** Checks an array and its length; returns it (even when the length is wrong) or `undefined`. */
function array(
  issues: Issues,
  field: string,
  value: unknown,
  min: number,
  max: number,
): unknown[] | undefined {
  if (!Array.isArray(value)) {
    issues.add(field, value === undefined ? "required" : `must be an array, got ${show(value)}`);
    return undefined;
  }
  const items = (n: number) => `${n} item${n === 1 ? "" : "s"}`;
  if (value.length < min) issues.add(field, `at least ${items(min)}, got ${value.length}`);
  if (value.length > max) issues.add(field, `at most ${items(max)}, got ${value.length}`);
  return value;
}

function keysOf(schema: { shape: object }): string[] {
  return Object.keys(schema.shape);
}

/** Runs `check` and turns an unexpected exception (a hostile getter, a Proxy…) into an issue. */
function safely(check: (issues: Issues) => void): ValidationIssue[] {
  const issues = new Issues();
  try {
    check(issues);
  } catch (err) {
    issues.add("input", `could not be read (${err instanceof Error ? err.name : typeof err})`);
  }
  return issues.list;
}

// ---------------------------------------------------------------------------------------------
// Abuse reports
// ---------------------------------------------------------------------------------------------

/**
 * Checks an {@link AbuseReportCreate}: `urls` required, 1 to 100 absolute `http`/`https` URLs
 * with a host; `metadata` optional, at most 4096 **bytes** of UTF-8.
 * Reference: docs/service-api.md § Abuse reports. Never throws.
 */
export function validateAbuseReportCreate(input: unknown): ValidationIssue[] {
  return safely((issues) => {
    const obj = object(issues, "input", input, keysOf(AbuseReportCreate), "");
    if (!obj) return;
    const urls = array(issues, "urls", obj.urls, ABUSE_REPORT_URLS_MIN, ABUSE_REPORT_URLS_MAX);
    urls?.forEach((url, i) => {
      const field = `urls[${i}]`;
      if (string(issues, field, url) && !isAbsoluteHttpUrl(url)) {
        issues.add(field, `must be an absolute http or https URL with a host, got ${show(url)}`);
      }
    });
    if (present(obj, "metadata")) maxBytes(issues, "metadata", obj.metadata, METADATA_MAX_BYTES);
  });
}

// ---------------------------------------------------------------------------------------------
// Event subscriptions
// ---------------------------------------------------------------------------------------------

function checkSources(issues: Issues, value: unknown): void {
  const sources = array(issues, "sources", value, SOURCES_MIN, SOURCES_MAX);
  const seen = new Set<string>();
  sources?.forEach((source, i) => {
    const field = `sources[${i}]`;
    const obj = object(issues, field, source, keysOf(EventSourceReplace));
    if (!obj || !string(issues, `${field}.type`, obj.type)) return;
    if (!isEventType(obj.type)) issues.add(`${field}.type`, `unknown event type ${show(obj.type)}`);
    if (seen.has(obj.type)) issues.add("sources", `duplicate type ${show(obj.type)}`);
    seen.add(obj.type);
  });
}

function checkDestinationIds(issues: Issues, value: unknown): void {
  const ids = array(issues, "destinationIds", value, DESTINATION_IDS_MIN, DESTINATION_IDS_MAX);
  const seen = new Set<string>();
  ids?.forEach((id, i) => {
    const field = `destinationIds[${i}]`;
    if (!string(issues, field, id)) return;
    if (!isWellFormedId(id, ID_PREFIX.eventDestination)) {
      issues.add(field, `must be an event destination ID (${ID_PREFIX.eventDestination}…), got ${show(id)}`);
    }
    if (seen.has(id)) issues.add("destinationIds", `duplicate ID ${show(id)}`);
    seen.add(id);
  });
}

function checkSubscription(issues: Issues, input: unknown, partial: boolean): void {
  const obj = object(issues, "input", input, keysOf(EventSubscriptionCreate), "");
  if (!obj) return;
  if (!partial || present(obj, "sources")) checkSources(issues, obj.sources);
  if (!partial || present(obj, "destinationIds")) checkDestinationIds(issues, obj.destinationIds);
  if (present(obj, "description")) maxChars(issues, "description", obj.description, DESCRIPTION_MAX_CHARS);
  if (present(obj, "metadata")) maxChars(issues, "metadata", obj.metadata, METADATA_MAX_CHARS);
}

/**
 * Checks an {@link EventSubscriptionCreate}: `sources` required, 1 to 10 entries `{type}` of
 * known event types without duplicates; `destinationIds` required, 1 to 10 distinct
 * well-formed `ed_…` IDs; `metadata` ≤ 4096 **characters**; `description` ≤ 255 **characters** (code points).
 * Reference: docs/service-api.md § Event subscriptions. Never throws.
 */
export function validateEventSubscriptionCreate(input: unknown): ValidationIssue[] {
  return safely((issues) => checkSubscription(issues, input, false));
}

/**
 * Checks an `EventSubscriptionUpdate`: every field optional; the fields present follow the
 * rules of {@link validateEventSubscriptionCreate}. Never throws.
 */
export function validateEventSubscriptionUpdate(input: unknown): ValidationIssue[] {
  return safely((issues) => checkSubscription(issues, input, true));
}

// ---------------------------------------------------------------------------------------------
// Event destinations
// ---------------------------------------------------------------------------------------------

/**
 * Checks that `value` is an object with exactly one of the keys of `kinds` and returns that key,
 * or reports the problem and returns `undefined`. A kind set to `null` counts as absent, as on
 * the service.
 */
function exactlyOne(
  issues: Issues,
  field: string,
  value: unknown,
  kinds: readonly string[],
): string | undefined {
  const obj = object(issues, field, value, kinds);
  if (!obj) return undefined;
  const chosen = kinds.filter((k) => obj[k] !== undefined && obj[k] !== null);
  if (chosen.length === 1) return chosen[0];
  issues.add(field, `must have exactly one of ${kinds.join(", ")}, got ${chosen.join(", ") || "none"}`);
  return undefined;
}

/** A required string of a target, which the service also requires to be non-empty. */
function nonEmpty(issues: Issues, field: string, value: unknown): void {
  if (string(issues, field, value) && value === "") issues.add(field, "must not be empty");
}

/**
 * Checks an object whose members are all strings: required ones non-empty, `optional` ones
 * (when present) any string.
 */
function strings(
  issues: Issues,
  field: string,
  value: unknown,
  schema: { shape: object },
  optional: string[] = [],
) {
  const obj = object(issues, field, value, keysOf(schema));
  if (!obj) return;
  for (const key of keysOf(schema)) {
    if (!optional.includes(key)) nonEmpty(issues, join(field, key), obj[key]);
    else if (present(obj, key)) string(issues, join(field, key), obj[key]);
  }
}

const AUTH_KINDS = ["role", "creds"] as const;

function checkAwsTarget(issues: Issues, field: string, value: unknown, schema: { shape: object }): void {
  const keys = keysOf(schema);
  const obj = object(issues, field, value, keys);
  if (!obj) return;
  for (const key of keys) {
    if (key !== "auth") nonEmpty(issues, join(field, key), obj[key]);
  }
  const authField = join(field, "auth");
  if (!present(obj, "auth")) return issues.add(authField, "required");
  const kind = exactlyOne(issues, authField, obj.auth, AUTH_KINDS);
  const auth = obj.auth as Obj;
  if (kind === "role") strings(issues, join(authField, "role"), auth.role, AwsRole);
  if (kind === "creds") strings(issues, join(authField, "creds"), auth.creds, AwsCredentials);
}

function checkTarget(issues: Issues, value: unknown): void {
  if (value === undefined) return issues.add("target", "required");
  const kind = exactlyOne(issues, "target", value, DESTINATION_TARGET_KINDS);
  if (!kind) return;
  const field = `target.${kind}`;
  const inner = (value as Obj)[kind];
  switch (kind) {
    case "firehose":
      return checkAwsTarget(issues, field, inner, FirehoseTarget);
    case "kinesis":
      return checkAwsTarget(issues, field, inner, KinesisTarget);
    case "cloudwatchLogs":
      return checkAwsTarget(issues, field, inner, CloudwatchLogsTarget);
    case "datadog":
      strings(issues, field, inner, DatadogTarget, ["ddtags", "service", "ddsite"]);
      return;
    case "azureLogsIngestion":
      strings(issues, field, inner, AzureLogsIngestionTarget);
      return;
  }
}

function checkDestination(issues: Issues, input: unknown, partial: boolean): void {
  const obj = object(issues, "input", input, keysOf(EventDestinationCreate), "");
  if (!obj) return;
  if (present(obj, "format") && obj.format !== "json")
    issues.add("format", `must be "json", got ${show(obj.format)}`);
  if (!partial || present(obj, "target")) checkTarget(issues, obj.target);
  if (present(obj, "description")) maxChars(issues, "description", obj.description, DESCRIPTION_MAX_CHARS);
  if (present(obj, "metadata")) maxBytes(issues, "metadata", obj.metadata, METADATA_MAX_BYTES);
}

/**
 * Checks an {@link EventDestinationCreate}: `target` required with exactly one kind (and, for
 * AWS kinds, exactly one of `auth.role` / `auth.creds`), every field of the kind a non-empty
 * string (Datadog's optional `ddtags`, `service`, `ddsite` any string);
 * `format` optional, only `"json"`; `metadata` ≤ 4096 **bytes**; `description` ≤ 255
 * **characters**. Reference: docs/service-api.md § Event destinations. Never throws.
 */
export function validateEventDestinationCreate(input: unknown): ValidationIssue[] {
  return safely((issues) => checkDestination(issues, input, false));
}

/**
 * Checks an `EventDestinationUpdate`: every field optional; the fields present follow the rules
 * of {@link validateEventDestinationCreate} (a `target` sent replaces the whole target). Never throws.
 */
export function validateEventDestinationUpdate(input: unknown): ValidationIssue[] {
  return safely((issues) => checkDestination(issues, input, true));
}

// ---------------------------------------------------------------------------------------------
// Path IDs and list parameters
// ---------------------------------------------------------------------------------------------

const KIND_NAMES: Record<string, string> = {
  [ID_PREFIX.abuseReport]: "an abuse report",
  [ID_PREFIX.eventSubscription]: "an event subscription",
  [ID_PREFIX.eventDestination]: "an event destination",
};

/**
 * Checks an ID used in a path: a string with the right prefix (`abrp_`, `esb_`, `ed_`); the
 * service answers 400 / 227 to a wrong prefix. The rest is left to the service (an unknown ID
 * answers 404). Never throws.
 */
export function validateId(id: unknown, prefix: string): ValidationIssue[] {
  return safely((issues) => {
    if (!string(issues, "id", id)) return;
    if (!id.startsWith(prefix) || id.length === prefix.length) {
      issues.add("id", `must be ${KIND_NAMES[prefix] ?? "a"} ID (${prefix}…), got ${show(id)}`);
    }
  });
}

/** Checks the parameters of a list: `limit` optional, an integer from 1 to 100. Never throws. */
export function validateListParams(input: unknown): ValidationIssue[] {
  return safely((issues) => {
    if (input === undefined) return;
    const obj = object(issues, "params", input, ["limit"], "");
    if (!obj || !present(obj, "limit")) return;
    const limit = obj.limit;
    if (
      typeof limit !== "number" ||
      !Number.isInteger(limit) ||
      limit < PAGE_LIMIT_MIN ||
      limit > PAGE_LIMIT_MAX
    ) {
      issues.add(
        "limit",
        `must be an integer from ${PAGE_LIMIT_MIN} to ${PAGE_LIMIT_MAX}, got ${show(limit)}`,
      );
    }
  });
}

/**
 * The emulator's former hand-written request validator, frozen here as the oracle of the
 * differential test (test/contract/validate.test.ts): the contract's validation must give the same
 * first error for every body. The emulator itself validates with the contract.
 *
 * Former description: request validation of the emulator, in the order a real server applies it
 * (docs/service-api.md § Errors):
 *
 * 1. {@link parseJsonObject}: the body is JSON and a JSON object, else 213;
 * 2. {@link validate} pass 1: no unknown field anywhere in the body, else 214 (the message lists
 *    the supported fields of the object in question);
 * 3. {@link validate} pass 2: types, required fields, list lengths, string limits and other shape
 *    rules, else 215 (the message names the field and the limit, e.g.
 *    `description: at most 255 characters, got 256`).
 *
 * Event types (238), path ID prefixes (227) and existence (404 / 223) are checked after this by
 * the handlers and the store.
 *
 * Schemas are plain data built once at module load; nothing is compiled per request.
 *
 * @packageDocumentation
 */
import {
  ABUSE_REPORT_URLS_MAX,
  ABUSE_REPORT_URLS_MIN,
  codePoints,
  DESCRIPTION_MAX_CHARS,
  DESTINATION_IDS_MAX,
  DESTINATION_IDS_MIN,
  isAbsoluteHttpUrl,
  METADATA_MAX_BYTES,
  METADATA_MAX_CHARS,
  SOURCES_MAX,
  SOURCES_MIN,
  utf8Bytes,
} from "service-contract";
import { ServiceError } from "../../packages/emulator/errors";

/** A string field. Lengths in characters are Unicode code points; lengths in bytes are UTF-8. */
export interface StringSchema {
  kind: "string";
  /** Reject `""`. */
  nonEmpty?: boolean;
  /** Most Unicode code points. */
  maxChars?: number;
  /** Most bytes of UTF-8. */
  maxBytes?: number;
  /** Allowed values. */
  oneOf?: readonly string[];
  /** Extra rule: returns a message suffix when the value is bad (e.g. "must be an absolute URL"). */
  check?: (value: string) => string | undefined;
}

/** A JSON number field. */
export interface NumberSchema {
  kind: "number";
  /** Reject fractions. */
  integer?: boolean;
  /** Smallest allowed value (inclusive). */
  min?: number;
  /** Largest allowed value (inclusive). */
  max?: number;
}

/** A list field. */
export interface ArraySchema {
  kind: "array";
  /** Schema of every item. */
  items: Schema;
  /** Fewest items. */
  min?: number;
  /** Most items. */
  max?: number;
  /** Items with the same key are duplicates (215); `what` names the key in the message. */
  uniqueBy?: { key: (item: unknown) => string; what: string; suffix?: string };
}

/** An object field; `fields` lists every supported member in the order they are checked. */
export interface ObjectSchema {
  kind: "object";
  fields: Readonly<Record<string, { schema: Schema; required?: boolean }>>;
  /** Exactly one of these members must be present; a member set to `null` counts as absent. */
  exactlyOne?: readonly string[];
}

/** Any schema. */
export type Schema = StringSchema | NumberSchema | ArraySchema | ObjectSchema;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function bad(path: string, message: string): ServiceError {
  return new ServiceError(215, `${path}: ${message}`);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export { parseJsonObject } from "../../packages/emulator/body";

function childPath(parent: string, key: string): string {
  return parent === "" ? key : `${parent}.${key}`;
}

function checkUnknown(value: unknown, schema: Schema, path: string): void {
  if (schema.kind === "object" && isPlainObject(value)) {
    for (const key of Object.keys(value)) {
      if (!Object.prototype.hasOwnProperty.call(schema.fields, key)) {
        const where = path === "" ? "the request body" : path;
        throw new ServiceError(
          214,
          `unknown field "${childPath(path, key)}"; supported fields of ${where}: ${Object.keys(schema.fields).join(", ")}`,
        );
      }
    }
    for (const [key, field] of Object.entries(schema.fields)) {
      const v = value[key];
      if (v !== undefined && v !== null) checkUnknown(v, field.schema, childPath(path, key));
    }
  } else if (schema.kind === "array" && Array.isArray(value)) {
    value.forEach((item, i) => checkUnknown(item, schema.items, `${path}[${i}]`));
  }
}

function checkTypes(value: unknown, schema: Schema, path: string): void {
  switch (schema.kind) {
    case "string": {
      if (typeof value !== "string") throw bad(path, "must be a string");
      if (schema.nonEmpty && value === "") throw bad(path, "must not be empty");
      if (schema.maxChars !== undefined) {
        const n = codePoints(value);
        if (n > schema.maxChars) throw bad(path, `at most ${schema.maxChars} characters, got ${n}`);
      }
      if (schema.maxBytes !== undefined) {
        const n = utf8Bytes(value);
        if (n > schema.maxBytes) throw bad(path, `at most ${schema.maxBytes} bytes, got ${n}`);
      }
      if (schema.oneOf && !schema.oneOf.includes(value)) {
        throw bad(
          path,
          `must be one of ${schema.oneOf.map((s) => `"${s}"`).join(", ")}, got ${JSON.stringify(value)}`,
        );
      }
      const problem = schema.check?.(value);
      if (problem !== undefined) throw bad(path, problem);
      return;
    }
    case "number": {
      if (typeof value !== "number" || !Number.isFinite(value)) throw bad(path, "must be a number");
      if (schema.integer && !Number.isInteger(value)) throw bad(path, `must be an integer, got ${value}`);
      if (schema.min !== undefined && value < schema.min)
        throw bad(path, `at least ${schema.min}, got ${value}`);
      if (schema.max !== undefined && value > schema.max)
        throw bad(path, `at most ${schema.max}, got ${value}`);
      return;
    }
    case "array": {
      if (!Array.isArray(value)) throw bad(path, "must be a list");
      if (schema.min !== undefined && value.length < schema.min) {
        throw bad(path, `at least ${plural(schema.min, "item")}, got ${value.length}`);
      }
      if (schema.max !== undefined && value.length > schema.max) {
        throw bad(path, `at most ${plural(schema.max, "item")}, got ${value.length}`);
      }
      value.forEach((item, i) => checkTypes(item, schema.items, `${path}[${i}]`));
      if (schema.uniqueBy) {
        const seen = new Map<string, number>();
        value.forEach((item, i) => {
          const key = schema.uniqueBy!.key(item);
          const first = seen.get(key);
          if (first !== undefined) {
            throw bad(
              `${path}[${i}]${schema.uniqueBy!.suffix ?? ""}`,
              `duplicate ${schema.uniqueBy!.what} ${JSON.stringify(key)} (also at ${path}[${first}])`,
            );
          }
          seen.set(key, i);
        });
      }
      return;
    }
    case "object": {
      if (!isPlainObject(value)) throw bad(path, "must be an object");
      if (schema.exactlyOne) {
        const present = schema.exactlyOne.filter((k) => value[k] !== undefined && value[k] !== null);
        if (present.length !== 1) {
          throw bad(
            path,
            `exactly one of ${schema.exactlyOne.join(", ")} is required, got ${present.length === 0 ? "none" : present.join(", ")}`,
          );
        }
      }
      for (const [key, field] of Object.entries(schema.fields)) {
        const v = value[key];
        const p = childPath(path, key);
        const nullable = schema.exactlyOne?.includes(key) ?? false;
        if (v === undefined || (nullable && v === null)) {
          if (field.required) throw bad(p, "required");
          continue;
        }
        checkTypes(v, field.schema, p);
      }
      return;
    }
  }
}

/**
 * Validates a parsed body against an object schema: first unknown fields (214), then types,
 * required fields and limits (215). Returns the body typed as `T` (the caller's promise that `T`
 * matches the schema).
 *
 * @throws ServiceError 214 or 215.
 */
export function validate<T>(body: Record<string, unknown>, schema: ObjectSchema): T {
  checkUnknown(body, schema, "");
  checkTypes(body, schema, "");
  return body as T;
}

// ---------------------------------------------------------------------------------------------
// Schemas of the public API.

const str = (extra: Omit<StringSchema, "kind"> = {}): StringSchema => ({ kind: "string", ...extra });
const required = (schema: Schema) => ({ schema, required: true });
const optional = (schema: Schema) => ({ schema });

/** Makes every top-level field optional and adds an optional `id` (PATCH bodies). */
function patchOf(schema: ObjectSchema): ObjectSchema {
  const fields: Record<string, { schema: Schema; required?: boolean }> = { id: optional(str()) };
  for (const [k, f] of Object.entries(schema.fields)) fields[k] = optional(f.schema);
  return { kind: "object", fields };
}

/**
 * The problem with an abuse report URL, or `undefined` when it is an absolute `http` or `https`
 * URL with a host, written out in full (the shared rule {@link isAbsoluteHttpUrl} of
 * contract/limits.ts).
 */
export function urlProblem(s: string): string | undefined {
  if (isAbsoluteHttpUrl(s)) return undefined;
  return `must be an absolute http or https URL with a host, got ${JSON.stringify(s)}`;
}

/** `POST /abuse_reports` body. `metadata` is limited in **bytes**. */
export const createAbuseReportSchema: ObjectSchema = {
  kind: "object",
  fields: {
    urls: required({
      kind: "array",
      min: ABUSE_REPORT_URLS_MIN,
      max: ABUSE_REPORT_URLS_MAX,
      items: str({ check: urlProblem }),
    }),
    metadata: optional(str({ maxBytes: METADATA_MAX_BYTES })),
  },
};

/** Validated `POST /abuse_reports` body. */
export interface CreateAbuseReportInput {
  urls: string[];
  metadata?: string;
}

/** `POST /event_subscriptions` body. `metadata` and `description` are limited in **characters**. */
export const createSubscriptionSchema: ObjectSchema = {
  kind: "object",
  fields: {
    metadata: optional(str({ maxChars: METADATA_MAX_CHARS })),
    description: optional(str({ maxChars: DESCRIPTION_MAX_CHARS })),
    sources: required({
      kind: "array",
      min: SOURCES_MIN,
      max: SOURCES_MAX,
      items: { kind: "object", fields: { type: required(str()) } },
      uniqueBy: { key: (item) => (item as { type: string }).type, what: "event type", suffix: ".type" },
    }),
    destination_ids: required({
      kind: "array",
      min: DESTINATION_IDS_MIN,
      max: DESTINATION_IDS_MAX,
      items: str(),
      uniqueBy: { key: (item) => item as string, what: "destination ID" },
    }),
  },
};

/** `PATCH /event_subscriptions/{id}` body: every field optional, plus `id`. */
export const updateSubscriptionSchema: ObjectSchema = patchOf(createSubscriptionSchema);

/** Validated `POST /event_subscriptions` body. */
export interface CreateSubscriptionInput {
  metadata?: string;
  description?: string;
  sources: { type: string }[];
  destination_ids: string[];
}

/** Validated `PATCH /event_subscriptions/{id}` body. */
export type UpdateSubscriptionInput = Partial<CreateSubscriptionInput> & { id?: string };

const awsAuthSchema: ObjectSchema = {
  kind: "object",
  exactlyOne: ["role", "creds"],
  fields: {
    role: optional({ kind: "object", fields: { role_arn: required(str({ nonEmpty: true })) } }),
    creds: optional({
      kind: "object",
      fields: {
        aws_access_key_id: required(str({ nonEmpty: true })),
        aws_secret_access_key: required(str({ nonEmpty: true })),
      },
    }),
  },
};

/** The five target kinds of an event destination, in the order of the service reference. */
export const TARGET_KINDS = [
  "firehose",
  "kinesis",
  "cloudwatch_logs",
  "datadog",
  "azure_logs_ingestion",
] as const;

/** `target` of an event destination: exactly one kind (docs/service-api.md § Event destinations). */
export const targetSchema: ObjectSchema = {
  kind: "object",
  exactlyOne: TARGET_KINDS,
  fields: {
    firehose: optional({
      kind: "object",
      fields: { auth: required(awsAuthSchema), delivery_stream_arn: required(str({ nonEmpty: true })) },
    }),
    kinesis: optional({
      kind: "object",
      fields: { auth: required(awsAuthSchema), stream_arn: required(str({ nonEmpty: true })) },
    }),
    cloudwatch_logs: optional({
      kind: "object",
      fields: { auth: required(awsAuthSchema), log_group_arn: required(str({ nonEmpty: true })) },
    }),
    datadog: optional({
      kind: "object",
      fields: {
        api_key: required(str({ nonEmpty: true })),
        ddtags: optional(str()),
        service: optional(str()),
        ddsite: optional(str()),
      },
    }),
    azure_logs_ingestion: optional({
      kind: "object",
      fields: {
        tenant_id: required(str({ nonEmpty: true })),
        client_id: required(str({ nonEmpty: true })),
        client_secret: required(str({ nonEmpty: true })),
        logs_ingestion_uri: required(str({ nonEmpty: true })),
        data_collection_rule_id: required(str({ nonEmpty: true })),
        data_collection_stream_name: required(str({ nonEmpty: true })),
      },
    }),
  },
};

/** `POST /event_destinations` body. `metadata` in **bytes**, `description` in **characters**. */
export const createDestinationSchema: ObjectSchema = {
  kind: "object",
  fields: {
    metadata: optional(str({ maxBytes: METADATA_MAX_BYTES })),
    description: optional(str({ maxChars: DESCRIPTION_MAX_CHARS })),
    format: optional(str({ oneOf: ["json"] })),
    target: required(targetSchema),
  },
};

/** `PATCH /event_destinations/{id}` body: every field optional, plus `id`. */
export const updateDestinationSchema: ObjectSchema = patchOf(createDestinationSchema);

/** AWS credentials of a firehose, kinesis or cloudwatch_logs target: exactly one of the two. */
export interface AwsAuth {
  role?: { role_arn: string } | null;
  creds?: { aws_access_key_id: string; aws_secret_access_key: string } | null;
}

/** A destination target as sent by a client: exactly one member is a non-null object. */
export interface TargetInput {
  firehose?: { auth: AwsAuth; delivery_stream_arn: string } | null;
  kinesis?: { auth: AwsAuth; stream_arn: string } | null;
  cloudwatch_logs?: { auth: AwsAuth; log_group_arn: string } | null;
  datadog?: { api_key: string; ddtags?: string; service?: string; ddsite?: string } | null;
  azure_logs_ingestion?: {
    tenant_id: string;
    client_id: string;
    client_secret: string;
    logs_ingestion_uri: string;
    data_collection_rule_id: string;
    data_collection_stream_name: string;
  } | null;
}

/** Validated `POST /event_destinations` body. */
export interface CreateDestinationInput {
  metadata?: string;
  description?: string;
  format?: string;
  target: TargetInput;
}

/** Validated `PATCH /event_destinations/{id}` body. */
export type UpdateDestinationInput = Partial<CreateDestinationInput> & { id?: string };

/** Hostname statuses the operator review may set (docs/service-api.md § Abuse reports). */
export const HOSTNAME_STATUSES = ["PENDING", "BANNED", "UNBANNED", "IGNORE"] as const;

/** `POST /_operator/abuse_reports/{id}/review` body. */
export const reviewSchema: ObjectSchema = {
  kind: "object",
  fields: {
    hostnames: required({
      kind: "array",
      min: 1,
      items: {
        kind: "object",
        fields: {
          hostname: required(str({ nonEmpty: true })),
          status: required(str({ oneOf: HOSTNAME_STATUSES })),
        },
      },
      uniqueBy: {
        key: (item) => (item as { hostname: string }).hostname.toLowerCase(),
        what: "hostname",
        suffix: ".hostname",
      },
    }),
  },
};

/** Validated operator review body. */
export interface ReviewInput {
  hostnames: { hostname: string; status: (typeof HOSTNAME_STATUSES)[number] }[];
}

const share = { kind: "number", min: 0, max: 1 } as const;

/** `PUT /_operator/faults` body: shares between 0 and 1, latency in **milliseconds**. */
export const faultsSchema: ObjectSchema = {
  kind: "object",
  fields: {
    status503: optional(share),
    status429: optional(share),
    reset: optional(share),
    resetAfter: optional(share),
    latencyMs: optional({ kind: "number", min: 0, max: 600_000 }),
    seed: optional({ kind: "number", integer: true }),
  },
};

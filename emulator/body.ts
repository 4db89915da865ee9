/**
 * Request bodies in the emulator: parsing the raw body as a JSON object (213), then validation
 * against the contract's schema (214, 215: see `contract/validate.ts`), and the wire shapes the
 * routes read once a body is valid.
 *
 * @packageDocumentation
 */
import type { z } from "zod";
import type { AbuseReportHostnameStatus } from "../contract/abuseReport";
import { validateRequest } from "../contract/validate";
import { ServiceError } from "./errors";

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Parses a raw request body (as read by the app's catch-all content-type parser) into a JSON
 * object.
 *
 * @throws ServiceError 213 when the body is missing, is not valid JSON, or is JSON but not an
 * object (an array, a string, `null`, …).
 */
export function parseJsonObject(raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null || raw === "") {
    throw new ServiceError(213, "request body is empty; expected a JSON object");
  }
  let value: unknown;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch (e) {
      throw new ServiceError(213, `request body is not valid JSON: ${(e as Error).message}`);
    }
  } else {
    value = raw;
  }
  if (!isPlainObject(value)) {
    const got = Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`;
    throw new ServiceError(213, `request body must be a JSON object, got ${got}`);
  }
  return value;
}

/**
 * Validates a parsed body (wire names) against a contract schema and returns it typed as `T`
 * (the wire shape that schema describes).
 *
 * @throws ServiceError 214 (unknown field) or 215 (type, required field, limit, duplicate).
 */
export function validateBody<T>(
  body: Record<string, unknown>,
  schema: z.ZodType,
  camelCaseOnWire = false,
): T {
  const issue = validateRequest(schema, body, camelCaseOnWire);
  if (issue) throw new ServiceError(issue.code, issue.message);
  return body as T;
}

/** Validated `POST /abuse_reports` body. */
export interface CreateAbuseReportInput {
  urls: string[];
  metadata?: string;
}

/** Validated `POST /event_subscriptions` body. */
export interface CreateSubscriptionInput {
  metadata?: string;
  description?: string;
  sources: { type: string }[];
  destination_ids: string[];
}

/** Validated `PATCH /event_subscriptions/{id}` body. */
export type UpdateSubscriptionInput = Partial<CreateSubscriptionInput> & { id?: string };

/** The five target kinds of an event destination, in the order of the service reference. */
export const TARGET_KINDS = [
  "firehose",
  "kinesis",
  "cloudwatch_logs",
  "datadog",
  "azure_logs_ingestion",
] as const;

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

/** Validated operator review body. */
export interface ReviewInput {
  hostnames: { hostname: string; status: AbuseReportHostnameStatus }[];
}

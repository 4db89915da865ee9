/**
 * Request bodies in the emulator: parsing the raw body as a JSON object (213), then validation
 * against the contract's schema (214, 215: see `contract/validate.ts`), and the wire shapes the
 * routes read once a body is valid.
 *
 * @packageDocumentation
 */
import type { z } from "zod";
import type { AbuseReportCreate } from "service-contract";
import type { EventDestinationCreate, EventDestinationUpdate } from "service-contract";
import type { EventSubscriptionCreate, EventSubscriptionUpdate } from "service-contract";
import type { Wire } from "service-contract";
import type { Review } from "service-contract";
import { validateRequest } from "service-contract";
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
export type CreateAbuseReportInput = Wire<AbuseReportCreate>;

/** Validated `POST /event_subscriptions` body. */
export type CreateSubscriptionInput = Wire<EventSubscriptionCreate>;

/** Validated `PATCH /event_subscriptions/{id}` body. */
export type UpdateSubscriptionInput = Wire<EventSubscriptionUpdate>;

/** Validated `POST /event_destinations` body. */
export type CreateDestinationInput = Wire<EventDestinationCreate>;

/** Validated `PATCH /event_destinations/{id}` body. */
export type UpdateDestinationInput = Wire<EventDestinationUpdate>;

/** Validated operator review body. */
export type ReviewInput = Wire<Review>;

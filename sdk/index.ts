/**
 * Public entry point of the typed client of the service (`pulumi-service/sdk`). Re-exports only.
 *
 * - {@link ServiceClient}: the client (`client.ts`).
 * - zod schemas and their types, sharing their names (`schemas.ts`).
 * - error classes (`errors.ts`), validation functions (`validation.ts`), retry policy (`retry.ts`),
 *   key-case mapping (`casing.ts`) and the service's limits (`limits.ts`).
 *
 * @module pulumi-service/sdk
 */
export { SDK_VERSION, ServiceClient, type ServiceClientOptions } from "./client";
export { Idempotency, type IdempotencyKeysSetting } from "./idempotency";
export type { CreateOptions, RequestOptions } from "./transport";
export { AbuseReports, EventDestinations, EventSubscriptions, type ListParams, type Page } from "./resources";
export * from "service-contract";
export * from "service-contract";
export * from "service-contract";
export { ErrorBody, ERROR_CODES, type ErrorCode } from "service-contract";
export { Id, idPattern, Ref, Timestamp, type FieldMeta } from "service-contract";
export * from "./errors";
export * from "./validation";
export {
  DEFAULT_RETRY_POLICY,
  backoffDelay,
  isReplayable,
  retryDelay,
  type RetryPolicy,
  type RetryRequest,
} from "./retry";
export { camelToSnake, keysToCamel, keysToSnake, snakeToCamel } from "service-contract";
export * from "service-contract";

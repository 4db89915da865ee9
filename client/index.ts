/**
 * Public entry point of the typed client of the service (`pulumi-service/client`; `pulumi-service/sdk`, its 0.1.0 name, is the same module). Re-exports only.
 *
 * - {@link ServiceClient}: the client (`client.ts`), one resource class per API resource
 *   (`collections.ts`).
 * - error classes (`errors.ts`), validation functions (`requestValidation.ts`), retry policy (`retry.ts`),
 *   the request log's types (`log.ts`).
 * - everything of the contract (`service-contract`): zod schemas and their types, sharing their
 *   names, the limits, the error codes and the key-case mapping.
 *
 * @module pulumi-service/client
 */
export { SDK_VERSION, ServiceClient, type ServiceClientOptions } from "./client";
export { Idempotency, type IdempotencyKeysSetting } from "./idempotency";
export {
  SERVICE_CLOCK_SAMPLES,
  SERVICE_CLOCK_WINDOW_MS,
  ServiceClock,
  monotonicNowMs,
  type ServiceAnswer,
} from "./serviceClock";
export type { CreateOptions, RequestOptions } from "./transport";
export type { AttemptLogEntry, RequestLogEntry, RequestLogger, RetryLogEntry } from "./log";
export {
  AbuseReports,
  EventDestinations,
  EventSubscriptions,
  type ListParams,
  type Page,
} from "./collections";
export * from "./errors";
export * from "./requestValidation";
export {
  DEFAULT_RETRY_POLICY,
  backoffDelay,
  isReplayable,
  retryDelay,
  type RetryPolicy,
  type RetryRequest,
} from "./retry";
export {
  LocalPacer,
  freshState,
  observeAnswer,
  paceRate,
  takeToken,
  type PacedAnswer,
  type PaceSettings,
  type PaceState,
  type Pacer,
} from "./pacer";
export * from "service-contract";

/**
 * The service described once: zod schemas of every request and response body (camelCase form;
 * `wire.ts` maps keys to and from the wire's snake_case), the limits, the error codes, and the
 * field metadata consumers read. Imports nothing of this package. Re-exports only.
 *
 * @module service-contract
 */
export * from "./limits";
export * from "./wire";
export * from "./common";
export * from "./checks";
export * from "./abuseReport";
export * from "./eventSubscription";
export * from "./eventDestination";
export * from "./errorCodes";
export * from "./operator";
export * from "./openapi";
export * from "./validate";
export * from "./fields";
export * from "./descriptors";

/**
 * The service emulator: a local implementation of the whole service interface
 * (docs/service-api.md), for tests, the demo and offline use.
 *
 * @module service-emulator
 */
export {
  ABUSE_REPORTS_PER_ACCOUNT,
  IDEMPOTENCY_KEYS_PER_ACCOUNT,
  createApp,
  type CreateAppOptions,
  type EmulatorApp,
  type EmulatorControl,
  type StoreLimits,
} from "./app";
export { openStore, type Store, type RequestLogEntry, type StoreSnapshot } from "./store";
export { parseFaults, type FaultConfig } from "./faults";
export { LATENCY_MAX_MS } from "./plugins/latency";
export { RATE_LIMIT_MAX, RATE_LIMIT_WINDOW_MAX_MS, type RateLimitOptions } from "./plugins/rateLimit";
export { startEmulator, type StartEmulatorOptions, type RunningEmulator } from "./start";

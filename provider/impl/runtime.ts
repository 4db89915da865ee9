/**
 * The provider process's runtime, as the deployed dynamic providers load it by package name
 * inside their methods (`require("pulumi-service/provider/impl/runtime")`), so nothing here is
 * serialized into the Pulumi state, and the API key lives only in this process's memory. A
 * frozen path: it only re-exports what it exported in 0.1.0, from the modules that hold each
 * concern: process/settings.ts (the settings), process/client.ts (`configure` and the one
 * client), process/debugLog.ts (the request log and warnings), keyChecks.ts (key stamps, and
 * 404s counted as gone) and create/recoveryAdoption.ts (the candidates of `SERVICE_ADOPT_FROM`).
 *
 * Configuration: each stack config key first, then its environment variable in the provider
 * process (see {@link SETTINGS}; docs/real-service.md):
 * - `service:apiKey` (set it with `pulumi config set --secret service:apiKey …`) or `SERVICE_API_KEY`;
 * - `service:baseUrl` or `SERVICE_BASE_URL`;
 * - `service:caCertificate` or `SERVICE_CA_CERTIFICATE`: a private CA to trust (PEM text or a
 *   PEM file's path);
 * - `service:requestTimeoutMs`, `service:maxRetries`, `service:retryBudgetMs` or
 *   `SERVICE_REQUEST_TIMEOUT_MS`, `SERVICE_MAX_RETRIES`, `SERVICE_RETRY_BUDGET_MS`.
 *
 * The proxy variables (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`) and `NODE_EXTRA_CA_CERTS` of the
 * provider process are honoured by the client. Every request is logged at debug level through
 * Pulumi's log (`pulumi up --debug`, or `-v=3` or more with `--logtostderr`), and to stderr as
 * well with `SERVICE_LOG=debug`; `SERVICE_LOG=off` turns both off. The lines reach Pulumi's log in
 * batches, in order: see {@link flushDebugLog}.
 *
 * The client sends an `Idempotency-Key` with every create (`idempotencyKeys: "auto"`), so a
 * create whose connection is reset is retried safely once the service has shown that it honours
 * keys; create/createOnce.ts handles the rest.
 *
 * @packageDocumentation
 */

export { SETTINGS, type ConfigBag } from "./process/settings";
export { configure, getClient, isNotFound } from "./process/client";
export { DEBUG_LOG_BATCH_CHARS, DEBUG_LOG_FLUSH_MS, flushDebugLog, warn } from "./process/debugLog";
export {
  currentKeyStamp,
  deleteUnlessGone,
  getUnlessGone,
  isCurrentKeyStamp,
  stamped,
  type StateOf,
} from "./keyChecks";
export { ADOPT_FROM_ENV, adoptionCandidates, type AdoptionCandidates } from "./create/recoveryAdoption";

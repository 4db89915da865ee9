/**
 * The one client of a provider process, built from the settings (settings.ts) on first use and
 * kept while they stay the same: its connection pool and warm connections serve every resource
 * of every kind. The client sends an `Idempotency-Key` with every create
 * (`idempotencyKeys: "auto"`), so a create whose connection is reset is retried safely once the
 * service has shown that it honours keys; create/createOnce.ts handles the rest. Its requests are
 * paced by one budget per account shared with this user's other provider processes
 * (sharedPacer.ts), at most `service:maxRequestsPerSecond` when set.
 *
 * @packageDocumentation
 */
import type * as Client from "../../../client/client";
import { readCaCertificates } from "../../../client/ca";
import { NotFoundError } from "../../../client/errors";
import { connectLogToEngine, providerLogger } from "./debugLog";
import { readSettings, requestsPerSecond, setting, whole, type ConfigBag } from "./settings";
import { sharedPacer } from "./sharedPacer";

/** The client of this process, once {@link getClient} has built it. */
let client: Client.ServiceClient | undefined;

/**
 * Reads the settings (see {@link SETTINGS}) from the stack configuration, falling back to the
 * environment. The engine calls it once per provider *type* in the provider process (each of
 * EventSubscription, EventDestination and AbuseReport is a provider of its own), so the client,
 * its connection pool and its warm connections are kept when the settings are the same; a
 * client built for other settings is closed. Values are checked by {@link getClient}.
 */
export async function configure(req: { config: ConfigBag }): Promise<void> {
  if (readSettings(req.config)) {
    const previous = client;
    client = undefined;
    // Requests still in flight on the old pool finish before it closes.
    previous?.close().catch(() => {});
  }
  connectLogToEngine();
}

/**
 * The client of this process, built on first use.
 * @throws Error naming the config key and the variable to set when the key or URL is missing,
 *   or naming the setting (and for numbers its unit and range) when a value is malformed.
 */
export function getClient(): Client.ServiceClient {
  if (client) return client;
  const apiKey = setting("apiKey");
  const baseUrl = setting("baseUrl");
  if (!apiKey) {
    throw new Error(
      "No API key for the service: run `pulumi config set --secret service:apiKey <key>` or set SERVICE_API_KEY.",
    );
  }
  if (!baseUrl) {
    throw new Error(
      "No base URL for the service: run `pulumi config set service:baseUrl <url>` (e.g. " +
        "https://… for the service, http://127.0.0.1:8787 for the emulator) or set SERVICE_BASE_URL.",
    );
  }
  let url: URL | undefined;
  try {
    url = new URL(baseUrl.value);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new Error(`${baseUrl.from} must be an absolute http:// or https:// URL`);
  }
  const ca = setting("caCertificate");
  // Checked here to name the setting; the client reads the same text again.
  const caCertificate = ca ? readCaCertificates(ca.value, ca.from).join("\n") : undefined;
  const timeoutMs = whole("requestTimeoutMs");
  const maxRetries = whole("maxRetries");
  const retryBudgetMs = whole("retryBudgetMs");
  const pace = { maxRequestsPerSecond: requestsPerSecond(), burst: whole("requestBurst") ?? 1 };
  const logger = providerLogger();
  // Loaded here, not at the top: a preview or a run with no change sends no request, and
  // loading undici is a large part of the provider process's start (docs/performance.md
  // § Fixed cost gives the figures).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ServiceClient } = require("../../../client/client") as typeof Client;
  client = new ServiceClient({
    apiKey: apiKey.value,
    baseUrl: baseUrl.value,
    caCertificate,
    timeoutMs,
    maxRetries,
    retryBudgetMs,
    logger,
    userAgent: "pulumi-service-provider",
    idempotencyKeys: "auto",
    // One budget per account for every process of this user on the machine (sharedPacer.ts);
    // the client's own pacer when the shared folder cannot be used.
    pacer: sharedPacer(apiKey.value, baseUrl.value, pace),
    maxRequestsPerSecond: pace.maxRequestsPerSecond,
    requestBurst: pace.burst,
  });
  return client;
}

/** True when `err` is the service's "not found" (HTTP 404), whatever its body. */
export function isNotFound(err: unknown): boolean {
  return err instanceof NotFoundError;
}

/**
 * State of the dynamic-provider process: the configuration read in `configure()` and the one
 * client built from it. This module is loaded by package name inside the provider methods
 * (`require("pulumi-service/provider/impl/runtime")`), so nothing here is serialized into the
 * Pulumi state, and the API key lives only in this process's memory.
 *
 * Configuration (stack config first, then the provider process's environment):
 * - `service:apiKey` (set it with `pulumi config set --secret service:apiKey …`) or `SERVICE_API_KEY`;
 * - `service:baseUrl` or `SERVICE_BASE_URL`.
 *
 * The client sends an `Idempotency-Key` with every create (`idempotencyKeys: "auto"`), so a
 * create whose connection is reset is retried safely once the service has shown that it honours
 * keys; `ambiguous.ts` handles the rest.
 *
 * @packageDocumentation
 */
import * as pulumi from "@pulumi/pulumi";
import type * as Client from "../../sdk/client";
import { NotFoundError } from "../../sdk/errors";

/** The bag `configure()` receives: the whole stack configuration, namespaces kept. */
export interface ConfigBag {
  get(key: string): string | undefined;
}

let settings: { apiKey?: string; baseUrl?: string } = {};
let client: Client.ServiceClient | undefined;

/**
 * Reads `service:apiKey` and `service:baseUrl` from the stack configuration, falling back to
 * `SERVICE_API_KEY` / `SERVICE_BASE_URL`. The engine calls it once per provider *type* in the
 * provider process (each of EventSubscription, EventDestination and AbuseReport is a provider
 * of its own), so the client, its connection pool and its warm connections are kept when the
 * settings are the same; a client built for other settings is closed.
 */
export async function configure(req: { config: ConfigBag }): Promise<void> {
  const next = {
    apiKey: req.config.get("service:apiKey") || process.env.SERVICE_API_KEY || undefined,
    baseUrl: req.config.get("service:baseUrl") || process.env.SERVICE_BASE_URL || undefined,
  };
  if (next.apiKey !== settings.apiKey || next.baseUrl !== settings.baseUrl) {
    const previous = client;
    client = undefined;
    // Requests still in flight on the old pool finish before it closes.
    previous?.close().catch(() => {});
  }
  settings = next;
  connectLogToEngine();
}

/**
 * The client of this process, built on first use.
 * @throws Error naming the config key and variable to set when the key or URL is missing.
 */
export function getClient(): Client.ServiceClient {
  if (client) return client;
  const apiKey = settings.apiKey ?? process.env.SERVICE_API_KEY;
  const baseUrl = settings.baseUrl ?? process.env.SERVICE_BASE_URL;
  if (!apiKey) {
    throw new Error(
      "No API key for the service: run `pulumi config set --secret service:apiKey <key>` or set SERVICE_API_KEY.",
    );
  }
  if (!baseUrl) {
    throw new Error(
      "No base URL for the service: run `pulumi config set service:baseUrl <url>` or set SERVICE_BASE_URL.",
    );
  }
  // Loaded here, not at the top: a preview or a run with no change sends no request, and
  // loading undici costs about 30 ms of the provider process's start (docs/performance.md
  // § Fixed cost).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ServiceClient } = require("../../sdk/client") as typeof Client;
  client = new ServiceClient({
    apiKey,
    baseUrl,
    userAgent: "pulumi-service-provider",
    idempotencyKeys: "auto",
  });
  return client;
}

/** True when `err` is the service's "not found" (HTTP 404), whatever its body. */
export function isNotFound(err: unknown): boolean {
  return err instanceof NotFoundError;
}

/**
 * Runs a `get` for `read` (refresh): its result, or `undefined` when the service answers 404
 * (the resource was deleted outside Pulumi and leaves the state).
 * @throws any other client error, as is.
 */
export async function getUnlessGone<T>(get: () => Promise<T>): Promise<T | undefined> {
  try {
    return await get();
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/**
 * Runs a `delete`; a 404 (already gone) counts as deleted.
 * @throws any other client error, as is.
 */
export async function deleteUnlessGone(del: () => Promise<unknown>): Promise<void> {
  await getUnlessGone(del);
}

/**
 * The dynamic-provider process gets the engine's address as its first argument but does not
 * hand it to `@pulumi/pulumi`'s log; doing so makes `pulumi.log` messages appear in the
 * engine's output (`pulumi up`) instead of only on the process's stderr.
 */
function connectLogToEngine(): void {
  const addr = process.argv[2];
  if (!process.env.PULUMI_NODEJS_ENGINE && addr && /^[\w.[\]:-]+:\d+$/.test(addr)) {
    process.env.PULUMI_NODEJS_ENGINE = addr;
  }
}

/**
 * Logs a warning through Pulumi's log (shown by `pulumi up`). Never fails: a log that cannot be
 * written (the engine connection gone, say) loses the note, never the operation it describes.
 */
export async function warn(message: string): Promise<void> {
  try {
    await pulumi.log.warn(message);
  } catch {
    // the note is lost; the operation it describes is not
  }
}

/**
 * In-process emulator for tests and the demo.
 *
 * @packageDocumentation
 */
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { createApp, type EmulatorApp } from "./app";
import { listeningUrl, type CreateAppOptions } from "./options";
import { openStore, type Store } from "./store";

/**
 * Options of {@link startEmulator}; everything is optional. Those it passes to the app as they are
 * (faults, `Idempotency-Key`, the rate limit, latency, review delay, logging, clock, limits) mean
 * what they mean in {@link CreateAppOptions}.
 */
export interface StartEmulatorOptions extends Pick<
  CreateAppOptions,
  | "faults"
  | "idempotencyKeys"
  | "rateLimit"
  | "latencyMs"
  | "latencyJitterMs"
  | "reviewDelayMs"
  | "logger"
  | "clock"
  | "limits"
> {
  /** TCP port; `0` (the default) picks a free one. */
  port?: number;
  /** Interface to bind; default `127.0.0.1`. */
  host?: string;
  /** Store path; default `":memory:"`. A file path keeps data across restarts. */
  data?: string;
  /** Authorized API keys; default one random key. Pass `[]` for none. */
  apiKeys?: string[];
  /** API keys not authorized for abuse reports; default one random key. Pass `[]` for none. */
  restrictedApiKeys?: string[];
  /** Admin key of the operator endpoints; default a random key. */
  adminKey?: string;
  /**
   * Base of `uri` and `next_page_uri` fields; default the listening URL ({@link RunningEmulator.url}).
   * The request's `Host` header is never used.
   */
  publicUrl?: string;
  /**
   * Called with the app after it is built and before it listens, e.g. to add a Fastify hook
   * (the tests validate every response against the OpenAPI document this way).
   */
  onApp?: (app: EmulatorApp) => void | Promise<void>;
}

/** A running emulator returned by {@link startEmulator}. */
export interface RunningEmulator {
  /** Listening URL without a trailing slash, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** Authorized API keys (one account each). */
  apiKeys: string[];
  /** Restricted API keys (one account each; 403 / 221 on abuse reports). */
  restrictedApiKeys: string[];
  /** Admin key of the `/_operator` endpoints. */
  adminKey: string;
  /** The Fastify instance (with `app.emulator` controls). */
  app: EmulatorApp;
  /** The store behind it. */
  store: Store;
  /** Stops listening, then closes the store. Idempotent. */
  close(): Promise<void>;
}

/** A random key of 32 URL-safe characters, well formed for `TOKEN_PATTERN`. */
export function randomKey(prefix = "key_"): string {
  return prefix + randomBytes(24).toString("base64url");
}

export { listeningUrl };

/**
 * Opens a store, builds the app and listens. Resolves once the server accepts connections.
 *
 * @throws Error when the port is taken, the data file cannot be opened, or an option is invalid
 * (the store is closed again in that case).
 */
export async function startEmulator(opts: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  const host = opts.host ?? "127.0.0.1";
  const apiKeys = opts.apiKeys ?? [randomKey()];
  const restrictedApiKeys = opts.restrictedApiKeys ?? [randomKey("rkey_")];
  const adminKey = opts.adminKey ?? randomKey("admin_");
  const store = openStore(opts.data ?? ":memory:");
  let app: EmulatorApp;
  try {
    app = createApp({
      store,
      apiKeys,
      restrictedApiKeys,
      adminKey,
      publicUrl: opts.publicUrl,
      faults: opts.faults,
      idempotencyKeys: opts.idempotencyKeys,
      rateLimit: opts.rateLimit,
      latencyMs: opts.latencyMs,
      latencyJitterMs: opts.latencyJitterMs,
      reviewDelayMs: opts.reviewDelayMs,
      logger: opts.logger,
      clock: opts.clock,
      limits: opts.limits,
    });
    await opts.onApp?.(app);
    await app.listen({ port: opts.port ?? 0, host });
  } catch (e) {
    store.close();
    throw e;
  }
  const port = (app.server.address() as AddressInfo).port;
  const url = listeningUrl(host, port);
  if (opts.publicUrl === undefined) app.emulator.publicUrl = url;
  let closing: Promise<void> | undefined;
  return {
    url,
    apiKeys,
    restrictedApiKeys,
    adminKey,
    app,
    store,
    close() {
      closing ??= app.close().then(() => store.close());
      return closing;
    },
  };
}

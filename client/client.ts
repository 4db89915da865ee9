/**
 * `ServiceClient`: the typed, resilient client of the abuse-report / event-subscription /
 * event-destination service.
 *
 * Reference: docs/service-api.md.
 *
 * @packageDocumentation
 */
import { Idempotency } from "./idempotency";
import { ServiceClock } from "./serviceClock";
import { createSecureContext } from "node:tls";
import { inspect } from "node:util";
import { Agent, type Dispatcher, EnvHttpProxyAgent } from "undici";
import { readCaCertificates, trustedCas } from "./ca";
import { ServiceError } from "./errors";
import { loggerFromEnv, type RequestLogger } from "./log";
import { AbuseReports, EventDestinations, EventSubscriptions } from "./collections";
import { DEFAULT_RETRY_POLICY } from "./retry";
import { checkPace, LocalPacer, type Pacer } from "./pacer";
import { Transport } from "./transport";
import { RESOURCES } from "service-contract";

/** Version of this client, sent in the default `User-Agent`. */
export const SDK_VERSION = "0.2.0";

/** Options of {@link ServiceClient}. Every one is optional. */
export interface ServiceClientOptions {
  /** API key, sent as `Authorization: Bearer <key>`. Default: env `SERVICE_API_KEY`. */
  apiKey?: string;
  /** Base URL of the service, e.g. `http://127.0.0.1:8787`. Default: env `SERVICE_BASE_URL`. */
  baseUrl?: string;
  /** Timeout of **each attempt** (connect, headers and body), in **milliseconds**. Default 30 000. */
  timeoutMs?: number;
  /**
   * Most retries per call after the first attempt, 429s not counted (the rate limit turned them
   * away before the handler; only `retryBudgetMs` bounds their retries). Default 4; `0` retries
   * nothing but 429s, and `retryBudgetMs: 0` not even those.
   */
  maxRetries?: number;
  /**
   * Total time budget of one call, attempts and delays included, in **milliseconds**. No retry
   * is started that would end after it. Default 60 000.
   */
  retryBudgetMs?: number;
  /** `User-Agent` header. Default `pulumi-service-sdk/<version> node/<version>`. */
  userAgent?: string;
  /**
   * undici dispatcher to send requests through (e.g. a `MockAgent` or a proxy agent). It is
   * not closed by {@link ServiceClient.close}. Default: a keep-alive pool owned by the client,
   * which honours the proxy variables (see {@link ServiceClient}) and `caCertificate`.
   */
  dispatcher?: Dispatcher;
  /**
   * Certificate of a private CA to trust besides Node's (its bundled roots and
   * `NODE_EXTRA_CA_CERTS`, which stay trusted): PEM text (one or more
   * `-----BEGIN CERTIFICATE-----` blocks) or, when the value holds no such block, the path of a
   * PEM file. Default: env `SERVICE_CA_CERTIFICATE`. Cannot be combined with `dispatcher`.
   */
  caCertificate?: string;
  /**
   * Receiver of the debug log of requests: one line per attempt (method, path without query
   * values, status or error, duration in ms, `Operation-Id`, attempt number) and per retry
   * wait; never a header, a body or a query value. Default: to stderr when env
   * `SERVICE_LOG=debug`, else none.
   */
  logger?: RequestLogger;
  /**
   * Send an `Idempotency-Key` header on creates (a fresh UUID per `create` call, reused by its
   * retries). Default `false`.
   *
   * - `true`: retry keyed POSTs after resets and timeouts like PATCHes. Only against a server
   *   that honours the header; otherwise a retried POST may create a duplicate.
   * - `"auto"`: retry them so only once the server has shown that it honours keys — a response
   *   to a keyed POST echoed the key in an `Idempotency-Key` header (see
   *   `ServiceClient.idempotency.honoured`). Until then, and against a server that does
   *   not echo it, a create is retried only when it provably did not reach the service, as
   *   without a key. Safe against any server.
   */
  idempotencyKeys?: boolean | "auto";
  /**
   * Most requests per second this client sends, retries included (a ceiling; a positive
   * number up to 10,000). Default: env `SERVICE_MAX_REQUESTS_PER_SECOND`, else none: the client
   * sends as fast as it is asked until the service answers 429, then paces itself at a rate
   * learned from the 429s and their `Retry-After` (client/pacer.ts). The learned rate stays
   * under the ceiling when both are there.
   */
  maxRequestsPerSecond?: number;
  /**
   * Requests an idle client may send at once before the pace applies (a whole number from 1 to
   * 10,000). Default: env `SERVICE_REQUEST_BURST`, else 1.
   */
  requestBurst?: number;
  /**
   * What paces the requests, in place of the client's own (a {@link LocalPacer} built from
   * `maxRequestsPerSecond` and `requestBurst`, which it then overrides): e.g. one pacer shared by
   * several clients of one account, as the provider's processes share one (docs/real-service.md).
   */
  pacer?: Pacer;
}

function positive(name: string, value: number, allowZero: boolean, unit: string): number {
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new ServiceError(
      `ServiceClient: ${name} must be a ${allowZero ? "non-negative" : "positive"} number${unit}, got ${value}`,
    );
  }
  return value;
}

/**
 * The ceiling and burst of the client's own pacer: the options, else `SERVICE_MAX_REQUESTS_PER_SECOND`
 * and `SERVICE_REQUEST_BURST`. @throws ServiceError naming the option or variable and its range.
 */
export function paceSettings(options: Pick<ServiceClientOptions, "maxRequestsPerSecond" | "requestBurst">): {
  maxRequestsPerSecond?: number;
  burst: number;
} {
  const pick = (value: number | undefined, option: string, env: string): [number, string] | undefined => {
    if (value !== undefined) return [value, `ServiceClient: ${option}`];
    const text = process.env[env];
    return text ? [text.trim() === "" ? NaN : Number(text), env] : undefined;
  };
  try {
    const ceiling = pick(
      options.maxRequestsPerSecond,
      "maxRequestsPerSecond",
      "SERVICE_MAX_REQUESTS_PER_SECOND",
    );
    const burst = pick(options.requestBurst, "requestBurst", "SERVICE_REQUEST_BURST");
    return {
      maxRequestsPerSecond: ceiling && checkPace("maxRequestsPerSecond", ...ceiling),
      burst: burst ? checkPace("burst", ...burst) : 1,
    };
  } catch (err) {
    throw new ServiceError((err as Error).message);
  }
}

/** True when any of the proxy variables undici's `EnvHttpProxyAgent` reads is set. */
function proxyConfigured(): boolean {
  const env = process.env;
  return Boolean(env.http_proxy || env.HTTP_PROXY || env.https_proxy || env.HTTPS_PROXY);
}

/**
 * Client of the service. One instance holds one keep-alive connection pool; share it and call
 * {@link ServiceClient.close} when done.
 *
 * ```ts
 * const client = new ServiceClient({ apiKey, baseUrl: "http://127.0.0.1:8787" });
 * const sub = await client.eventSubscriptions.create({
 *   sources: [{ type: "ip_policy_created.v0" }],
 *   destinationIds: [destination.id],
 * });
 * for await (const s of client.eventSubscriptions.list()) console.log(s.id);
 * await client.close();
 * ```
 *
 * Every request carries `Authorization: Bearer <apiKey>`, `Service-Version: 2` and the
 * `User-Agent`; bodies are JSON with `Content-Type: application/json`.
 *
 * **Network.** Without a `dispatcher`, the client honours `HTTPS_PROXY` / `HTTP_PROXY` (or their
 * lower-case forms, which win) and `NO_PROXY` as they are when the client is made, through
 * undici's `EnvHttpProxyAgent` (an HTTP proxy, tunnelled with `CONNECT`); it trusts Node's CAs
 * (bundled roots and `NODE_EXTRA_CA_CERTS`) plus `caCertificate`.
 *
 * **Retries** (one policy, `retry.ts`): GET, PATCH and DELETE are retried on 429 (after
 * `Retry-After`, capped at 30 s), 502, 503, 504 and connection errors or timeouts, with
 * full-jitter exponential backoff (base 200 ms, cap 5 s), at most `maxRetries` times and within
 * `retryBudgetMs`. **A POST (create) is retried only when the request provably did not reach
 * the service**: a 429, a 503 with `Retry-After`, or a connection that could not be opened.
 * After a connection reset or timeout mid-request it is not retried, because the first POST may
 * have created the resource and a second one would create a duplicate; the caller gets
 * `APIConnectionError` and must check (e.g. list) before creating again. With
 * `idempotencyKeys: true` POSTs carry an `Idempotency-Key` and are retried like PATCHes; with
 * `"auto"` they carry one and are retried so once the server has echoed a key.
 *
 * **Pace** (`pacer.ts`): every attempt, retries included, waits for the pacer: at most
 * `maxRequestsPerSecond` when set, and after a 429 one pause of its `Retry-After` for every
 * request, then a rate learned from the 429s that creeps back up while none comes.
 *
 * The API key is kept in a private field: it never appears in `util.inspect(client)`,
 * `JSON.stringify(client)`, `String(client)` or any error.
 *
 * @throws ServiceError from the constructor when the API key or the base URL is missing
 *   (naming `SERVICE_API_KEY` / `SERVICE_BASE_URL`) or malformed, when `caCertificate` cannot be
 *   read or holds no valid certificate, or when `SERVICE_LOG` has an unknown value.
 */
export class ServiceClient {
  /** Base URL of the service, without a trailing slash. */
  readonly baseUrl: string;
  /**
   * How long one request may take, in **milliseconds** (the `timeoutMs` option, default 30,000):
   * a request the service received can still be running on it this long after it was sent.
   */
  readonly timeoutMs: number;
  /** Abuse reports: create and get. */
  readonly abuseReports: AbuseReports;
  /** Event subscriptions: create, get, list, pages, update, delete. */
  readonly eventSubscriptions: EventSubscriptions;
  /** Event destinations: create, get, list, pages, update, delete. */
  readonly eventDestinations: EventDestinations;
  /**
   * `Idempotency-Key` of this client: its setting (the `idempotencyKeys` option) and
   * `idempotency.honoured`, whether the server honours keys as far as this client has seen
   * (`true` once a response to a keyed POST echoed the key, `false` once a 2xx one did not).
   */
  readonly idempotency: Idempotency;
  /**
   * The service's clock as this client has seen it (the `Date` header of the service's 2xx
   * answers, against a monotonic local clock: client/serviceClock.ts): a lost create's lookup asks
   * what the service made since the create started, in the service's time.
   */
  readonly serviceClock = new ServiceClock();

  /** The keep-alive pool the client made (none when a dispatcher was passed in). */
  readonly #ownedAgent: Dispatcher | undefined;
  #closing: Promise<void> | undefined;

  /**
   * @param options - API key, base URL, retries, timeouts, idempotency keys (see
   *   {@link ServiceClientOptions}); the key and URL default to `SERVICE_API_KEY` and
   *   `SERVICE_BASE_URL`.
   * @throws ServiceError when the API key or the base URL is missing or malformed, a number is
   *   out of range, `caCertificate` is unreadable or invalid, or `SERVICE_LOG` is unknown.
   */
  constructor(options: ServiceClientOptions = {}) {
    this.idempotency = new Idempotency(options.idempotencyKeys ?? false);
    const apiKey = options.apiKey ?? process.env.SERVICE_API_KEY;
    const baseUrl = options.baseUrl ?? process.env.SERVICE_BASE_URL;
    const missing = [
      ...(apiKey ? [] : ["an API key (option apiKey or env SERVICE_API_KEY)"]),
      ...(baseUrl ? [] : ["a base URL (option baseUrl or env SERVICE_BASE_URL)"]),
    ];
    if (!apiKey || !baseUrl) {
      throw new ServiceError(
        `ServiceClient: missing ${missing.join(" and ")}. Pass { apiKey, baseUrl } or set SERVICE_API_KEY and SERVICE_BASE_URL.`,
      );
    }
    if (/[\s\0]/.test(apiKey))
      throw new ServiceError("ServiceClient: the API key contains whitespace or control characters");
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      throw new ServiceError("ServiceClient: baseUrl (or SERVICE_BASE_URL) is not an absolute URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new ServiceError("ServiceClient: baseUrl must be an http or https URL");
    }
    const basePath = url.pathname.replace(/\/+$/, "");
    this.baseUrl = url.origin + basePath;

    const timeoutMs = positive("timeoutMs", options.timeoutMs ?? 30_000, false, " of milliseconds");
    this.timeoutMs = timeoutMs;
    const maxRetries = Math.floor(
      positive("maxRetries", options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries, true, ""),
    );
    const budgetMs = positive(
      "retryBudgetMs",
      options.retryBudgetMs ?? DEFAULT_RETRY_POLICY.budgetMs,
      true,
      " of milliseconds",
    );
    const logger = options.logger ?? loggerFromEnv();

    const caSetting = options.caCertificate ?? (process.env.SERVICE_CA_CERTIFICATE || undefined);
    if (caSetting !== undefined && options.dispatcher) {
      throw new ServiceError(
        "ServiceClient: caCertificate cannot be combined with dispatcher; give the dispatcher the CA instead",
      );
    }
    const ca =
      caSetting === undefined
        ? undefined
        : readCaCertificates(
            caSetting,
            options.caCertificate === undefined ? "SERVICE_CA_CERTIFICATE" : "ServiceClient: caCertificate",
          );
    this.#ownedAgent = options.dispatcher ? undefined : ownAgent(ca);
    const transport = new Transport({
      apiKey,
      origin: url.origin,
      basePath,
      timeoutMs,
      policy: { ...DEFAULT_RETRY_POLICY, maxRetries, budgetMs },
      userAgent: options.userAgent ?? `pulumi-service-sdk/${SDK_VERSION} node/${process.version}`,
      dispatcher: options.dispatcher ?? this.#ownedAgent!,
      idempotency: this.idempotency,
      serviceClock: this.serviceClock,
      logger,
      pacer: options.pacer ?? new LocalPacer(paceSettings(options)),
    });
    this.abuseReports = new AbuseReports(transport, RESOURCES.abuseReport, this.idempotency);
    this.eventSubscriptions = new EventSubscriptions(
      transport,
      RESOURCES.eventSubscription,
      this.idempotency,
    );
    this.eventDestinations = new EventDestinations(transport, RESOURCES.eventDestination, this.idempotency);
  }

  /** Closes the client's own connection pool (not a `dispatcher` passed in). Idempotent. */
  async close(): Promise<void> {
    this.#closing ??= this.#ownedAgent?.close();
    await this.#closing;
  }

  /** `ServiceClient(<baseUrl>)`; never shows the API key. */
  toString(): string {
    return `ServiceClient(${this.baseUrl})`;
  }

  /** `{ baseUrl }`; never shows the API key. */
  toJSON(): { baseUrl: string } {
    return { baseUrl: this.baseUrl };
  }

  /** What `util.inspect` / `console.log` show; never the API key. */
  [inspect.custom](): string {
    return `ServiceClient { baseUrl: ${JSON.stringify(this.baseUrl)}, apiKey: [REDACTED] }`;
  }
}

/**
 * The client's own keep-alive pool: undici's `EnvHttpProxyAgent` when a proxy variable is set
 * (it reads them, and `NO_PROXY` at each request), else a plain `Agent` (the same, without the
 * per-request proxy choice). With `ca`, TLS to the service, direct or through the tunnel,
 * trusts {@link trustedCas}.
 */
function ownAgent(ca: string[] | undefined): Dispatcher {
  const options: Agent.Options & { requestTls?: object } = { keepAliveTimeout: 10_000, pipelining: 1 };
  if (ca) {
    // One context for every connection: a `ca` list would be parsed again at each handshake.
    const tls = { secureContext: createSecureContext({ ca: trustedCas(ca) }) };
    options.connect = tls;
    options.requestTls = tls;
  }
  return proxyConfigured() ? new EnvHttpProxyAgent(options) : new Agent(options);
}

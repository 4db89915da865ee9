/**
 * One HTTP call of the client: headers, JSON body, per-attempt timeout, retries (delegated to
 * `retry.ts`) and their pace (each attempt waits for the pacer, `pacer.ts`, which learns from each answer), error mapping (delegated to `errors.ts`), case mapping (the contract's `wire.ts`),
 * the exchange itself (`exchange.ts`) and response parsing (the zod schemas). Internal: not
 * exported from `client/index.ts`.
 *
 * @packageDocumentation
 */
import type { Idempotency } from "./idempotency";
import { monotonicNowMs, type ServiceClock } from "./serviceClock";
import type { Dispatcher } from "undici";
import type { z } from "zod";
import { keysToCamel, keysToSnake } from "service-contract";
import {
  APICertificateError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIResponseValidationError,
  ServiceError,
  ValidationError,
  makeAPIError,
  parseRetryAfter,
} from "./errors";
import { MAX_BODY_BYTES, SERVICE_VERSION } from "service-contract";
import { currentDeadline } from "./deadline";
import { exchange } from "./exchange";
import { formatLogEntry, redactQuery, type RequestLogEntry, type RequestLogger } from "./log";
import type { Pacer } from "./pacer";
import { type RetryPolicy, realClock, withRetries } from "./retry";

/** Per-call options accepted by every resource method. */
export interface RequestOptions {
  /** Timeout of each attempt in **milliseconds** (overrides the client's `timeoutMs`). */
  timeoutMs?: number;
  /**
   * Most retries of this call (overrides the client's `maxRetries`), 429s not counted; `0` retries
   * nothing but 429s, which the client's `retryBudgetMs` bounds.
   */
  maxRetries?: number;
}

/** Per-call options of `create` methods. */
export interface CreateOptions extends RequestOptions {
  /**
   * Value of the `Idempotency-Key` header of this create, reused by every retry. When set (or
   * when the client has `idempotencyKeys: true` or `"auto"`, which generate a UUID per call),
   * the POST is retried after connection resets and timeouts like a PATCH — with `"auto"` only
   * once the server has shown that it honours keys. Only safe against a server that honours the
   * header.
   */
  idempotencyKey?: string;
}

/** Settings of a transport, resolved by `ServiceClient`. */
export interface TransportConfig {
  apiKey: string;
  /** Origin of the service, e.g. `http://127.0.0.1:8787`. */
  origin: string;
  /** Path prefix of the base URL without a trailing slash (usually `""`). */
  basePath: string;
  timeoutMs: number;
  policy: RetryPolicy;
  userAgent: string;
  dispatcher: Dispatcher;
  /** The client's owner of `Idempotency-Key` (keys, resending, what the server honours). */
  idempotency: Idempotency;
  /** The service's clock, fed each response (it keeps the `Date` of the service's own 2xx answers). */
  serviceClock?: ServiceClock;
  /** Receiver of the request log; none: no log, and no cost. */
  logger?: RequestLogger;
  /** What every attempt waits for before it is sent, and tells each answer to; none: no pacing. */
  pacer?: Pacer;
}

/** One operation: method, path below the base URL, optional body (camelCase) and response schema. */
export interface Operation<S extends z.ZodType | undefined> {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Path below the base path, with query string, e.g. `/event_subscriptions?limit=10`. */
  path: string;
  /** Request body in TypeScript (camelCase) form; converted to snake_case here. */
  body?: unknown;
  /** Schema of the success body; `undefined` for 204 responses. */
  schema: S;
  /** `Idempotency-Key` header value, if any (POST only). */
  idempotencyKey?: string;
  options?: RequestOptions;
}

/** Longest delay `setTimeout` accepts (about 24.8 days); longer ones would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Error codes of failures that happen before a connection exists: the request was never sent. */
const NOT_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"]);
/**
 * Error codes of a TLS handshake that rejected the service's certificate because no trusted CA
 * signed it: a private CA is the usual cause, so the error says how to trust one.
 */
const UNTRUSTED_CODES = new Set([
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_UNTRUSTED",
]);
/** Other codes of a rejected certificate (expired, not yet valid, issued for another name, revoked). */
const REJECTED_CERT_CODES = new Set([
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_REVOKED",
  "CERT_SIGNATURE_FAILURE",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);
/** What the message of an untrusted certificate tells the user to do. */
const TRUST_ADVICE =
  "If a private CA signed it, give that CA's certificate (PEM): client option caCertificate, " +
  "provider config service:caCertificate or env SERVICE_CA_CERTIFICATE, or NODE_EXTRA_CA_CERTS.";
/** Error codes of undici's own inactivity timeouts. */
const TIMEOUT_CODES = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

function errorCode(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string") return code;
  // Happy-eyeballs connection attempts fail with an AggregateError of the per-address errors.
  const inner = (err as { errors?: unknown }).errors;
  return Array.isArray(inner) ? errorCode(inner[0]) : undefined;
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Sends operations to the service. Holds the API key in a private field only. */
export class Transport {
  readonly #apiKey: string;
  readonly #config: Omit<TransportConfig, "apiKey">;

  constructor(config: TransportConfig) {
    const { apiKey, ...rest } = config;
    this.#apiKey = apiKey;
    this.#config = rest;
  }

  /** Replaces every occurrence of the API key in `text` by `[REDACTED]`. */
  redact(text: string): string {
    return text.includes(this.#apiKey) ? text.split(this.#apiKey).join("[REDACTED]") : text;
  }

  /**
   * Turns an absolute `next_page_uri` into a path below our origin (credentials never go elsewhere)
   * and below the base path: the base path is taken off when the path is inside it (`/v2/x` with
   * base path `/v2`, not `/v2x`).
   */
  relativePath(uri: string): string {
    const url = new URL(uri, this.#config.origin);
    const path = url.pathname + url.search;
    const { basePath } = this.#config;
    return basePath && path.startsWith(`${basePath}/`) ? path.slice(basePath.length) : path;
  }

  /**
   * Runs one operation with retries and returns the parsed response body.
   * @throws APIError subclasses, APIConnectionError, APIConnectionTimeoutError, APICertificateError,
   *   APIResponseValidationError, ValidationError (body over 1 MiB).
   */
  call<S extends z.ZodType>(op: Operation<S>): Promise<z.infer<S>>;
  call(op: Operation<undefined>): Promise<void>;
  async call(op: Operation<z.ZodType | undefined>): Promise<unknown> {
    const body = op.body === undefined ? undefined : JSON.stringify(keysToSnake(op.body));
    const n = body === undefined ? 0 : Buffer.byteLength(body);
    if (n > MAX_BODY_BYTES) {
      throw new ValidationError([
        { field: "input", message: `input: at most ${MAX_BODY_BYTES} bytes once encoded as JSON, got ${n}` },
      ]);
    }
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#apiKey}`,
      "service-version": SERVICE_VERSION,
      "user-agent": this.#config.userAgent,
      accept: "application/json",
    };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (op.idempotencyKey !== undefined) headers["idempotency-key"] = op.idempotencyKey;

    const policy = { ...this.#config.policy };
    if (op.options?.maxRetries !== undefined) policy.maxRetries = op.options.maxRetries;
    let timeoutMs = op.options?.timeoutMs ?? this.#config.timeoutMs;
    // Inside an operation with a deadline (deadline.ts), attempts, retries and waits end by it.
    const deadline = currentDeadline();
    if (deadline) {
      const left = deadline.at - Date.now();
      if (left <= 0) {
        const request = `${op.method} ${this.#config.basePath + op.path}`;
        throw new APIConnectionTimeoutError(`${request}: not sent: ${deadline.label} has passed`, {
          request,
          requestNotSent: true,
        });
      }
      timeoutMs = Math.min(timeoutMs, left);
      policy.budgetMs = Math.min(policy.budgetMs, left);
    }
    const keyed = op.idempotencyKey !== undefined;
    const replayable = () => keyed && this.#config.idempotency.mayResend();
    // A getter: with "auto", a response of an earlier attempt (e.g. a 429 echoing the key) can
    // make the POST replayable before the next retry decision.
    const req = {
      method: op.method,
      get idempotencyKey(): boolean {
        return replayable();
      },
    };
    const maxAttempts = policy.maxRetries + 1;
    const onRetry = this.#config.logger
      ? (attempt: number, delayMs: number) =>
          this.#log({
            kind: "retry",
            method: op.method,
            path: redactQuery(this.#config.basePath + op.path),
            attempt,
            maxAttempts,
            delayMs,
          })
      : undefined;
    const raw = await withRetries(
      req,
      policy,
      timeoutMs,
      (ms, n) => this.#attempt(op, headers, body, ms, n, maxAttempts),
      realClock,
      onRetry,
    );
    return this.#parse(op, raw);
  }

  /** Hands an entry to the logger; a logger that throws loses its entry, never the request. */
  #log(entry: RequestLogEntry): void {
    try {
      this.#config.logger?.(formatLogEntry(entry), entry);
    } catch {
      // the entry is lost; the request goes on
    }
  }

  /** One attempt: resolves with a 2xx response, throws an APIError for any other status. */
  async #attempt(
    op: Operation<z.ZodType | undefined>,
    headers: Record<string, string>,
    body: string | undefined,
    timeoutMs: number,
    attempt: number,
    maxAttempts: number,
  ): Promise<{ status: number; operationId: string | undefined; text: string }> {
    const path = this.#config.basePath + op.path;
    const request = `${op.method} ${path}`;
    const logging = this.#config.logger !== undefined;
    const started = logging ? performance.now() : 0;
    const logAttempt = (outcome: { status?: number; error?: string; operationId?: string }) =>
      this.#log({
        kind: "attempt",
        method: op.method,
        path: redactQuery(path),
        attempt,
        maxAttempts,
        durationMs: performance.now() - started,
        ...outcome,
      });
    const pacer = this.#config.pacer;
    if (pacer) await pacer.acquire();
    const pending = exchange(this.#config.dispatcher, {
      origin: this.#config.origin,
      path,
      method: op.method,
      headers,
      body,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    let timedOut = false;
    const timer = setTimeout(
      () => {
        timedOut = true;
        pending.abort(new Error(`no complete response within ${timeoutMs} ms`));
      },
      Math.min(timeoutMs, MAX_TIMER_MS),
    );
    try {
      const res = await pending.done;
      const { text } = res;
      const h = res.headers as Record<string, string | string[] | undefined>;
      const operationId = header(h, "operation-id");
      pacer?.observe({ status: res.status, retryAfterSeconds: parseRetryAfter(header(h, "retry-after")) });
      this.#config.serviceClock?.observeAnswer(
        { status: res.status, operationId, date: header(h, "date") },
        monotonicNowMs(),
      );
      if (logging) logAttempt({ status: res.status, operationId });
      if (op.idempotencyKey !== undefined) {
        this.#config.idempotency.observe(
          op.idempotencyKey,
          header(h, "idempotency-key"),
          res.status,
          header(h, "idempotent-replayed"),
        );
      }
      if (res.status >= 200 && res.status < 300) return { status: res.status, operationId, text };
      throw makeAPIError({
        status: res.status,
        method: op.method,
        path,
        operationId,
        retryAfter: header(h, "retry-after"),
        bodyText: this.redact(text),
      });
    } catch (err) {
      if (err instanceof ServiceError) throw err;
      const code = errorCode(err);
      if (logging) logAttempt({ error: timedOut ? "timeout" : (code ?? "error") });
      if (code !== undefined && (UNTRUSTED_CODES.has(code) || REJECTED_CERT_CODES.has(code))) {
        const why = err instanceof Error ? err.message : code;
        throw new APICertificateError(
          `${request}: the service's TLS certificate was rejected: ${why} (${code}).` +
            (UNTRUSTED_CODES.has(code) ? ` ${TRUST_ADVICE}` : ""),
          { request, code, cause: err },
        );
      }
      if (timedOut || (code !== undefined && TIMEOUT_CODES.has(code))) {
        throw new APIConnectionTimeoutError(`${request}: no complete response within ${timeoutMs} ms`, {
          request,
          requestNotSent: code === "UND_ERR_CONNECT_TIMEOUT",
          cause: err,
        });
      }
      const detail = err instanceof Error ? this.redact(err.message) : "unknown error";
      throw new APIConnectionError(`${request}: connection failed: ${detail}${code ? ` (${code})` : ""}`, {
        request,
        requestNotSent: code !== undefined && NOT_SENT_CODES.has(code),
        cause: err,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  /** A response body fit for an error: parsed (camelCase) from the text scrubbed of the API key. */
  #scrubbed(text: string): unknown {
    const clean = this.redact(text);
    try {
      return keysToCamel(JSON.parse(clean));
    } catch {
      return clean;
    }
  }

  #parse(
    op: Operation<z.ZodType | undefined>,
    raw: { status: number; operationId?: string; text: string },
  ): unknown {
    if (op.schema === undefined) return undefined;
    const fail = (message: string, body: unknown, zodError?: z.ZodError) =>
      new APIResponseValidationError(`${op.method} ${this.#config.basePath + op.path}: ${message}`, {
        status: raw.status,
        operationId: raw.operationId,
        zodError,
        body,
      });
    let json: unknown;
    try {
      json = JSON.parse(raw.text);
    } catch {
      throw fail("response body is not JSON", this.#scrubbed(raw.text));
    }
    const result = op.schema.safeParse(keysToCamel(json));
    if (!result.success) {
      const { issues } = result.error;
      const where = issues.slice(0, 5).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
      if (issues.length > 5) where.push(`and ${issues.length - 5} more`);
      throw fail(
        `response does not match the expected shape: ${where.join("; ")}`,
        this.#scrubbed(raw.text),
        result.error,
      );
    }
    return result.data;
  }
}

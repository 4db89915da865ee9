/**
 * The emulator's HTTP application (reference: docs/service-api.md).
 *
 * {@link createApp} builds an unstarted Fastify instance serving the public API (abuse reports,
 * event subscriptions, event destinations) and the operator endpoints under `/_operator`.
 *
 * Checks run in the order a real server applies them; each stage answers with the first problem
 * it finds:
 *
 * | stage | where | codes |
 * |---|---|---|
 * | injected faults (public API only) | `onRequest` hook, first | 503 (code 500), 429 (226), connection reset (`reset-after`: at `onSend`, after the handler) |
 * | authentication | `onRequest` | 201, 202, 203 |
 * | rate limit (when configured) | `onRequest` | 429 / 226 |
 * | `Service-Version` | `onRequest` | 218 missing, 217 wrong |
 * | routing | `onRequest` | 404 unknown path, 405 wrong method |
 * | authorization for abuse reports | `onRequest` | 403 / 221 |
 * | body headers | `onRequest` | 211 body on GET/DELETE, 216 body without Content-Type, 210 not JSON |
 * | body size | body parser | 413 |
 * | JSON | handler | 213 |
 * | unknown fields | handler | 214 |
 * | types, required, limits | handler | 215 |
 * | event types | handler | 238 |
 * | path ID prefix, `limit` | handler | 227, 233 |
 * | existence, references | store transaction | 404, 223, 409 |
 * | `Idempotency-Key` of a create (when honoured) | handler, store transaction | 215 malformed key, 409 / 240 key reused with another request |
 *
 * **Idempotency keys**: a `POST` that creates a resource and carries an
 * `Idempotency-Key` header runs at most once per account and key within
 * {@link IDEMPOTENCY_KEY_TTL_MS}: the key is stored in the same transaction as the resource, a
 * repeat with the same method, path and body gets the first response again (same status and
 * body, plus `Idempotent-Replayed: true`), and a repeat with another request gets 409 / 240.
 * Every response to such a POST echoes the key in an `Idempotency-Key` header: that echo is how
 * a client tells that the server honours keys. With `idempotency: false` the header is ignored
 * entirely (no echo), like a server without the feature.
 *
 * Error bodies and HTTP statuses are produced in one place: {@link ServiceError} plus the one
 * error handler and the one not-found function below.
 *
 * @packageDocumentation
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import {
  EVENT_TYPES,
  ID_PREFIX,
  isEventType,
  isWellFormedId,
  MAX_BODY_BYTES,
  PAGE_LIMIT_MAX,
  PAGE_LIMIT_MIN,
  SERVICE_VERSION,
} from "../contract/limits";
import { buildOpenApiDocument } from "../contract/openapi";
import { errorBody, ServiceError, toServiceError } from "./errors";
import { checkFaults, drawFault, seededRandom, type FaultConfig, type FaultOutcome } from "./faults";
import { KsuidGenerator } from "./ids";
import {
  normalizeTarget,
  renderAbuseReport,
  renderDestination,
  renderSubscription,
  type Account,
} from "./resources";
import type { Store } from "./store";
import {
  createAbuseReportSchema,
  createDestinationSchema,
  createSubscriptionSchema,
  faultsSchema,
  parseJsonObject,
  reviewSchema,
  updateDestinationSchema,
  updateSubscriptionSchema,
  validate,
  type CreateAbuseReportInput,
  type CreateDestinationInput,
  type CreateSubscriptionInput,
  type ReviewInput,
  type UpdateDestinationInput,
  type UpdateSubscriptionInput,
} from "./validate";

/** Options of {@link createApp}. */
export interface CreateAppOptions {
  /** Where resources and the request log live; the caller opens and closes it. */
  store: Store;
  /** API keys of accounts authorized for abuse reports; each key is its own account. */
  apiKeys?: string[];
  /** API keys of accounts **not** authorized for abuse reports (they get 403 / 221 there). */
  restrictedApiKeys?: string[];
  /**
   * Key of the operator endpoints (`Authorization: Bearer <adminKey>`). Without it every
   * `/_operator` path answers 404.
   */
  adminKey?: string;
  /**
   * Absolute base of `uri` fields, e.g. `http://127.0.0.1:8080` (a trailing `/` is dropped).
   * Without it the base is `http://<Host header>` of each request.
   */
  publicUrl?: string;
  /** Per-account limit: at most `max` requests in any rolling `windowMs` **milliseconds**. Off when absent. */
  rateLimit?: { max: number; windowMs: number };
  /**
   * Automatic review: a hostname `PENDING` for at least this many **milliseconds** is reviewed
   * (by `autoReviewStatus`: BANNED, or IGNORE for reserved names) when its report is next read.
   * Off when absent.
   */
  reviewDelayMs?: number;
  /** Fault injection at start; changeable at run time through `PUT /_operator/faults`. */
  faults?: FaultConfig;
  /**
   * Honour `Idempotency-Key` on creates (default `true`). `false` simulates a server without the
   * feature: the header is ignored and never echoed. Changeable at run time
   * ({@link EmulatorControl.idempotency}).
   */
  idempotency?: boolean;
  /**
   * Fastify's request logging, to **stderr**: `true` for level `info`, or a level name. Off when
   * absent or `false`.
   */
  logger?: boolean | "debug" | "info" | "warn" | "error";
  /** Clock in **milliseconds** since the Unix epoch for review delays and rate limits (tests). */
  clock?: () => number;
}

/** Run-time controls of an emulator app (`app.emulator`). */
export interface EmulatorControl {
  /** The store given to {@link createApp}. */
  readonly store: Store;
  /** Base of `uri` fields; settable after `listen` (see `startEmulator`). */
  publicUrl: string | undefined;
  /** Current fault configuration (a copy). */
  getFaults(): FaultConfig;
  /**
   * Replaces the fault configuration (`{}` switches injection off) and reseeds the generator.
   *
   * @throws Error when a share is outside 0..1, the shares add up to more than 1, or the latency
   * is negative.
   */
  setFaults(cfg: FaultConfig): FaultConfig;
  /** Whether creates honour `Idempotency-Key` (see {@link CreateAppOptions.idempotency}); settable. */
  idempotency: boolean;
}

/** The Fastify instance returned by {@link createApp}, with its {@link EmulatorControl}. */
export type EmulatorApp = FastifyInstance & { readonly emulator: EmulatorControl };

/**
 * Well-formed API keys and admin keys: 1 to 512 characters of `A-Z a-z 0-9 . _ ~ + / = -`.
 * A token outside this set answers 202 (malformed).
 */
export const TOKEN_PATTERN = /^[A-Za-z0-9._~+/=-]{1,512}$/;

const OPERATOR_PREFIX = "/_operator";

/** How long the emulator remembers an `Idempotency-Key`: 24 hours, in **milliseconds**. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

/** Most request log entries in one page of `GET /_operator/requests` (also its default `limit`). */
export const REQUEST_LOG_PAGE_MAX = 1000;

/** Well-formed `Idempotency-Key` values: 1 to 255 visible ASCII characters (a UUID fits). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

function sha256(s: string): Buffer {
  return createHash("sha256").update(s, "utf8").digest();
}

/** Per-route data in Fastify's route `config`. */
interface RouteInfo {
  /**
   * `public` API route, `operator` route, `document` (the OpenAPI document: no authentication),
   * or a `405` catch-all for wrong methods.
   */
  kind: "public" | "operator" | "document" | "405";
  /** The route (or the 405 catch-all) is on an operator path: admin key, not logged. */
  operator: boolean;
  /** Route needs an account authorized for abuse reports (221). */
  abuse?: boolean;
  /** `Allow` header of a 405 route. */
  allow?: string;
  /** A create that honours `Idempotency-Key`. */
  idempotent?: boolean;
}

/**
 * The route the router matched for `request`, or `undefined` when it matched none. Access, fault
 * injection and request logging are decided on this, never on the text of `request.url` (which
 * the router decodes and normalizes before matching).
 */
function matchedRoute(request: FastifyRequest): RouteInfo | undefined {
  if (request.is404) return undefined;
  const info = request.routeOptions?.config as unknown as Partial<RouteInfo> | undefined;
  return info?.kind === undefined ? undefined : (info as RouteInfo);
}

/** Whether the request was routed to an operator endpoint (or to its 405 catch-all). */
function isOperatorRoute(request: FastifyRequest): boolean {
  return matchedRoute(request)?.operator === true;
}

/** The one "no such route" error, used for unknown paths everywhere. */
function routeNotFound(request: FastifyRequest): ServiceError {
  return new ServiceError(404, `no route for ${request.method} ${request.url.split("?")[0]}`);
}

const ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/**
 * Builds the emulator application: public API, operator endpoints, hooks, one error handler and
 * one not-found handler. Registers (or finds, by the SHA-256 of the key) one account per API key
 * in the store. The instance is not listening; call `listen` (or use `startEmulator`).
 *
 * @throws Error when a key is malformed (see {@link TOKEN_PATTERN}), a key is both authorized and
 * restricted, or the fault configuration is invalid.
 */
export function createApp(opts: CreateAppOptions): EmulatorApp {
  const { store } = opts;
  const clock = opts.clock ?? Date.now;
  const opIds = new KsuidGenerator();

  // --- accounts ------------------------------------------------------------------------------
  const keyEntries: { hash: Buffer; account: Account }[] = [];
  const restricted = new Set(opts.restrictedApiKeys ?? []);
  for (const key of [...(opts.apiKeys ?? []), ...restricted]) {
    if (!TOKEN_PATTERN.test(key))
      throw new Error("an API key is malformed: keys are 1-512 characters of A-Z a-z 0-9 . _ ~ + / = -");
  }
  for (const key of opts.apiKeys ?? []) {
    if (restricted.has(key)) throw new Error("an API key cannot be both authorized and restricted");
  }
  const seen = new Set<string>();
  for (const [key, authorized] of [
    ...(opts.apiKeys ?? []).map((k) => [k, true] as const),
    ...[...restricted].map((k) => [k, false] as const),
  ]) {
    if (seen.has(key)) continue;
    seen.add(key);
    const hash = sha256(key);
    keyEntries.push({ hash, account: store.registerAccount(hash.toString("hex"), authorized) });
  }
  if (opts.adminKey !== undefined && !TOKEN_PATTERN.test(opts.adminKey))
    throw new Error("the admin key is malformed");
  const adminHash = opts.adminKey === undefined ? undefined : sha256(opts.adminKey);

  /** Constant-time lookup: hashes the token and compares it with every key's hash. */
  function accountOfToken(token: string): Account | undefined {
    const h = sha256(token);
    let found: Account | undefined;
    for (const e of keyEntries) if (timingSafeEqual(e.hash, h)) found = e.account;
    return found;
  }

  function bearerToken(request: FastifyRequest): string {
    const header = request.headers.authorization;
    const m = header === undefined ? null : /^Bearer +(.*)$/i.exec(header);
    if (!m || m[1] === "") {
      throw new ServiceError(
        201,
        "the Authorization header must be present and of the form 'Bearer <API key>'",
      );
    }
    if (!TOKEN_PATTERN.test(m[1]))
      throw new ServiceError(202, "the API key in the Authorization header is malformed");
    return m[1];
  }

  // --- faults, rate limit, request state -------------------------------------------------------
  let faults: FaultConfig = checkFaults(opts.faults ?? {});
  let random: () => number = faults.seed === undefined ? Math.random : seededRandom(faults.seed);
  const windows = new Map<string, number[]>();
  const accounts = new WeakMap<FastifyRequest, Account>();
  /** The injected fault drawn for a request, when one was. */
  const faultOf = new WeakMap<FastifyRequest, FaultOutcome>();
  /** Requests answered with the replay of an idempotency key's first response. */
  const replays = new WeakSet<FastifyRequest>();
  /** Requests already written to the request log (a `reset-after` is logged at `onSend`). */
  const logged = new WeakSet<FastifyRequest>();

  function rateLimit(account: Account): void {
    const rl = opts.rateLimit;
    if (!rl) return;
    const now = clock();
    let q = windows.get(account.id);
    if (!q) windows.set(account.id, (q = []));
    while (q.length > 0 && q[0] <= now - rl.windowMs) q.shift();
    if (q.length >= rl.max) {
      const retryAfterSeconds = Math.max(1, Math.ceil((q[0] + rl.windowMs - now) / 1000));
      throw new ServiceError(
        226,
        `rate limited: at most ${rl.max} requests per ${rl.windowMs / 1000} seconds; retry after ${retryAfterSeconds} seconds`,
        { retryAfterSeconds },
      );
    }
    q.push(now);
  }

  const control: EmulatorControl = {
    store,
    publicUrl: opts.publicUrl?.replace(/\/+$/, ""),
    getFaults: () => ({ ...faults }),
    setFaults(cfg) {
      faults = checkFaults(cfg);
      random = faults.seed === undefined ? Math.random : seededRandom(faults.seed);
      return { ...faults };
    },
    idempotency: opts.idempotency ?? true,
  };

  function base(request: FastifyRequest): string {
    if (control.publicUrl !== undefined) return control.publicUrl.replace(/\/+$/, "");
    return `http://${request.headers.host ?? "localhost"}`;
  }

  function accountOf(request: FastifyRequest): Account {
    const a = accounts.get(request);
    if (!a) throw new ServiceError(500, "request has no account");
    return a;
  }

  // --- Fastify --------------------------------------------------------------------------------
  const level = opts.logger === true ? "info" : opts.logger || undefined;
  const app = Fastify({
    logger: level ? { level, stream: process.stderr } : false,
    bodyLimit: MAX_BODY_BYTES,
    genReqId: () => opIds.next(ID_PREFIX.operation).id,
    requestIdHeader: false,
    return503OnClosing: false,
    routerOptions: { maxParamLength: 2048 },
    // Paths the router cannot even decode (bad percent-encoding, over-long parameters) name no
    // route: the same 404 as any unknown path, through the same error rendering.
    frameworkErrors: (_error, request, reply) => {
      sendError(routeNotFound(request), request, reply);
      logRequest(request, 404);
    },
    // A request without Host reaches the hooks below (which answer it with the usual error body)
    // instead of Node's bare 400 with no body.
    http: { requireHostHeader: false },
    // Requests Node's HTTP parser rejects (malformed request line or headers, unknown method,
    // headers over 16 KiB) never reach Fastify: answer them with the same error body.
    clientErrorHandler: (error, socket) => {
      if (error.code === "ECONNRESET" || socket.destroyed) return;
      const raw: unknown = error.rawPacket;
      const head = Buffer.isBuffer(raw) && raw.subarray(0, 5).toString("latin1") === "HEAD ";
      if (socket.writable) socket.write(rawErrorResponse(error.code, head));
      socket.destroy();
    },
  });

  /** A whole HTTP/1.1 error response for a request that never became a Fastify request. */
  function rawErrorResponse(parserCode: string | undefined, head: boolean): string {
    const status =
      parserCode === "HPE_HEADER_OVERFLOW" ? 431 : parserCode === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
    const message =
      status === 431
        ? "the request line and headers are larger than the server accepts (16 KiB)"
        : status === 408
          ? "the request was not received in time"
          : `the request is not valid HTTP/1.1 (${parserCode ?? "parse error"})`;
    const id = opIds.next(ID_PREFIX.operation).id;
    const body = JSON.stringify(errorBody(new ServiceError(213, message, { status }), id));
    return (
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nOperation-Id: ${id}\r\nConnection: close\r\n\r\n` +
      (head ? "" : body)
    );
  }
  // CONNECT requests are not routed by Fastify; without a listener Node would drop the connection.
  app.server.on("connect", (_request: unknown, socket: Duplex) => {
    const id = opIds.next(ID_PREFIX.operation).id;
    const body = JSON.stringify(errorBody(new ServiceError(404, "no route for CONNECT"), id));
    socket.on("error", () => undefined);
    socket.end(
      `HTTP/1.1 404 Not Found\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nOperation-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
    );
  });

  app.removeAllContentTypeParsers();
  // Every body is read as a string here; the handlers decide what it means (213 etc.), so that the
  // checks happen in the documented order.
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));

  // --- the one error handler and the one not-found handler --------------------------------------
  /** Renders any error as the service's error body, with its status and headers. */
  function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    const e = toServiceError(error);
    if (e.status === 500 && e.options.status === undefined)
      request.log.error({ err: error }, "unexpected error");
    if (e.options.retryAfterSeconds !== undefined)
      reply.header("retry-after", String(e.options.retryAfterSeconds));
    if (e.options.allow !== undefined) reply.header("allow", e.options.allow);
    reply.header("operation-id", request.id);
    return reply.code(e.status).type("application/json; charset=utf-8").send(errorBody(e, request.id));
  }
  app.setErrorHandler((error, request, reply) => sendError(error, request, reply));
  app.setNotFoundHandler((request) => {
    throw routeNotFound(request);
  });

  app.addHook("onSend", (request, reply, payload, done) => {
    reply.header("operation-id", request.id);
    const key = echoedIdempotencyKey(request);
    if (key !== undefined) reply.header("idempotency-key", key);
    if (faultOf.get(request) === "reset-after") {
      // The handler ran and its transaction is committed; the client gets a reset instead of
      // the response.
      logRequest(request, reply.statusCode);
      request.raw.socket.destroy();
    }
    done(null, payload);
  });

  app.addHook("onResponse", (request, reply, done) => {
    if (!isOperatorRoute(request)) logRequest(request, reply.statusCode);
    done();
  });

  function logRequest(request: FastifyRequest, status: number): void {
    if (logged.has(request)) return;
    logged.add(request);
    store.logRequest({
      time: new Date().toISOString(),
      method: request.method,
      path: request.url,
      status,
      operation_id: request.id,
      account_id: accounts.get(request)?.id ?? null,
      fault: faultOf.get(request) ?? null,
      idempotent_replay: replays.has(request),
    });
  }

  /**
   * The `Idempotency-Key` to echo on the response: the request's own key, when it is a
   * well-formed key on a create route and keys are honoured; otherwise `undefined`.
   */
  function echoedIdempotencyKey(request: FastifyRequest): string | undefined {
    if (!control.idempotency || request.method !== "POST") return undefined;
    const key = request.headers["idempotency-key"];
    if (typeof key !== "string" || !IDEMPOTENCY_KEY_PATTERN.test(key)) return undefined;
    const info = request.routeOptions?.config as unknown as RouteInfo | undefined;
    return info?.idempotent ? key : undefined;
  }

  /**
   * Answers a create with 201 and the body `run()` renders. With an `Idempotency-Key` (when
   * honoured), `run` happens inside {@link Store.idempotentCreate}: at most once per account and
   * key, in the transaction that stores the key; a repeat gets the first response again.
   *
   * @throws ServiceError 215 for a malformed key, 240 for a key reused with another request, and
   * whatever `run` throws.
   */
  function create(request: FastifyRequest, reply: FastifyReply, run: () => unknown): FastifyReply {
    const raw = control.idempotency ? request.headers["idempotency-key"] : undefined;
    if (raw === undefined) return reply.code(201).send(run());
    if (typeof raw !== "string" || !IDEMPOTENCY_KEY_PATTERN.test(raw)) {
      throw new ServiceError(
        215,
        "Idempotency-Key: must be 1 to 255 visible ASCII characters (a UUID, for example)",
      );
    }
    const body = typeof request.body === "string" ? request.body : "";
    const fingerprint = sha256(`${request.method} ${request.url}\n${body}`).toString("hex");
    const result = store.idempotentCreate(
      accountOf(request).id,
      { key: raw, fingerprint, nowMs: clock(), ttlMs: IDEMPOTENCY_KEY_TTL_MS },
      () => ({ status: 201, body: JSON.stringify(run()) }),
    );
    if (result.replayed) {
      replays.add(request);
      reply.header("idempotent-replayed", "true");
    }
    return reply.code(result.status).type("application/json; charset=utf-8").send(result.body);
  }

  // --- request checks (onRequest) ---------------------------------------------------------------
  function checkBodyHeaders(request: FastifyRequest): void {
    const h = request.headers;
    const cl = h["content-length"];
    const hasBody = (cl !== undefined && cl.trim() !== "0") || h["transfer-encoding"] !== undefined;
    const method = request.method;
    if (method === "GET" || method === "HEAD" || method === "DELETE") {
      if (hasBody) throw new ServiceError(211, `a ${method} request must not have a body`);
      return;
    }
    const ct = h["content-type"];
    if (ct === undefined) {
      if (hasBody)
        throw new ServiceError(
          216,
          "the request has a body but no Content-Type header; use application/json",
        );
      return;
    }
    if (ct.split(";")[0].trim().toLowerCase() !== "application/json") {
      throw new ServiceError(210, `Content-Type must be application/json, got ${JSON.stringify(ct)}`);
    }
  }

  function checkRoute(request: FastifyRequest): RouteInfo | undefined {
    const info = matchedRoute(request);
    if (info === undefined) throw routeNotFound(request);
    if (info.kind === "405") {
      throw new ServiceError(
        405,
        `method ${request.method} is not allowed on this path; allowed: ${info.allow}`,
        {
          allow: info.allow,
        },
      );
    }
    return info;
  }

  function checkOperator(request: FastifyRequest): void {
    if (adminHash === undefined) throw routeNotFound(request);
    const token = bearerToken(request);
    if (!timingSafeEqual(sha256(token), adminHash)) throw new ServiceError(203, "the admin key is not valid");
    checkRoute(request);
    checkBodyHeaders(request);
  }

  function checkPublic(request: FastifyRequest): void {
    const token = bearerToken(request);
    const account = accountOfToken(token);
    if (!account) throw new ServiceError(203, "the API key is not valid");
    accounts.set(request, account);
    rateLimit(account);
    const version = request.headers["service-version"];
    if (version === undefined) {
      throw new ServiceError(
        218,
        `the Service-Version header is required; use Service-Version: ${SERVICE_VERSION}`,
      );
    }
    if (typeof version !== "string" || version.trim() !== SERVICE_VERSION) {
      throw new ServiceError(
        217,
        `unsupported Service-Version ${JSON.stringify(version)}; the supported version is ${SERVICE_VERSION}`,
      );
    }
    const info = checkRoute(request);
    if (info?.abuse && !account.abuseReportsAuthorized) {
      throw new ServiceError(221, "this account is not authorized to use abuse reports");
    }
    checkBodyHeaders(request);
  }

  /** The account of the request's token, for the request log only: never throws. */
  function accountForLog(request: FastifyRequest): void {
    const token = /^Bearer +(.*)$/i.exec(request.headers.authorization ?? "")?.[1];
    const account = token !== undefined && TOKEN_PATTERN.test(token) ? accountOfToken(token) : undefined;
    if (account) accounts.set(request, account);
  }

  /**
   * Public requests: faults first (a faulted request is answered before authentication, body
   * parsing or any handler, so it changes nothing), then the checks. A reset never answers.
   */
  function publicRequest(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void {
    const outcome = drawFault(faults, random);
    if (outcome !== "none") {
      faultOf.set(request, outcome);
      accountForLog(request);
    }
    if (outcome === "reset") {
      logRequest(request, 0);
      reply.hijack();
      request.raw.socket.destroy();
      done();
      return;
    }
    try {
      if (outcome === "503") {
        throw new ServiceError(500, "service unavailable (injected fault)", {
          status: 503,
          retryAfterSeconds: 1,
        });
      }
      if (outcome === "429") {
        throw new ServiceError(226, "rate limited (injected fault); retry after 1 second", {
          retryAfterSeconds: 1,
        });
      }
      checkPublic(request);
    } catch (err) {
      done(err as Error);
      return;
    }
    done();
  }

  app.addHook("onRequest", (request, reply, done) => {
    if (request.headers.host === undefined && request.raw.httpVersion === "1.1") {
      done(new ServiceError(213, "an HTTP/1.1 request must have a Host header"));
      return;
    }
    if (matchedRoute(request)?.kind === "document") {
      done();
      return;
    }
    if (isOperatorRoute(request)) {
      try {
        checkOperator(request);
      } catch (err) {
        done(err as Error);
        return;
      }
      done();
      return;
    }
    const latency = faults.latencyMs ?? 0;
    if (latency > 0) setTimeout(() => publicRequest(request, reply, done), latency);
    else publicRequest(request, reply, done);
  });

  // --- routes ----------------------------------------------------------------------------------
  type Handler = (request: FastifyRequest, reply: FastifyReply) => unknown;
  const routesByPath = new Map<string, { operator: boolean; methods: string[] }>();
  function route(
    kind: "public" | "operator",
    method: string,
    url: string,
    handler: Handler,
    abuse = false,
  ): void {
    const info: RouteInfo = {
      kind,
      operator: kind === "operator",
      abuse,
      idempotent: kind === "public" && method === "POST",
    };
    app.route({ method: method as "GET", url, handler, config: info as unknown as Record<string, unknown> });
    routesByPath.set(url, {
      operator: kind === "operator",
      methods: [...(routesByPath.get(url)?.methods ?? []), method],
    });
  }

  function pathId(request: FastifyRequest, prefix: string, what: string): string {
    const id = (request.params as { id: string }).id;
    if (id === "") throw routeNotFound(request);
    if (!id.startsWith(prefix)) {
      throw new ServiceError(
        227,
        `the ID ${JSON.stringify(id)} in the path is not ${what} ID (they start with ${prefix})`,
      );
    }
    if (!isWellFormedId(id, prefix))
      throw new ServiceError(404, `no ${what.replace(/^an? /, "")} with ID ${JSON.stringify(id)}`);
    return id;
  }

  function pageQuery(request: FastifyRequest, prefix: string): { limit: number; beforeId?: string } {
    const q = request.query as Record<string, unknown>;
    let limit = PAGE_LIMIT_MAX;
    if (q.limit !== undefined) {
      const n = typeof q.limit === "string" && /^\d{1,4}$/.test(q.limit) ? Number(q.limit) : NaN;
      if (!(n >= PAGE_LIMIT_MIN && n <= PAGE_LIMIT_MAX)) {
        throw new ServiceError(
          233,
          `limit must be an integer between ${PAGE_LIMIT_MIN} and ${PAGE_LIMIT_MAX}, got ${JSON.stringify(q.limit)}`,
        );
      }
      limit = n;
    }
    let beforeId: string | undefined;
    if (q.before_id !== undefined) {
      if (typeof q.before_id !== "string" || !isWellFormedId(q.before_id, prefix)) {
        throw new ServiceError(
          215,
          `before_id: must be an ID starting with ${prefix}, got ${JSON.stringify(q.before_id)}`,
        );
      }
      beforeId = q.before_id;
    }
    return { limit, beforeId };
  }

  function checkEventTypes(sources: { type: string }[] | undefined): void {
    sources?.forEach((s, i) => {
      if (!isEventType(s.type)) {
        throw new ServiceError(
          238,
          `sources[${i}].type: unknown event type ${JSON.stringify(s.type)}; known types include ${EVENT_TYPES.slice(0, 3).join(", ")}, … (${EVENT_TYPES.length} in all)`,
        );
      }
    });
  }

  function checkBodyId(body: { id?: string }, id: string): void {
    if (body.id !== undefined && body.id !== id) {
      throw new ServiceError(
        215,
        `id: must equal the ID in the path (${id}), got ${JSON.stringify(body.id)}`,
      );
    }
  }

  // Abuse reports
  route(
    "public",
    "POST",
    "/abuse_reports",
    (request, reply) =>
      create(request, reply, () => {
        const body = validate<CreateAbuseReportInput>(parseJsonObject(request.body), createAbuseReportSchema);
        const hostnames: string[] = [];
        for (const u of body.urls) {
          const h = new URL(u).hostname.toLowerCase();
          if (!hostnames.includes(h)) hostnames.push(h);
        }
        const report = store.createAbuseReport(
          accountOf(request).id,
          {
            urls: body.urls,
            metadata: body.metadata ?? "",
            hostnames,
          },
          clock(),
        );
        return renderAbuseReport(report, base(request));
      }),
    true,
  );
  route(
    "public",
    "GET",
    "/abuse_reports/:id",
    (request) => {
      const id = pathId(request, ID_PREFIX.abuseReport, "an abuse report");
      const autoReview =
        opts.reviewDelayMs === undefined ? undefined : { delayMs: opts.reviewDelayMs, nowMs: clock() };
      const report = store.getAbuseReport(accountOf(request).id, id, autoReview);
      if (!report) throw new ServiceError(404, `no abuse report with ID ${JSON.stringify(id)}`);
      return renderAbuseReport(report, base(request));
    },
    true,
  );

  // Event subscriptions
  route("public", "POST", "/event_subscriptions", (request, reply) =>
    create(request, reply, () => {
      const body = validate<CreateSubscriptionInput>(parseJsonObject(request.body), createSubscriptionSchema);
      checkEventTypes(body.sources);
      const sub = store.createSubscription(accountOf(request).id, {
        metadata: body.metadata ?? "",
        description: body.description ?? "",
        sources: body.sources.map((s) => s.type),
        destinationIds: body.destination_ids,
      });
      return renderSubscription(sub, base(request));
    }),
  );
  route("public", "GET", "/event_subscriptions", (request) => {
    const q = pageQuery(request, ID_PREFIX.eventSubscription);
    const page = store.listSubscriptions(accountOf(request).id, q);
    const b = base(request);
    const last = page.items[page.items.length - 1];
    return {
      event_subscriptions: page.items.map((s) => renderSubscription(s, b)),
      uri: `${b}/event_subscriptions`,
      next_page_uri: page.hasMore ? `${b}/event_subscriptions?before_id=${last.id}&limit=${q.limit}` : null,
    };
  });
  route("public", "GET", "/event_subscriptions/:id", (request) => {
    const id = pathId(request, ID_PREFIX.eventSubscription, "an event subscription");
    const sub = store.getSubscription(accountOf(request).id, id);
    if (!sub) throw new ServiceError(404, `no event subscription with ID ${JSON.stringify(id)}`);
    return renderSubscription(sub, base(request));
  });
  route("public", "PATCH", "/event_subscriptions/:id", (request) => {
    const body = validate<UpdateSubscriptionInput>(parseJsonObject(request.body), updateSubscriptionSchema);
    checkEventTypes(body.sources);
    const id = pathId(request, ID_PREFIX.eventSubscription, "an event subscription");
    checkBodyId(body, id);
    const sub = store.updateSubscription(accountOf(request).id, id, {
      metadata: body.metadata,
      description: body.description,
      sources: body.sources?.map((s) => s.type),
      destinationIds: body.destination_ids,
    });
    return renderSubscription(sub, base(request));
  });
  route("public", "DELETE", "/event_subscriptions/:id", (request, reply) => {
    const id = pathId(request, ID_PREFIX.eventSubscription, "an event subscription");
    store.deleteSubscription(accountOf(request).id, id);
    return reply.code(204).send();
  });
  route("public", "GET", "/event_subscriptions/:id/sources/:type", (request) => {
    const id = pathId(request, ID_PREFIX.eventSubscription, "an event subscription");
    const { type } = request.params as { type: string };
    const sub = store.getSubscription(accountOf(request).id, id);
    if (!sub) throw new ServiceError(404, `no event subscription with ID ${JSON.stringify(id)}`);
    if (!sub.sources.includes(type))
      throw new ServiceError(404, `event subscription ${id} has no source ${JSON.stringify(type)}`);
    return { type, uri: `${base(request)}/event_subscriptions/${id}/sources/${type}` };
  });

  // Event destinations
  route("public", "POST", "/event_destinations", (request, reply) =>
    create(request, reply, () => {
      const body = validate<CreateDestinationInput>(parseJsonObject(request.body), createDestinationSchema);
      const dest = store.createDestination(accountOf(request).id, {
        metadata: body.metadata ?? "",
        description: body.description ?? "",
        format: body.format ?? "json",
        target: normalizeTarget(body.target),
      });
      return renderDestination(dest, base(request));
    }),
  );
  route("public", "GET", "/event_destinations", (request) => {
    const q = pageQuery(request, ID_PREFIX.eventDestination);
    const page = store.listDestinations(accountOf(request).id, q);
    const b = base(request);
    const last = page.items[page.items.length - 1];
    return {
      event_destinations: page.items.map((d) => renderDestination(d, b)),
      uri: `${b}/event_destinations`,
      next_page_uri: page.hasMore ? `${b}/event_destinations?before_id=${last.id}&limit=${q.limit}` : null,
    };
  });
  route("public", "GET", "/event_destinations/:id", (request) => {
    const id = pathId(request, ID_PREFIX.eventDestination, "an event destination");
    const dest = store.getDestination(accountOf(request).id, id);
    if (!dest) throw new ServiceError(404, `no event destination with ID ${JSON.stringify(id)}`);
    return renderDestination(dest, base(request));
  });
  route("public", "PATCH", "/event_destinations/:id", (request) => {
    const body = validate<UpdateDestinationInput>(parseJsonObject(request.body), updateDestinationSchema);
    const id = pathId(request, ID_PREFIX.eventDestination, "an event destination");
    checkBodyId(body, id);
    const dest = store.updateDestination(accountOf(request).id, id, {
      metadata: body.metadata,
      description: body.description,
      format: body.format,
      target: body.target === undefined ? undefined : normalizeTarget(body.target),
    });
    return renderDestination(dest, base(request));
  });
  route("public", "DELETE", "/event_destinations/:id", (request, reply) => {
    const id = pathId(request, ID_PREFIX.eventDestination, "an event destination");
    store.deleteDestination(accountOf(request).id, id);
    return reply.code(204).send();
  });

  // Operator endpoints (outside the public API; admin key; no Service-Version)
  route("operator", "POST", `${OPERATOR_PREFIX}/abuse_reports/:id/review`, (request) => {
    const body = validate<ReviewInput>(parseJsonObject(request.body), reviewSchema);
    const id = pathId(request, ID_PREFIX.abuseReport, "an abuse report");
    const report = store.reviewAbuseReport(id, body.hostnames, clock());
    return renderAbuseReport(report, base(request));
  });
  route("operator", "GET", `${OPERATOR_PREFIX}/faults`, () => control.getFaults());
  route("operator", "PUT", `${OPERATOR_PREFIX}/faults`, (request) => {
    const body = validate<FaultConfig>(parseJsonObject(request.body), faultsSchema);
    try {
      return control.setFaults(body);
    } catch (e) {
      throw new ServiceError(215, (e as Error).message);
    }
  });
  route("operator", "GET", `${OPERATOR_PREFIX}/requests`, (request) => {
    const q = request.query as Record<string, unknown>;
    const since = q.since;
    if (since !== undefined && (typeof since !== "string" || !/^\d{1,15}$/.test(since))) {
      throw new ServiceError(215, `since: must be a non-negative integer, got ${JSON.stringify(since)}`);
    }
    let limit = REQUEST_LOG_PAGE_MAX;
    if (q.limit !== undefined) {
      const n = typeof q.limit === "string" && /^\d{1,5}$/.test(q.limit) ? Number(q.limit) : NaN;
      if (!(n >= 1 && n <= REQUEST_LOG_PAGE_MAX)) {
        throw new ServiceError(
          233,
          `limit must be an integer between 1 and ${REQUEST_LOG_PAGE_MAX}, got ${JSON.stringify(q.limit)}`,
        );
      }
      limit = n;
    }
    // One entry more than the page tells whether another page follows.
    const entries = store.requests(since === undefined ? 0 : Number(since), limit + 1);
    const page = entries.slice(0, limit);
    const next = entries.length > limit ? page[page.length - 1].seq : undefined;
    return {
      requests: page,
      next_page_uri:
        next === undefined
          ? null
          : `${base(request)}${OPERATOR_PREFIX}/requests?since=${next}&limit=${limit}`,
    };
  });
  route("operator", "DELETE", `${OPERATOR_PREFIX}/requests`, (_request, reply) => {
    store.clearRequests();
    return reply.code(204).send();
  });

  // The OpenAPI document of the service and of these operator endpoints, built once.
  const openApiDocument = JSON.stringify(buildOpenApiDocument());
  app.route({
    method: "GET",
    url: "/openapi.json",
    config: { kind: "document", operator: false } satisfies RouteInfo as unknown as Record<string, unknown>,
    handler: (_request, reply) => reply.type("application/json; charset=utf-8").send(openApiDocument),
  });

  // 405 for every other method on a known path.
  for (const [url, { operator, methods }] of routesByPath) {
    const allowed = methods.includes("GET") ? [...methods, "HEAD"] : methods;
    const others = ALL_METHODS.filter((m) => !allowed.includes(m));
    const info: RouteInfo = { kind: "405", operator, allow: methods.join(", ") };
    app.route({
      method: others as unknown as "GET"[],
      url,
      handler: () => {
        throw new ServiceError(405, `method not allowed; allowed: ${info.allow}`, { allow: info.allow });
      },
      config: info as unknown as Record<string, unknown>,
    });
  }

  app.addHook("onClose", (_instance, done) => {
    windows.clear();
    done();
  });

  app.decorate("emulator", control);
  return app as unknown as EmulatorApp;
}

/**
 * The emulator's HTTP application (reference: docs/service-api.md).
 *
 * {@link createApp} builds an unstarted Fastify instance serving the public API (abuse reports,
 * event subscriptions, event destinations) and the operator endpoints under `/_operator`.
 *
 * Checks run in the order a real server applies them; each stage answers with the first problem
 * it finds:
 *
 * | stage | where (plugin) | codes |
 * |---|---|---|
 * | latency (when configured; public API only) | `onRequest` (latency), first; the rest of it at `onSend` | none: half the round trip held on the way in, half on the way back |
 * | `Host` of an HTTP/1.1 request | `onRequest` (host) | 213 |
 * | injected faults (public API only) | `onRequest` (faults) | 503, 500, 502 (code 500), 429 (226), connection reset; `slow` is held at `preHandler`; those after the handler at `onSend` (faults.ts) |
 * | authentication | `onRequest` (authentication) | 201, 202, 203 |
 * | rate limit (when configured) | `onRequest` (rate limit) | 429 / 226 |
 * | `Service-Version` | `onRequest` (service version) | 218 missing, 217 wrong |
 * | routing | `onRequest` (routing) | 404 unknown path, 405 a method the path does not declare |
 * | authorization for abuse reports | `onRequest` (authorization) | 403 / 221 |
 * | body headers | `onRequest` (body headers) | 211 body on GET/DELETE, 216 body without Content-Type, 210 not JSON |
 * | body size | body parser (validation) | 413 |
 * | `Idempotency-Key` format (keyed creates) | `preValidation` (idempotency) | 215 |
 * | JSON | route `schema.body` (validation) | 213 |
 * | unknown fields | route `schema.body` (validation) | 214 |
 * | types, required, limits | route `schema.body` (validation) | 215 |
 * | `Idempotency-Key` reuse (keyed creates) | handler, store transaction | 409 / 240 key reused with another request |
 * | event types | handler | 238 |
 * | path ID prefix, `limit` | handler | 227, 233 |
 * | existence, references | store transaction | 404, 223, 409 |
 * | abuse reports per account (`limits`) | store transaction | 409 / 241 |
 *
 * The app is made of Fastify plugins. The store, the run-time controls (`app.emulator`), the
 * fault settings (`app.faults`), the clock and the operation IDs are decorators of the app; each
 * `fastify-plugin` plugin adds one concern's hooks and request decorators app-wide, registered in
 * the order its hooks run: errors (error and not-found handlers, `Operation-Id`), validation
 * (body parser, validator compiler), accounts, request log, idempotency, latency, host, faults,
 * authentication, rate limit, service version, routing, authorization, body headers. The routes
 * are encapsulated plugins, one per resource, the operator routes under `/_operator` (those of
 * the API keys in a plugin of their own) and the OpenAPI document; the 405 catch-alls come last.
 *
 * @packageDocumentation
 */
import Fastify, { type FastifyRequest } from "fastify";
import { ID_PREFIX, MAX_BODY_BYTES } from "service-contract";
import { AccountKeys } from "./accounts";
import { Faults, type FaultConfig } from "./faults";
import { KsuidGenerator } from "./ids";
import {
  listeningUrl,
  resolveLimits,
  type CreateAppOptions,
  type EmulatorApp,
  type EmulatorControl,
} from "./options";
import { accountsPlugin } from "./plugins/accounts";
import { authenticationPlugin } from "./plugins/authentication";
import { authorizationPlugin } from "./plugins/authorization";
import { bodyHeadersPlugin } from "./plugins/bodyHeaders";
import { errorsPlugin, rawErrorResponse, sendError } from "./plugins/errorHandler";
import { faultsPlugin } from "./plugins/faults";
import { hostPlugin } from "./plugins/host";
import { idempotencyPlugin } from "./plugins/idempotency";
import { checkLatency, latencyPlugin } from "./plugins/latency";
import { checkRateLimit, rateLimitPlugin } from "./plugins/rateLimit";
import { logRequest, requestLogPlugin } from "./plugins/requestLog";
import { methodNotAllowedPlugin, routingPlugin } from "./plugins/routing";
import { serviceVersionPlugin } from "./plugins/serviceVersion";
import { validationPlugin } from "./plugins/bodyValidation";
import { routeNotFound, OPERATOR_PREFIX } from "./routeInfo";
import { abuseReportRoutes } from "./routes/abuseReports";
import { documentRoutes } from "./routes/document";
import { eventDestinationRoutes } from "./routes/eventDestinations";
import { eventSubscriptionRoutes } from "./routes/eventSubscriptions";
import { operatorRoutes } from "./routes/operator";
import { operatorKeyRoutes } from "./routes/operatorKeys";

export {
  ABUSE_REPORTS_PER_ACCOUNT,
  IDEMPOTENCY_KEYS_PER_ACCOUNT,
  TOKEN_PATTERN,
  type CreateAppOptions,
  type StoreLimits,
  type EmulatorApp,
  type EmulatorControl,
} from "./options";
export { IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_KEY_TTL_MS } from "./plugins/idempotency";
export { REQUEST_LOG_PAGE_MAX } from "./routes/operator";

declare module "fastify" {
  interface FastifyRequest {
    /**
     * Base of `uri` fields (no trailing `/`): the public URL, else the address the request's
     * server listens on. Never the request's `Host` header.
     */
    baseUrl(): string;
  }
}

/**
 * Builds the emulator application on `opts.store`: public API, operator endpoints, hooks, one
 * error handler and one not-found handler. Registers (or finds, by the SHA-256 of the key) the
 * account of each API key in the store; the keys added to those accounts since
 * (`POST /_operator/keys`, in this run or an earlier one on the same store) and not revoked work
 * too. The instance is not listening; call `listen` (or use `startEmulator`).
 *
 * @throws Error when a key is malformed (see `TOKEN_PATTERN`), a key is both authorized and
 * restricted, two keys of one account are one authorized and one restricted, a limit is not a
 * whole number from 1 up, the fault configuration is invalid, `rateLimit`, `latencyMs` or
 * `latencyJitterMs` is out of its range (the error names the option and its range), or
 * `latencyMs`/`latencyJitterMs` and the member of `faults` of the same name are both given.
 */
export function createApp(opts: CreateAppOptions): EmulatorApp {
  const { store } = opts;
  const limits = resolveLimits(opts.limits);
  const rateLimit = opts.rateLimit && checkRateLimit(opts.rateLimit);
  const keys = new AccountKeys(store, opts);
  const faults = new Faults(initialFaults(opts));
  const operationIds = new KsuidGenerator();
  const newOperationId = () => operationIds.next(ID_PREFIX.operation).id;
  const level = opts.logger === true ? "info" : opts.logger || undefined;
  const app = Fastify({
    logger: level ? { level, stream: process.stderr } : false,
    bodyLimit: MAX_BODY_BYTES,
    genReqId: newOperationId,
    requestIdHeader: false,
    return503OnClosing: false,
    routerOptions: { maxParamLength: 2048 },
    // Paths the router cannot even decode (bad percent-encoding, over-long parameters) name no
    // route: the same 404 as any unknown path, through the same error rendering.
    frameworkErrors: (_error, request, reply) => {
      sendError(routeNotFound(request), request, reply);
      logRequest(request, 404);
    },
    // A request without Host reaches the hooks (which answer it with the usual error body)
    // instead of Node's bare 400 with no body.
    http: { requireHostHeader: false },
    // Requests Node's HTTP parser rejects (malformed request line or headers, unknown method,
    // headers over 16 KiB) never reach Fastify: answer them with the same error body.
    clientErrorHandler: (error, socket) => {
      if (error.code === "ECONNRESET" || socket.destroyed) return;
      const raw: unknown = error.rawPacket;
      const head = Buffer.isBuffer(raw) && raw.subarray(0, 5).toString("latin1") === "HEAD ";
      if (socket.writable) socket.write(rawErrorResponse(newOperationId(), error.code, head));
      socket.destroy();
    },
  });
  const control: EmulatorControl = {
    store,
    publicUrl: opts.publicUrl?.replace(/\/+$/, ""),
    getFaults: () => faults.get(),
    setFaults: (cfg) => faults.set(cfg),
    idempotencyKeys: opts.idempotencyKeys ?? true,
  };
  app.decorate("store", store);
  app.decorate("emulator", control);
  app.decorate("faults", faults);
  app.decorate("clock", opts.clock ?? Date.now);
  app.decorate("newOperationId", newOperationId);
  app.decorateRequest("baseUrl", function (this: FastifyRequest) {
    if (control.publicUrl !== undefined) return control.publicUrl.replace(/\/+$/, "");
    const address = this.server.server.address();
    if (address === null || typeof address === "string") return "http://localhost";
    return listeningUrl(address.address, address.port);
  });

  app.register(errorsPlugin);
  app.register(validationPlugin);
  app.register(accountsPlugin, { keys });
  app.register(requestLogPlugin);
  app.register(idempotencyPlugin, { maxPerAccount: limits.idempotencyKeysPerAccount });
  app.register(latencyPlugin, { current: () => faults.latency });
  app.register(hostPlugin);
  app.register(faultsPlugin);
  app.register(authenticationPlugin);
  if (rateLimit) app.register(rateLimitPlugin, rateLimit);
  app.register(serviceVersionPlugin);
  app.register(routingPlugin);
  app.register(authorizationPlugin);
  app.register(bodyHeadersPlugin);

  app.register(abuseReportRoutes, {
    maxPerAccount: limits.abuseReportsPerAccount,
    reviewDelayMs: opts.reviewDelayMs,
  });
  app.register(eventSubscriptionRoutes);
  app.register(eventDestinationRoutes);
  app.register(operatorRoutes, { prefix: OPERATOR_PREFIX });
  app.register(operatorKeyRoutes, { prefix: OPERATOR_PREFIX });
  app.register(documentRoutes);
  app.register(methodNotAllowedPlugin);
  return app as EmulatorApp;
}

/**
 * The fault configuration at start: `opts.faults` with the latency options `latencyMs` and
 * `latencyJitterMs`, which are its members of the same names (one latency, see
 * plugins/latency.ts).
 *
 * @throws Error naming the option and its range when a latency option is out of range, or
 *   naming both when an option and its `faults` member are both given.
 */
function initialFaults(opts: CreateAppOptions): FaultConfig {
  const faults = { ...opts.faults };
  if (opts.latencyMs === undefined && opts.latencyJitterMs === undefined) return faults;
  const { latencyMs, jitterMs } = checkLatency({
    latencyMs: opts.latencyMs ?? faults.latencyMs ?? 0,
    jitterMs: opts.latencyJitterMs ?? faults.latencyJitterMs ?? 0,
  });
  for (const key of ["latencyMs", "latencyJitterMs"] as const)
    if (opts[key] !== undefined && faults[key] !== undefined)
      throw new Error(`${key} and faults.${key} are one setting, the emulator's latency: give one of them`);
  return { ...faults, latencyMs, latencyJitterMs: jitterMs };
}

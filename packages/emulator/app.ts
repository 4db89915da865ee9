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
 * | abuse reports per account (`limits`) | store transaction | 409 / 241 |
 * | `Idempotency-Key` of a create (when honoured) | handler, store transaction | 215 malformed key, 409 / 240 key reused with another request |
 *
 * The app is made of Fastify plugins, registered in this order: errors (error and not-found
 * handlers, `Operation-Id`), idempotency (key echo), faults (`reset-after`), auth (the
 * `onRequest` checks above, faults first), request log, then one routes module per resource,
 * the operator routes, and the 405 catch-alls. They share one {@link EmulatorContext}.
 *
 * @packageDocumentation
 */
import Fastify from "fastify";
import { ID_PREFIX, MAX_BODY_BYTES } from "service-contract";
import {
  createContext,
  routeNotFound,
  type CreateAppOptions,
  type EmulatorApp,
  type EmulatorContext,
} from "./context";
import { authPlugin } from "./plugins/auth";
import { errorsPlugin, rawErrorResponse, sendError } from "./plugins/errors";
import { faultsPlugin } from "./plugins/faults";
import { idempotencyPlugin } from "./plugins/idempotency";
import { logRequest, requestLogPlugin } from "./plugins/requestLog";
import { abuseReportRoutes } from "./routes/abuseReports";
import { methodNotAllowedPlugin } from "./routes/common";
import { eventDestinationRoutes } from "./routes/eventDestinations";
import { eventSubscriptionRoutes } from "./routes/eventSubscriptions";
import { operatorRoutes } from "./routes/operator";

export {
  ABUSE_REPORTS_PER_ACCOUNT,
  IDEMPOTENCY_KEYS_PER_ACCOUNT,
  TOKEN_PATTERN,
  type CreateAppOptions,
  type StoreLimits,
  type EmulatorApp,
  type EmulatorContext,
  type EmulatorControl,
} from "./context";
export { IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_KEY_TTL_MS } from "./plugins/idempotency";
export { REQUEST_LOG_PAGE_MAX } from "./routes/operator";

/**
 * Builds the emulator application: public API, operator endpoints, hooks, one error handler and
 * one not-found handler. Registers (or finds, by the SHA-256 of the key) one account per API key
 * in the store. The instance is not listening; call `listen` (or use `startEmulator`).
 *
 * @throws Error when a key is malformed (see `TOKEN_PATTERN`), a key is both authorized and
 * restricted, a limit is not a whole number from 1 up, or the fault configuration is invalid.
 */
export function createApp(opts: CreateAppOptions): EmulatorApp {
  const ctx: EmulatorContext = createContext(opts);
  const level = opts.logger === true ? "info" : opts.logger || undefined;
  const app = Fastify({
    logger: level ? { level, stream: process.stderr } : false,
    bodyLimit: MAX_BODY_BYTES,
    genReqId: () => ctx.opIds.next(ID_PREFIX.operation).id,
    requestIdHeader: false,
    return503OnClosing: false,
    routerOptions: { maxParamLength: 2048 },
    // Paths the router cannot even decode (bad percent-encoding, over-long parameters) name no
    // route: the same 404 as any unknown path, through the same error rendering.
    frameworkErrors: (_error, request, reply) => {
      sendError(routeNotFound(request), request, reply);
      logRequest(ctx, request, 404);
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
      if (socket.writable) socket.write(rawErrorResponse(ctx, error.code, head));
      socket.destroy();
    },
  });
  for (const plugin of [
    errorsPlugin,
    idempotencyPlugin,
    faultsPlugin,
    authPlugin,
    requestLogPlugin,
    abuseReportRoutes,
    eventSubscriptionRoutes,
    eventDestinationRoutes,
    operatorRoutes,
    methodNotAllowedPlugin,
  ]) {
    app.register(plugin, { ctx });
  }
  app.addHook("onClose", (_instance, done) => {
    ctx.windows.clear();
    done();
  });
  app.decorate("emulator", ctx.control);
  return app as unknown as EmulatorApp;
}

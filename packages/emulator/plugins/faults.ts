/**
 * Faults plugin: injected faults on the public API (configuration: `app.faults`). Latency, when
 * configured, delays every public request first; then a fault is drawn before anything else (so
 * a faulted request changes nothing): 503 (code 500, `Retry-After: 1`), 429 (226), or a
 * connection reset without an answer. A `reset-after` lets the request run in full and destroys
 * the connection instead of sending the response (`onSend`): the ambiguous create.
 *
 * @packageDocumentation
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { ErrorReply } from "../errorReply";
import type { FaultOutcome } from "../faults";
import { accessOf } from "../routeInfo";
import { logRequest } from "./requestLog";

declare module "fastify" {
  interface FastifyRequest {
    /** The injected fault drawn for the request, `null` when none was. */
    fault: FaultOutcome | null;
  }
}

/**
 * Draws the fault of a public request and applies it: `true` when the connection was destroyed
 * (nothing more may happen), else `false`.
 *
 * @throws ErrorReply 500 with status 503, or 226 (429), for those injected faults.
 */
function applyFault(request: FastifyRequest, reply: FastifyReply): boolean {
  const outcome = request.server.faults.draw();
  if (outcome === "none") return false;
  request.fault = outcome;
  if (outcome === "reset") {
    // The account of a well-formed, known token, for the request log alone.
    request.account = request.server.accountOfRequest(request);
    logRequest(request, 0);
    reply.hijack();
    request.raw.socket.destroy();
    return true;
  }
  if (outcome === "503") {
    request.account = request.server.accountOfRequest(request);
    throw new ErrorReply(500, "service unavailable (injected fault)", {
      status: 503,
      retryAfterSeconds: 1,
    });
  }
  if (outcome === "429") {
    request.account = request.server.accountOfRequest(request);
    throw new ErrorReply(226, "rate limited (injected fault); retry after 1 second", {
      retryAfterSeconds: 1,
    });
  }
  return false;
}

/** Latency and faults of public requests (`onRequest`), the `reset-after` fault (`onSend`). */
export const faultsPlugin = fp(
  (app, _opts, done) => {
    app.decorateRequest("fault", null);
    app.addHook("onRequest", (request, reply, next) => {
      if (accessOf(request) !== "public") {
        next();
        return;
      }
      const run = () => {
        try {
          applyFault(request, reply);
        } catch (err) {
          next(err as Error);
          return;
        }
        next();
      };
      const latency = app.faults.latencyMs;
      // Unref'd: a request whose client has gone must not hold a closing emulator's process.
      if (latency > 0) setTimeout(run, latency).unref();
      else run();
    });
    app.addHook("onSend", (request, reply, payload, next) => {
      if (request.fault === "reset-after") {
        logRequest(request, reply.statusCode);
        request.raw.socket.destroy();
      }
      next(null, payload);
    });
    done();
  },
  { name: "faults", dependencies: ["errors", "idempotency", "accounts", "request-log"] },
);

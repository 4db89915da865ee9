/**
 * Faults plugin: injected faults on the public API. A fault is drawn for every public request
 * before anything else (so a faulted request changes nothing): 503 (code 500, `Retry-After: 1`),
 * 429 (226), or a connection reset without an answer. A `reset-after` lets the request run in
 * full and destroys the connection instead of sending the response (`onSend`): the ambiguous
 * create. Latency, when configured, delays every public request first.
 *
 * @packageDocumentation
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import type { EmulatorContext, WithContext } from "../context";
import { ServiceError } from "../errors";
import { drawFault } from "../faults";
import { logRequest } from "./requestLog";

/**
 * Draws the fault of a public request and applies it: `"reset"` when the connection was
 * destroyed (the caller must stop), else `undefined`.
 *
 * @throws ServiceError 500 with status 503, or 226 (429), for those injected faults.
 */
export function applyFault(
  ctx: EmulatorContext,
  request: FastifyRequest,
  reply: FastifyReply,
  accountForLog: (request: FastifyRequest) => void,
): "reset" | undefined {
  const outcome = drawFault(ctx.faults(), ctx.random);
  if (outcome === "none") return undefined;
  ctx.faultOf.set(request, outcome);
  accountForLog(request);
  if (outcome === "reset") {
    logRequest(ctx, request, 0);
    reply.hijack();
    request.raw.socket.destroy();
    return "reset";
  }
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
  return undefined;
}

/** Milliseconds of injected latency before a public request is handled. */
export function latencyMs(ctx: EmulatorContext): number {
  return ctx.faults().latencyMs ?? 0;
}

/** The `reset-after` fault: the handler ran and committed; the client gets a reset instead. */
export const faultsPlugin = fp<WithContext>(
  (app, { ctx }, done) => {
    app.addHook("onSend", (request, reply, payload, next) => {
      if (ctx.faultOf.get(request) === "reset-after") {
        logRequest(ctx, request, reply.statusCode);
        request.raw.socket.destroy();
      }
      next(null, payload);
    });
    done();
  },
  { name: "faults", dependencies: ["errors", "idempotency"] },
);

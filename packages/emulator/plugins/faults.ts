/**
 * Faults plugin: injected faults on the public API (configuration: `app.faults`; the table of
 * faults is in faults.ts, `FaultConfig`). After the way in of the latency (plugins/latency.ts,
 * registered before this one), one fault is drawn before anything else, and applied where it
 * belongs:
 *
 * - before anything runs (`onRequest`), so that the request changes nothing: 503 (code 500,
 *   `Retry-After: 1`), 429 (226, `Retry-After: 1`), 500 and 502 (code 500), or a connection reset
 *   without an answer;
 * - just before the handler (`preHandler`, the body read and checked): `slow` holds the request,
 *   then lets it run (a client that timed out meanwhile has gone; the changes are made anyway);
 * - after the handler (`onSend`, its changes committed): `reset-after` destroys the connection
 *   instead of sending the answer; `500-after`, `502-after` and `503-after` send that error
 *   instead (no `Retry-After`); `truncate` sends the status, the headers and half the body, then
 *   destroys the connection; `slow-after` holds the answer, then sends it.
 *
 * Every faulted request is logged once with its fault: with the status sent (0 for a reset), or
 * for `reset-after`, `truncate` and the held ones, with the handler's status, logged as the fault
 * is applied (their client may never see an answer, so no `onResponse` may come).
 *
 * @packageDocumentation
 */
import { Readable } from "node:stream";
import type { FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { errorBody, ErrorReply } from "../errorReply";
import type { FaultOutcome } from "../faults";
import { accessOf } from "../routeInfo";
import { logRequest } from "./requestLog";

declare module "fastify" {
  interface FastifyRequest {
    /** The injected fault drawn for the request, `null` when none was. */
    fault: FaultOutcome | null;
  }
}

/** The faults answered before anything runs: the error thrown for each. */
const BEFORE: Partial<Record<FaultOutcome, () => ErrorReply>> = {
  "503": () =>
    new ErrorReply(500, "service unavailable (injected fault)", { status: 503, retryAfterSeconds: 1 }),
  "429": () =>
    new ErrorReply(226, "rate limited (injected fault); retry after 1 second", { retryAfterSeconds: 1 }),
  "500": () => new ErrorReply(500, "internal error (injected fault)"),
  "502": () => new ErrorReply(500, "bad gateway (injected fault)", { status: 502 }),
};

/** The faults that replace the handler's answer by an error: the status sent. */
const ERROR_AFTER: Partial<Record<FaultOutcome, number>> = {
  "500-after": 500,
  "502-after": 502,
  "503-after": 503,
};

/**
 * Draws the fault of a public request and applies those that act before anything runs: `true`
 * when the connection was destroyed (nothing more may happen), else `false`.
 *
 * @throws ErrorReply for the faults answered with an error (503, 429, 500, 502).
 */
function applyFault(request: FastifyRequest, reply: FastifyReply): boolean {
  const outcome = request.server.faults.draw();
  if (outcome === "none") return false;
  request.fault = outcome;
  const before = BEFORE[outcome];
  if (outcome !== "reset" && before === undefined) return false;
  // The account of a well-formed, known token, for the request log alone.
  request.account = request.server.accountOfRequest(request);
  if (before !== undefined) throw before();
  logRequest(request, 0);
  reply.hijack();
  request.raw.socket.destroy();
  return true;
}

/**
 * Sends `status`, the headers of `reply` with `body`'s whole length, and the first half of
 * `body`, then destroys the connection: the payload Fastify sends for a `truncate` fault.
 */
function cutBody(request: FastifyRequest, reply: FastifyReply, body: Buffer): Readable {
  reply.header("content-length", String(body.length));
  const half = body.subarray(0, Math.floor(body.length / 2));
  const socket = request.raw.socket;
  let sent = false;
  return new Readable({
    read() {
      if (sent) return;
      sent = true;
      // The half reaches the socket first (it is written by the time Fastify asks for more);
      // ending the socket sends what was written, then closes it in the middle of the body.
      this.push(half);
      setImmediate(() => socket.destroySoon());
    },
  });
}

/** Faults of public requests (`onRequest`, `preHandler`, `onSend`); their latency is plugins/latency.ts. */
export const faultsPlugin = fp(
  (app, _opts, done) => {
    app.decorateRequest("fault", null);
    app.addHook("onRequest", (request, reply, next) => {
      if (accessOf(request) !== "public") {
        next();
        return;
      }
      try {
        applyFault(request, reply);
      } catch (err) {
        next(err as Error);
        return;
      }
      next();
    });
    app.addHook("preHandler", (request, _reply, next) => {
      if (request.fault === "slow") setTimeout(next, app.faults.slowMs).unref();
      else next();
    });
    app.addHook("onSend", (request, reply, payload, next) => {
      const fault = request.fault;
      if (fault === null || BEFORE[fault] !== undefined) {
        next(null, payload);
        return;
      }
      if (fault !== "500-after" && fault !== "502-after" && fault !== "503-after")
        logRequest(request, reply.statusCode);
      const status = ERROR_AFTER[fault];
      if (status !== undefined) {
        reply.removeHeader("location");
        reply.code(status).type("application/json; charset=utf-8");
        const e = new ErrorReply(
          500,
          `the request was carried out, but its answer failed (injected fault ${fault})`,
          {
            status,
          },
        );
        next(null, JSON.stringify(errorBody(e, request.id)));
      } else if (fault === "reset-after") {
        request.raw.socket.destroy();
        next(null, payload);
      } else if (fault === "truncate") {
        const body = Buffer.isBuffer(payload) ? payload : Buffer.from(String(payload ?? ""));
        next(null, cutBody(request, reply, body));
      } else if (fault === "slow-after") {
        setTimeout(() => next(null, payload), app.faults.slowMs).unref();
      } else {
        next(null, payload);
      }
    });
    done();
  },
  { name: "faults", dependencies: ["errors", "idempotency", "accounts", "request-log"] },
);

/**
 * Request log plugin: every public request (never an operator one) is written to the store's
 * request log once, with its final status, the account, the injected fault and whether it was
 * an idempotent replay.
 *
 * @packageDocumentation
 */
import type { FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { accessOf } from "../routeInfo";

declare module "fastify" {
  interface FastifyRequest {
    /** The request was written to the request log already. */
    logged: boolean;
  }
}

/** Writes `request` to the request log with `status` (`0`: the connection was reset); once. */
export function logRequest(request: FastifyRequest, status: number): void {
  if (request.logged) return;
  request.logged = true;
  request.server.store.logRequest({
    time: new Date().toISOString(),
    method: request.method,
    path: request.url,
    status,
    operation_id: request.id,
    account_id: request.account?.id ?? null,
    fault: request.fault ?? null,
    idempotent_replay: request.idempotentReplay === true,
  });
}

/** Logs each answered public request (`onResponse`). */
export const requestLogPlugin = fp(
  (app, _opts, done) => {
    app.decorateRequest("logged", false);
    app.addHook("onResponse", (request, reply, next) => {
      if (accessOf(request) !== "operator") logRequest(request, reply.statusCode);
      next();
    });
    done();
  },
  { name: "request-log" },
);

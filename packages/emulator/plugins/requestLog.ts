/**
 * Request log plugin: every public request (never an operator one) is written to the store's
 * request log once, with its final status, the account, the injected fault and whether it was
 * an idempotent replay.
 *
 * @packageDocumentation
 */
import type { FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { isOperatorRoute, type EmulatorContext, type WithContext } from "../context";

/** Writes `request` to the request log with `status` (`0`: the connection was reset); once. */
export function logRequest(ctx: EmulatorContext, request: FastifyRequest, status: number): void {
  if (ctx.logged.has(request)) return;
  ctx.logged.add(request);
  ctx.store.logRequest({
    time: new Date().toISOString(),
    method: request.method,
    path: request.url,
    status,
    operation_id: request.id,
    account_id: ctx.accounts.get(request)?.id ?? null,
    fault: ctx.faultOf.get(request) ?? null,
    idempotent_replay: ctx.replays.has(request),
  });
}

/** Logs each answered public request (`onResponse`). */
export const requestLogPlugin = fp<WithContext>(
  (app, { ctx }, done) => {
    app.addHook("onResponse", (request, reply, next) => {
      if (!isOperatorRoute(request)) logRequest(ctx, request, reply.statusCode);
      next();
    });
    done();
  },
  { name: "request-log" },
);

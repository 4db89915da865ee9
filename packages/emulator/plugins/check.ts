/**
 * The shape of the request checks: a function that throws the `ErrorReply` of the first problem
 * it finds, run as an `onRequest` hook.
 *
 * @packageDocumentation
 */
import type { FastifyRequest, onRequestHookHandler } from "fastify";

/** An `onRequest` hook that runs `check` and answers with what it throws. */
export function checkHook(check: (request: FastifyRequest) => void): onRequestHookHandler {
  return (request, _reply, next) => {
    try {
      check(request);
    } catch (err) {
      next(err as Error);
      return;
    }
    next();
  };
}

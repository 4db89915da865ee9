/**
 * Errors plugin: the one place where failures become HTTP responses — the error handler, the
 * not-found handler, the `Operation-Id` header, and the raw answers to requests that never become
 * Fastify requests (malformed HTTP, `CONNECT`).
 * Reference: docs/service-api.md § Errors.
 *
 * @packageDocumentation
 */
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { errorBody, ErrorReply, toErrorReply } from "../errorReply";
import { routeNotFound } from "../routeInfo";

/** Renders any error as the service's error body, with its status and headers. */
export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const e = toErrorReply(error);
  if (e.status === 500 && e.options.status === undefined)
    request.log.error({ err: error }, "unexpected error");
  if (e.options.retryAfterSeconds !== undefined)
    reply.header("retry-after", String(e.options.retryAfterSeconds));
  if (e.options.allow !== undefined) reply.header("allow", e.options.allow);
  reply.header("operation-id", request.id);
  return reply.code(e.status).type("application/json; charset=utf-8").send(errorBody(e, request.id));
}

/**
 * A whole HTTP/1.1 error response, with operation ID `id`, for a request Node's parser rejected
 * (431 headers too large, 408 too slow, else 400 / 213), without a body for `HEAD`.
 */
export function rawErrorResponse(id: string, parserCode: string | undefined, head: boolean): string {
  const status =
    parserCode === "HPE_HEADER_OVERFLOW" ? 431 : parserCode === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
  const message =
    status === 431
      ? "the request line and headers are larger than the server accepts (16 KiB)"
      : status === 408
        ? "the request was not received in time"
        : `the request is not valid HTTP/1.1 (${parserCode ?? "parse error"})`;
  const body = JSON.stringify(errorBody(new ErrorReply(213, message, { status }), id));
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nOperation-Id: ${id}\r\nConnection: close\r\n\r\n` +
    (head ? "" : body)
  );
}

/** Error handler, not-found handler, `CONNECT` answer, `Operation-Id` header. */
export const errorsPlugin = fp(
  (app, _opts, done) => {
    // CONNECT requests are not routed by Fastify; without a listener Node would drop the connection.
    app.server.on("connect", (_request: unknown, socket: Duplex) => {
      const id = app.newOperationId();
      const body = JSON.stringify(errorBody(new ErrorReply(404, "no route for CONNECT"), id));
      socket.on("error", () => undefined);
      socket.end(
        `HTTP/1.1 404 Not Found\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nOperation-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
    app.setErrorHandler((error, request, reply) => sendError(error, request, reply));
    app.setNotFoundHandler((request) => {
      throw routeNotFound(request);
    });
    app.addHook("onSend", (request, reply, payload, next) => {
      reply.header("operation-id", request.id);
      next(null, payload);
    });
    done();
  },
  { name: "errors" },
);

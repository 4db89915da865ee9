/**
 * Body headers plugin (`onRequest`, the last check before the body is read): a `GET`, `HEAD` or
 * `DELETE` has no body (211); a body comes with a `Content-Type` (216), and that is
 * `application/json`, a charset parameter allowed (210). The OpenAPI document is exempt.
 *
 * @packageDocumentation
 */
import type { FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { ErrorReply } from "../errorReply";
import { accessOf } from "../routeInfo";
import { checkHook } from "./check";

/** Body headers. @throws ErrorReply 211 (body on GET/HEAD/DELETE), 216 (no Content-Type), 210. */
function checkBodyHeaders(request: FastifyRequest): void {
  const h = request.headers;
  const cl = h["content-length"];
  const hasBody = (cl !== undefined && cl.trim() !== "0") || h["transfer-encoding"] !== undefined;
  const method = request.method;
  if (method === "GET" || method === "HEAD" || method === "DELETE") {
    if (hasBody) throw new ErrorReply(211, `a ${method} request must not have a body`);
    return;
  }
  const ct = h["content-type"];
  if (ct === undefined) {
    if (hasBody)
      throw new ErrorReply(216, "the request has a body but no Content-Type header; use application/json");
    return;
  }
  if (ct.split(";")[0].trim().toLowerCase() !== "application/json") {
    // The header's value is not quoted: error messages echo no header value.
    throw new ErrorReply(210, "Content-Type must be application/json (a charset parameter may follow)");
  }
}

/** The body headers check (see the module comment). */
export const bodyHeadersPlugin = fp(
  (app, _opts, done) => {
    app.addHook(
      "onRequest",
      checkHook((request) => {
        if (accessOf(request) !== "document") checkBodyHeaders(request);
      }),
    );
    done();
  },
  { name: "body-headers", dependencies: ["authorization"] },
);

/**
 * Host plugin (`onRequest`, the first check of every request): an HTTP/1.1 request names its
 * `Host` (213). Node's own bare 400 for it is switched off (`requireHostHeader: false`) so that
 * the answer is the service's error body.
 *
 * @packageDocumentation
 */
import fp from "fastify-plugin";
import { ErrorReply } from "../errorReply";

/** The `Host` check (see the module comment). */
export const hostPlugin = fp(
  (app, _opts, done) => {
    app.addHook("onRequest", (request, _reply, next) => {
      if (request.headers.host === undefined && request.raw.httpVersion === "1.1") {
        next(new ErrorReply(213, "an HTTP/1.1 request must have a Host header"));
      } else next();
    });
    done();
  },
  { name: "host", dependencies: ["errors"] },
);

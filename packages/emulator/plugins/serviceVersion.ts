/**
 * Service version plugin (`onRequest`, after the rate limit): every public request, unknown paths
 * included, names the one supported version in `Service-Version`: 218 when it is missing, 217
 * when it is another.
 *
 * @packageDocumentation
 */
import fp from "fastify-plugin";
import { SERVICE_VERSION } from "service-contract";
import { ErrorReply } from "../errorReply";
import { accessOf } from "../routeInfo";

/** The `Service-Version` check (see the module comment). */
export const serviceVersionPlugin = fp(
  (app, _opts, done) => {
    app.addHook("onRequest", (request, _reply, next) => {
      const version = request.headers["service-version"];
      if (accessOf(request) !== "public") next();
      else if (version === undefined) {
        next(
          new ErrorReply(
            218,
            `the Service-Version header is required; use Service-Version: ${SERVICE_VERSION}`,
          ),
        );
      } else if (typeof version !== "string" || version.trim() !== SERVICE_VERSION) {
        next(new ErrorReply(217, `unsupported Service-Version; the supported version is ${SERVICE_VERSION}`));
      } else next();
    });
    done();
  },
  { name: "service-version", dependencies: ["authentication"] },
);

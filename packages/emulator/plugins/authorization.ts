/**
 * Authorization plugin (`onRequest`, after routing): the routes of abuse reports (`abuse` in
 * their route config) are for accounts authorized for them; any other account gets 403 / 221.
 *
 * @packageDocumentation
 */
import fp from "fastify-plugin";
import { ErrorReply } from "../errorReply";
import { matchedRoute } from "../routeInfo";

/** The abuse report authorization (see the module comment). */
export const authorizationPlugin = fp(
  (app, _opts, done) => {
    app.addHook("onRequest", (request, _reply, next) => {
      if (matchedRoute(request)?.abuse === true && request.account?.abuseReportsAuthorized !== true) {
        next(new ErrorReply(221, "this account is not authorized to use abuse reports"));
      } else next();
    });
    done();
  },
  { name: "authorization", dependencies: ["routing"] },
);

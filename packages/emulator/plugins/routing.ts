/**
 * Routing plugin: 404 for a path no route declares, 405 (with `Allow`) for a method its path does
 * not declare, any method Node.js parses (`TRACE`, `PROPFIND`, … too; `CONNECT` is answered by
 * the errors plugin). The check is an `onRequest` hook, so it answers in its place among the other
 * checks (after authentication and `Service-Version`, before authorization and the body).
 *
 * {@link routingPlugin} records the methods of every route registered after it (`onRoute`);
 * {@link methodNotAllowedPlugin}, registered after the routes, adds for each recorded path one
 * catch-all route with every other method, which the hook answers with 405.
 *
 * @packageDocumentation
 */
import { METHODS } from "node:http";
import type { FastifyRequest, RouteOptions } from "fastify";
import fp from "fastify-plugin";
import { ErrorReply } from "../errorReply";
import { matchedRoute, routeNotFound, type RouteInfo } from "../routeInfo";

declare module "fastify" {
  interface FastifyInstance {
    /** The routes registered so far, by path (HEAD routes and 405 catch-alls left out). */
    readonly declaredRoutes: Map<string, RouteOptions[]>;
  }
}

/** The 405 of a method its path does not declare; `allow` lists those it does. */
function methodNotAllowed(request: FastifyRequest, allow: string): ErrorReply {
  return new ErrorReply(405, `method ${request.method} is not allowed on this path; allowed: ${allow}`, {
    allow,
  });
}

/** The route check (see the module comment) and the record of declared routes. */
export const routingPlugin = fp(
  (app, _opts, done) => {
    for (const method of METHODS) {
      if (method !== "CONNECT" && !app.supportedMethods.includes(method))
        app.addHttpMethod(method, { hasBody: true });
    }
    const declared = new Map<string, RouteOptions[]>();
    app.decorate("declaredRoutes", declared);
    app.addHook("onRoute", (route) => {
      if (route.method === "HEAD" || route.config?.allow !== undefined) return;
      // The route plugins complete `config` in onRoute hooks of their own, after this one: the
      // options object is kept and read when the catch-alls are added.
      declared.set(route.url, [...(declared.get(route.url) ?? []), route]);
    });
    app.addHook("onRequest", (request, _reply, next) => {
      const info = matchedRoute(request);
      if (info === undefined) next(routeNotFound(request));
      else if (info.allow !== undefined) next(methodNotAllowed(request, info.allow));
      else next();
    });
    done();
  },
  { name: "routing", dependencies: ["errors"] },
);

/** One 405 catch-all route per declared path, with every method the path does not declare. */
export const methodNotAllowedPlugin = fp(
  (app, _opts, done) => {
    for (const [url, routes] of [...app.declaredRoutes]) {
      const methods = routes.flatMap((r) => (Array.isArray(r.method) ? r.method : [r.method]));
      const allowed = methods.includes("GET") ? [...methods, "HEAD"] : methods;
      const info: RouteInfo = {
        access: routes[0].config?.access ?? "public",
        allow: methods.join(", "),
      };
      app.route({
        method: app.supportedMethods.filter((m) => !allowed.includes(m)),
        url,
        config: info,
        handler: (request) => {
          throw methodNotAllowed(request, info.allow ?? "");
        },
      });
    }
    done();
  },
  { name: "method-not-allowed", dependencies: ["routing"] },
);

/**
 * What a route declares about itself in Fastify's route `config`, and how the request hooks read
 * it. Access, fault injection and request logging are decided on the route the router matched,
 * never on the text of `request.url` (which the router decodes and normalizes before matching).
 *
 * @packageDocumentation
 */
import type { FastifyRequest } from "fastify";
import { ErrorReply } from "./errorReply";

/** Prefix of the operator endpoints. */
export const OPERATOR_PREFIX = "/_operator";

/**
 * Who may call a route, and so which checks its requests go through: `public` (API key, every
 * check), `operator` (admin key, routing and body headers; not logged) or `document` (the OpenAPI
 * document: no key, no check).
 */
export type Access = "public" | "operator" | "document";

/** Per-route data in Fastify's route `config`. */
export interface RouteInfo {
  /** Who may call the route (see {@link Access}); a 405 catch-all has its path's. */
  access: Access;
  /** Route needs an account authorized for abuse reports (221). */
  abuse?: boolean;
  /** A create that honours `Idempotency-Key`. */
  idempotent?: boolean;
  /**
   * Set on the 405 catch-all of a path (the route of every method the path does not declare):
   * the `Allow` header, the methods it declares.
   */
  allow?: string;
}

declare module "fastify" {
  // Fastify's own extension point for route `config`; every member is optional there.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface FastifyContextConfig extends Partial<RouteInfo> {}
}

/** The route the router matched for `request`, or `undefined` when it matched none. */
export function matchedRoute(request: FastifyRequest): RouteInfo | undefined {
  if (request.is404) return undefined;
  const info = request.routeOptions?.config as Partial<RouteInfo> | undefined;
  return info?.access === undefined ? undefined : (info as RouteInfo);
}

/**
 * Which checks a request goes through (see {@link Access}): its route's, and `public` for an
 * unknown path (so it is faulted, authenticated and rate limited before it answers 404).
 */
export function accessOf(request: FastifyRequest): Access {
  return matchedRoute(request)?.access ?? "public";
}

/** The one "no such route" error, used for unknown paths everywhere. */
export function routeNotFound(request: FastifyRequest): ErrorReply {
  return new ErrorReply(404, `no route for ${request.method} ${request.url.split("?")[0]}`);
}

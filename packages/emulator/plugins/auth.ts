/**
 * Access plugin: the `onRequest` checks, decided on the route the server matched, in the order a
 * real server applies them (reference: docs/service-api.md § Errors):
 *
 * - the OpenAPI document: no check;
 * - operator routes: the admin key (404 for every operator route when none is configured), then
 *   routing (405) and body headers;
 * - everything else (public routes and unknown paths): latency and injected faults first, then
 *   authentication (201, 202, 203), the rate limit (226), `Service-Version` (218, 217), routing
 *   (404, 405), authorization for abuse reports (221), body headers (211, 216, 210).
 *
 * @packageDocumentation
 */
import { timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { SERVICE_VERSION } from "service-contract";
import {
  isOperatorRoute,
  matchedRoute,
  routeNotFound,
  sha256,
  TOKEN_PATTERN,
  type EmulatorContext,
  type RouteInfo,
  type WithContext,
} from "../context";
import { ServiceError } from "../errors";
import type { Account } from "../resources";
import { applyFault, latencyMs } from "./faults";

/** The bearer token of a request. @throws ServiceError 201 (missing), 202 (malformed). */
function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const m = header === undefined ? null : /^Bearer +(.*)$/i.exec(header);
  if (!m || m[1] === "") {
    throw new ServiceError(
      201,
      "the Authorization header must be present and of the form 'Bearer <API key>'",
    );
  }
  if (!TOKEN_PATTERN.test(m[1]))
    throw new ServiceError(202, "the API key in the Authorization header is malformed");
  return m[1];
}

/** Per-account limit of the options: at most `max` requests per rolling window. @throws ServiceError 226. */
function rateLimit(ctx: EmulatorContext, account: Account): void {
  const rl = ctx.opts.rateLimit;
  if (!rl) return;
  const now = ctx.clock();
  let q = ctx.windows.get(account.id);
  if (!q) ctx.windows.set(account.id, (q = []));
  while (q.length > 0 && q[0] <= now - rl.windowMs) q.shift();
  if (q.length >= rl.max) {
    const retryAfterSeconds = Math.max(1, Math.ceil((q[0] + rl.windowMs - now) / 1000));
    throw new ServiceError(
      226,
      `rate limited: at most ${rl.max} requests per ${rl.windowMs / 1000} seconds; retry after ${retryAfterSeconds} seconds`,
      { retryAfterSeconds },
    );
  }
  q.push(now);
}

/** Body headers. @throws ServiceError 211 (body on GET/HEAD/DELETE), 216 (no Content-Type), 210. */
function checkBodyHeaders(request: FastifyRequest): void {
  const h = request.headers;
  const cl = h["content-length"];
  const hasBody = (cl !== undefined && cl.trim() !== "0") || h["transfer-encoding"] !== undefined;
  const method = request.method;
  if (method === "GET" || method === "HEAD" || method === "DELETE") {
    if (hasBody) throw new ServiceError(211, `a ${method} request must not have a body`);
    return;
  }
  const ct = h["content-type"];
  if (ct === undefined) {
    if (hasBody)
      throw new ServiceError(216, "the request has a body but no Content-Type header; use application/json");
    return;
  }
  if (ct.split(";")[0].trim().toLowerCase() !== "application/json") {
    // The header's value is not quoted: error messages echo no header value.
    throw new ServiceError(210, "Content-Type must be application/json (a charset parameter may follow)");
  }
}

/** The matched route. @throws ServiceError 404 (no route), 405 (wrong method, with `Allow`). */
function checkRoute(request: FastifyRequest): RouteInfo {
  const info = matchedRoute(request);
  if (info === undefined) throw routeNotFound(request);
  if (info.kind === "405") {
    throw new ServiceError(
      405,
      `method ${request.method} is not allowed on this path; allowed: ${info.allow}`,
      {
        allow: info.allow,
      },
    );
  }
  return info;
}

function checkOperator(ctx: EmulatorContext, request: FastifyRequest): void {
  if (ctx.adminHash === undefined) throw routeNotFound(request);
  const token = bearerToken(request);
  if (!timingSafeEqual(sha256(token), ctx.adminHash))
    throw new ServiceError(203, "the admin key is not valid");
  checkRoute(request);
  checkBodyHeaders(request);
}

function checkPublic(ctx: EmulatorContext, request: FastifyRequest): void {
  const account = ctx.accountOfToken(bearerToken(request));
  if (!account) throw new ServiceError(203, "the API key is not valid");
  ctx.accounts.set(request, account);
  rateLimit(ctx, account);
  const version = request.headers["service-version"];
  if (version === undefined) {
    throw new ServiceError(
      218,
      `the Service-Version header is required; use Service-Version: ${SERVICE_VERSION}`,
    );
  }
  if (typeof version !== "string" || version.trim() !== SERVICE_VERSION) {
    throw new ServiceError(217, `unsupported Service-Version; the supported version is ${SERVICE_VERSION}`);
  }
  const info = checkRoute(request);
  if (info.abuse && !account.abuseReportsAuthorized) {
    throw new ServiceError(221, "this account is not authorized to use abuse reports");
  }
  checkBodyHeaders(request);
}

/** Public requests: the fault first, then the checks. A reset never answers. */
function publicRequest(
  ctx: EmulatorContext,
  request: FastifyRequest,
  reply: FastifyReply,
  done: (err?: Error) => void,
): void {
  // The account of the request's token, for the request log of a faulted request only.
  const accountForLog = (r: FastifyRequest) => {
    const token = /^Bearer +(.*)$/i.exec(r.headers.authorization ?? "")?.[1];
    const account = token !== undefined && TOKEN_PATTERN.test(token) ? ctx.accountOfToken(token) : undefined;
    if (account) ctx.accounts.set(r, account);
  };
  try {
    if (applyFault(ctx, request, reply, accountForLog) === "reset") {
      done();
      return;
    }
    checkPublic(ctx, request);
  } catch (err) {
    done(err as Error);
    return;
  }
  done();
}

/** The `onRequest` checks of every request (see the module comment). */
export const authPlugin = fp<WithContext>(
  (app, { ctx }, done) => {
    app.addHook("onRequest", (request, reply, next) => {
      if (request.headers.host === undefined && request.raw.httpVersion === "1.1") {
        next(new ServiceError(213, "an HTTP/1.1 request must have a Host header"));
        return;
      }
      if (matchedRoute(request)?.kind === "document") {
        next();
        return;
      }
      if (isOperatorRoute(request)) {
        try {
          checkOperator(ctx, request);
        } catch (err) {
          next(err as Error);
          return;
        }
        next();
        return;
      }
      const latency = latencyMs(ctx);
      if (latency > 0) setTimeout(() => publicRequest(ctx, request, reply, next), latency);
      else publicRequest(ctx, request, reply, next);
    });
    done();
  },
  { name: "auth", dependencies: ["errors"] },
);

/**
 * Authentication plugin (`onRequest`): the bearer token of every request but the OpenAPI
 * document. Operator routes need the admin key (and answer 404, as unknown paths do, when none is
 * configured); every other request needs an API key, whose account it then speaks for
 * (`request.account`). Codes: 201 missing or not `Bearer <token>`, 202 malformed, 203 unknown.
 *
 * @packageDocumentation
 */
import type { FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { ErrorReply } from "../errorReply";
import { TOKEN_PATTERN } from "../options";
import { accessOf, routeNotFound } from "../routeInfo";
import { bearerOf } from "./accounts";
import { checkHook } from "./check";

/** The bearer token of a request. @throws ErrorReply 201 (missing), 202 (malformed). */
function bearerToken(request: FastifyRequest): string {
  const token = bearerOf(request);
  if (token === undefined) {
    throw new ErrorReply(201, "the Authorization header must be present and of the form 'Bearer <API key>'");
  }
  if (!TOKEN_PATTERN.test(token))
    throw new ErrorReply(202, "the API key in the Authorization header is malformed");
  return token;
}

/**
 * Checks the request's key.
 *
 * @throws ErrorReply 404 (operator path without an admin key), 201, 202, 203.
 */
function authenticate(request: FastifyRequest): void {
  const { keys } = request.server;
  const access = accessOf(request);
  if (access === "document") return;
  if (access === "operator") {
    if (!keys.hasAdmin) throw routeNotFound(request);
    if (!keys.isAdmin(bearerToken(request))) throw new ErrorReply(203, "the admin key is not valid");
    return;
  }
  const account = keys.accountOf(bearerToken(request));
  if (!account) throw new ErrorReply(203, "the API key is not valid");
  request.account = account;
}

/** The authentication hook (see the module comment). */
export const authenticationPlugin = fp(
  (app, _opts, done) => {
    app.addHook("onRequest", checkHook(authenticate));
    done();
  },
  { name: "authentication", dependencies: ["accounts", "faults"] },
);

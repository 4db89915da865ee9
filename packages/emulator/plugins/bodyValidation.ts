/**
 * Validation plugin: request bodies are validated in each route's `schema.body` (a contract zod
 * schema), before the handler runs, in the order and with the codes of the service
 * (docs/service-api.md § Errors): JSON (213), unknown fields (214), types and limits (215). The
 * contract's `validateRequest` maps a body onto those codes; a handler receives the body in the
 * contract's TypeScript (camelCase) names, typed by `fastify-type-provider-zod`'s
 * `ZodTypeProvider`.
 *
 * Bodies are read as text by one catch-all content-type parser (its size limit answers 413, the
 * `Content-Type` was checked before, in `onRequest`), and parsed here, so that an empty or broken
 * body is a 213 of the validation stage rather than a Fastify error.
 *
 * @packageDocumentation
 */
import type { FastifySchemaCompiler } from "fastify";
import fp from "fastify-plugin";
import { keysToCamel, validateRequest } from "service-contract";
import type { z } from "zod";
import { parseJsonObject } from "../body";
import { ErrorReply } from "../errorReply";

declare module "fastify" {
  interface FastifyRequest {
    /** The body as received (UTF-8 text), `null` without a body: what an `Idempotency-Key` fingerprints. */
    rawBody: string | null;
  }
}

/** Body schemas whose wire names are the schema's own camelCase names (the fault settings). */
const camelCaseOnWire = new WeakSet<z.ZodType>();

/** Marks a body schema whose wire names are its own camelCase names; returns it. */
export function camelCaseBody<S extends z.ZodType>(schema: S): S {
  camelCaseOnWire.add(schema);
  return schema;
}

/**
 * Fastify's validator compiler for the routes' zod body schemas: the validator parses the raw
 * body, checks it against the schema with the service's codes and answers a `ErrorReply` (213,
 * 214, 215) or the body with camelCase keys.
 *
 * @throws Error when a route declares a schema for another part than the body (params and query
 * strings are checked in the handlers, after the body, as the service orders its checks).
 */
export const bodyValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart, url }) => {
  if (httpPart !== "body")
    throw new Error(`${url}: only body schemas are validated by schema, not ${httpPart}`);
  const camelCase = camelCaseOnWire.has(schema);
  return (data: unknown) => {
    try {
      const body = parseJsonObject(data);
      const issue = validateRequest(schema, body, camelCase);
      if (issue) return { error: new ErrorReply(issue.code, issue.message) };
      return { value: camelCase ? body : keysToCamel(body) };
    } catch (err) {
      return { error: err as Error };
    }
  };
};

/** The catch-all text body parser and the validator compiler of every route. */
export const validationPlugin = fp(
  (app, _opts, done) => {
    app.decorateRequest("rawBody", null);
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", { parseAs: "string" }, (request, body, next) => {
      request.rawBody = body as string;
      next(null, body);
    });
    app.setValidatorCompiler(bodyValidatorCompiler);
    done();
  },
  { name: "validation", dependencies: ["errors"] },
);

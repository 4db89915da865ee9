/**
 * `GET /openapi.json`: the OpenAPI document of the service and of the operator endpoints, served
 * without a key. Reference: docs/service-api.md § What the emulator adds.
 *
 * @packageDocumentation
 */
import type { FastifyPluginCallback } from "fastify";
import { buildOpenApiDocument } from "service-contract";

let documentText: string | undefined;
/** The document as JSON text: built on first use, once per process. */
function openApiDocument(): string {
  documentText ??= JSON.stringify(buildOpenApiDocument());
  return documentText;
}

/** The document route (an encapsulated plugin). */
export const documentRoutes: FastifyPluginCallback = (app, _opts, done) => {
  app.get("/openapi.json", { config: { access: "document" } }, (_request, reply) =>
    reply.type("application/json; charset=utf-8").send(openApiDocument()),
  );
  done();
};

/**
 * The emulator's own routes: the operator endpoints under `/_operator` (admin key: review of any
 * account's abuse report, injected faults, the request log) and `GET /openapi.json` (no key).
 * Reference: docs/service-api.md § What the emulator adds.
 *
 * @packageDocumentation
 */
import fp from "fastify-plugin";
import { ID_PREFIX } from "service-contract";
import { buildOpenApiDocument } from "service-contract";
import { OPERATOR_PREFIX, type RouteInfo, type WithContext } from "../context";
import { ServiceError } from "../errors";
import type { FaultConfig } from "../faults";
import { renderAbuseReport } from "../resources";
import { FaultConfig as FaultConfigSchema, Review } from "service-contract";
import { parseJsonObject, validateBody, type ReviewInput } from "../body";
import { pathId, route } from "./common";

/** Most request log entries in one page of `GET /_operator/requests` (also its default `limit`). */
export const REQUEST_LOG_PAGE_MAX = 1000;

let documentText: string | undefined;
/** The OpenAPI document of the service and of these endpoints, as JSON text: built on first use, once per process. */
function openApiDocument(): string {
  documentText ??= JSON.stringify(buildOpenApiDocument());
  return documentText;
}

/** The operator routes and the OpenAPI document. */
export const operatorRoutes = fp<WithContext>(
  (app, { ctx }, done) => {
    const { store, control } = ctx;
    route(app, ctx, "operator", "POST", `${OPERATOR_PREFIX}/abuse_reports/:id/review`, (request) => {
      const body = validateBody<ReviewInput>(parseJsonObject(request.body), Review);
      const id = pathId(request, ID_PREFIX.abuseReport, "an abuse report");
      const report = store.reviewAbuseReport(id, body.hostnames, ctx.clock());
      return renderAbuseReport(report, ctx.base(request));
    });
    route(app, ctx, "operator", "GET", `${OPERATOR_PREFIX}/faults`, () => control.getFaults());
    route(app, ctx, "operator", "PUT", `${OPERATOR_PREFIX}/faults`, (request) => {
      const body = validateBody<FaultConfig>(parseJsonObject(request.body), FaultConfigSchema, true);
      try {
        return control.setFaults(body);
      } catch (e) {
        throw new ServiceError(215, (e as Error).message);
      }
    });
    route(app, ctx, "operator", "GET", `${OPERATOR_PREFIX}/requests`, (request) => {
      const q = request.query as Record<string, unknown>;
      const since = q.since;
      if (since !== undefined && (typeof since !== "string" || !/^\d{1,15}$/.test(since))) {
        throw new ServiceError(215, `since: must be a non-negative integer, got ${JSON.stringify(since)}`);
      }
      let limit = REQUEST_LOG_PAGE_MAX;
      if (q.limit !== undefined) {
        const n = typeof q.limit === "string" && /^\d{1,5}$/.test(q.limit) ? Number(q.limit) : NaN;
        if (!(n >= 1 && n <= REQUEST_LOG_PAGE_MAX)) {
          throw new ServiceError(
            233,
            `limit must be an integer between 1 and ${REQUEST_LOG_PAGE_MAX}, got ${JSON.stringify(q.limit)}`,
          );
        }
        limit = n;
      }
      // One entry more than the page tells whether another page follows.
      const entries = store.requests(since === undefined ? 0 : Number(since), limit + 1);
      const page = entries.slice(0, limit);
      const next = entries.length > limit ? page[page.length - 1].seq : undefined;
      return {
        requests: page,
        next_page_uri:
          next === undefined
            ? null
            : `${ctx.base(request)}${OPERATOR_PREFIX}/requests?since=${next}&limit=${limit}`,
      };
    });
    route(app, ctx, "operator", "DELETE", `${OPERATOR_PREFIX}/requests`, (_request, reply) => {
      store.clearRequests();
      return reply.code(204).send();
    });

    app.route({
      method: "GET",
      url: "/openapi.json",
      config: { kind: "document", operator: false } satisfies RouteInfo as unknown as Record<string, unknown>,
      handler: (_request, reply) => reply.type("application/json; charset=utf-8").send(openApiDocument()),
    });
    done();
  },
  { name: "operator-routes" },
);

/**
 * The operator endpoints, registered under `/_operator` (admin key): review of any account's
 * abuse report, injected faults, the request log. Reference: docs/service-api.md § What the
 * emulator adds.
 *
 * @packageDocumentation
 */
import type { FastifyPluginCallbackZod } from "fastify-type-provider-zod";
import { FaultConfig, RESOURCES, Review } from "service-contract";
import { ErrorReply } from "../errorReply";
import { camelCaseBody } from "../plugins/bodyValidation";
import { OPERATOR_PREFIX } from "../routeInfo";
import { renderAbuseReport } from "../records";
import { pathId, routeAccess } from "./common";

/** Most request log entries in one page of `GET /_operator/requests` (also its default `limit`). */
export const REQUEST_LOG_PAGE_MAX = 1000;

const { abuseReport } = RESOURCES;

/** The fault settings travel in their TypeScript names. */
const FaultSettings = camelCaseBody(FaultConfig);

/** The operator routes (an encapsulated plugin, registered with the prefix `/_operator`). */
export const operatorRoutes: FastifyPluginCallbackZod = (app, _opts, done) => {
  const { store, emulator } = app;
  routeAccess(app, "operator");
  app.post(`${abuseReport.path}/:id/review`, { schema: { body: Review } }, (request) => {
    const id = pathId(request, abuseReport);
    const report = store.reviewAbuseReport(id, request.body.hostnames, app.clock());
    return renderAbuseReport(report, request.baseUrl());
  });
  app.get("/faults", () => emulator.getFaults());
  app.put("/faults", { schema: { body: FaultSettings } }, (request) => {
    try {
      return emulator.setFaults(request.body);
    } catch (e) {
      // A rule across fields (the shares add up to at most 1), which the body check leaves to it.
      throw new ErrorReply(215, (e as Error).message);
    }
  });
  app.get("/requests", (request) => {
    const q = request.query as Record<string, unknown>;
    const since = q.since;
    if (since !== undefined && (typeof since !== "string" || !/^\d{1,15}$/.test(since))) {
      throw new ErrorReply(215, `since: must be a non-negative integer, got ${JSON.stringify(since)}`);
    }
    let limit = REQUEST_LOG_PAGE_MAX;
    if (q.limit !== undefined) {
      const n = typeof q.limit === "string" && /^\d{1,5}$/.test(q.limit) ? Number(q.limit) : NaN;
      if (!(n >= 1 && n <= REQUEST_LOG_PAGE_MAX)) {
        throw new ErrorReply(
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
          : `${request.baseUrl()}${OPERATOR_PREFIX}/requests?since=${next}&limit=${limit}`,
    };
  });
  app.delete("/requests", (_request, reply) => {
    store.clearRequests();
    return reply.code(204).send();
  });
  done();
};

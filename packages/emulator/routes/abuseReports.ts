/**
 * Routes of abuse reports: `POST /abuse_reports`, `GET /abuse_reports/{id}` (accounts authorized
 * for abuse reports only). Reference: docs/service-api.md § Abuse reports.
 *
 * @packageDocumentation
 */
import type { FastifyPluginCallbackZod } from "fastify-type-provider-zod";
import { AbuseReportCreate, ID_PREFIX } from "service-contract";
import { ServiceError } from "../errors";
import { renderAbuseReport } from "../resources";
import { pathId, routeAccess } from "./common";

/** Options of {@link abuseReportRoutes}. */
export interface AbuseReportRoutesOptions {
  /** Most abuse reports per account (a count, at least 1); one more answers 409 / 241. */
  maxPerAccount: number;
  /**
   * Automatic review: a hostname `PENDING` for at least this many **milliseconds** is reviewed
   * when its report is next read. Off when absent.
   */
  reviewDelayMs?: number;
}

/** The abuse report routes (an encapsulated plugin). */
export const abuseReportRoutes: FastifyPluginCallbackZod<AbuseReportRoutesOptions> = (
  app,
  { maxPerAccount, reviewDelayMs },
  done,
) => {
  const { store } = app;
  routeAccess(app, "public", true);
  app.post("/abuse_reports", { schema: { body: AbuseReportCreate } }, (request, reply) =>
    reply.created(() => {
      const { urls, metadata } = request.body;
      const hostnames: string[] = [];
      for (const u of urls) {
        const h = new URL(u).hostname.toLowerCase();
        if (!hostnames.includes(h)) hostnames.push(h);
      }
      const input = { urls, metadata: metadata ?? "", hostnames };
      const report = store.createAbuseReport(request.accountId(), input, app.clock(), maxPerAccount);
      return renderAbuseReport(report, request.baseUrl());
    }),
  );
  app.get("/abuse_reports/:id", (request) => {
    const id = pathId(request, ID_PREFIX.abuseReport, "an abuse report");
    const autoReview =
      reviewDelayMs === undefined ? undefined : { delayMs: reviewDelayMs, nowMs: app.clock() };
    const report = store.getAbuseReport(request.accountId(), id, autoReview);
    if (!report) throw new ServiceError(404, `no abuse report with ID ${JSON.stringify(id)}`);
    return renderAbuseReport(report, request.baseUrl());
  });
  done();
};

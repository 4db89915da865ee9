/**
 * Routes of abuse reports (the contract's descriptor): `POST /abuse_reports`,
 * `GET /abuse_reports/{id}` (accounts authorized for abuse reports only). Reference: docs/service-api.md § Abuse reports.
 *
 * @packageDocumentation
 */
import type { FastifyPluginCallbackZod } from "fastify-type-provider-zod";
import { RESOURCES } from "service-contract";
import { renderAbuseReport } from "../records";
import { routeAccess } from "./common";
import { resourceRoutes } from "./resource";

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
  resourceRoutes(app, RESOURCES.abuseReport, {
    create(request, { urls, metadata }) {
      const hostnames: string[] = [];
      for (const u of urls) {
        const h = new URL(u).hostname.toLowerCase();
        if (!hostnames.includes(h)) hostnames.push(h);
      }
      const input = { urls, metadata: metadata ?? "", hostnames };
      return store.createAbuseReport(request.accountId(), input, app.clock(), maxPerAccount);
    },
    get(request, id) {
      const autoReview =
        reviewDelayMs === undefined ? undefined : { delayMs: reviewDelayMs, nowMs: app.clock() };
      return store.getAbuseReport(request.accountId(), id, autoReview);
    },
    render: renderAbuseReport,
  });
  done();
};

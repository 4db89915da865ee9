/**
 * Routes of abuse reports: `POST /abuse_reports`, `GET /abuse_reports/{id}` (accounts authorized
 * for abuse reports only). Reference: docs/service-api.md § Abuse reports.
 *
 * @packageDocumentation
 */
import fp from "fastify-plugin";
import { ID_PREFIX } from "service-contract";
import type { WithContext } from "../context";
import { ServiceError } from "../errors";
import { create } from "../plugins/idempotency";
import { renderAbuseReport } from "../resources";
import { AbuseReportCreate } from "service-contract";
import { parseJsonObject, validateBody, type CreateAbuseReportInput } from "../body";
import { pathId, route } from "./common";

/** The abuse report routes. */
export const abuseReportRoutes = fp<WithContext>(
  (app, { ctx }, done) => {
    const { store } = ctx;
    route(
      app,
      ctx,
      "public",
      "POST",
      "/abuse_reports",
      (request, reply) =>
        create(ctx, request, reply, () => {
          const body = validateBody<CreateAbuseReportInput>(parseJsonObject(request.body), AbuseReportCreate);
          const hostnames: string[] = [];
          for (const u of body.urls) {
            const h = new URL(u).hostname.toLowerCase();
            if (!hostnames.includes(h)) hostnames.push(h);
          }
          const report = store.createAbuseReport(
            ctx.accountOf(request).id,
            { urls: body.urls, metadata: body.metadata ?? "", hostnames },
            ctx.clock(),
            ctx.limits.abuseReportsPerAccount,
          );
          return renderAbuseReport(report, ctx.base(request));
        }),
      true,
    );
    route(
      app,
      ctx,
      "public",
      "GET",
      "/abuse_reports/:id",
      (request) => {
        const id = pathId(request, ID_PREFIX.abuseReport, "an abuse report");
        const delayMs = ctx.opts.reviewDelayMs;
        const autoReview = delayMs === undefined ? undefined : { delayMs, nowMs: ctx.clock() };
        const report = store.getAbuseReport(ctx.accountOf(request).id, id, autoReview);
        if (!report) throw new ServiceError(404, `no abuse report with ID ${JSON.stringify(id)}`);
        return renderAbuseReport(report, ctx.base(request));
      },
      true,
    );
    done();
  },
  { name: "abuse-report-routes" },
);

/**
 * Implementation of the `AbuseReport` dynamic provider, loaded by package name inside the
 * provider methods (see provider/dynamic/abuseReport.ts). Reference: docs/service-api.md § Abuse reports.
 * Reports can be created and read only: any change of an input
 * replaces the resource (a new report is filed), and delete makes no API call.
 *
 * @packageDocumentation
 */
import type * as pulumi from "@pulumi/pulumi";
import { RESOURCES } from "service-contract";
import type { AbuseReport } from "../../client";
import { checkAbuseReportInputs } from "./inputChecks";
import { changedProperties, sameSet } from "./compare";
import { createOnce } from "./create/createOnce";
import { carryOptions, diffResult, type ServiceDiffResult } from "./resourceOptions";
import { timed } from "./timeouts";
import { getUnlessGone, stamped } from "./keyChecks";
import { getClient } from "./process/client";
import { warn } from "./process/debugLog";

/** Inputs as the provider receives them (after `check`). */
export interface ReportInputs {
  urls: string[];
  metadata?: string;
}

/** Outputs (the state) of an `AbuseReport`. */
export interface ReportOutputs {
  urls: string[];
  metadata: string;
  status: AbuseReport["status"];
  hostnames: AbuseReport["hostnames"];
  uri: string;
  createdAt: string;
}

/** Maps the API's report to outputs. */
export function toOutputs(report: AbuseReport): ReportOutputs {
  return {
    urls: [...report.urls],
    metadata: report.metadata,
    status: report.status,
    hostnames: report.hostnames.map((h) => ({ hostname: h.hostname, status: h.status })),
    uri: report.uri,
    createdAt: report.createdAt,
  };
}

/** `check`: validates with the client's rules; unknown values are not failures. */
export async function check(_olds: unknown, news: ReportInputs): Promise<pulumi.dynamic.CheckResult> {
  return { inputs: news, failures: checkAbuseReportInputs(news as unknown as Record<string, unknown>) };
}

/** The properties `diff` compares, each with "equal?" on old outputs and new inputs. */
const MANAGED: Record<string, (olds: ReportOutputs, news: ReportInputs) => boolean> = {
  urls: (o, n) => sameSet(o.urls ?? [], n.urls ?? []),
  metadata: (o, n) => (o.metadata ?? "") === (n.metadata ?? ""),
};

/**
 * `diff`: a change of `urls` (ignoring their order) or `metadata` replaces the report; the
 * review's `status` and `hostnames` are outputs and never cause a change.
 */
export async function diff(_id: string, olds: ReportOutputs, news: ReportInputs): Promise<ServiceDiffResult> {
  return diffResult(changedProperties(MANAGED, olds, news), news, { replaceAll: true });
}

/**
 * `create`: files the report (it starts `PENDING`), with one `Idempotency-Key` per logical create.
 * Reports cannot be listed, so an answer lost on the way back is resolved by the key alone: the
 * create is sent again with the same key when the service has shown that it honours keys;
 * otherwise the error says the report may or may not have been filed.
 *
 * @param timeoutMs - the create timeout in **milliseconds** (the native door's
 *   `customTimeouts.create`); the dynamic door's comes with the inputs (see timeouts.ts).
 */
export async function create(news: ReportInputs, timeoutMs?: number): Promise<pulumi.dynamic.CreateResult> {
  const client = getClient();
  const what = RESOURCES.abuseReport.names.singular;
  return timed("create", what, news, timeoutMs, async () => {
    const { id, ...outs } = await createOnce({
      what,
      create: async (idempotencyKey) => {
        const report = await client.abuseReports.create(
          { urls: news.urls, ...(news.metadata ? { metadata: news.metadata } : {}) },
          { idempotencyKey },
        );
        return { id: report.id, ...toOutputs(report) };
      },
      keysHonoured: () => client.idempotency.honoured,
      warn,
    });
    return { id, outs: stamped(outs) };
  });
}

/**
 * `read` (refresh): the report as reviewed so far; a 404 to the key that filed it removes it from
 * the state (to another key, an error: keyStamp.ts).
 */
export async function read(id: string, props?: ReportOutputs): Promise<pulumi.dynamic.ReadResult> {
  const what = `${RESOURCES.abuseReport.names.singular} ${id}`;
  const report = await getUnlessGone(() => getClient().abuseReports.get(id), { what, props });
  if (!report) return {};
  const outs = stamped(toOutputs(report), props);
  const inputs: ReportInputs = { urls: outs.urls, ...(outs.metadata ? { metadata: outs.metadata } : {}) };
  return { id, props: carryOptions({ outs }, props).outs, inputs };
}

/** `delete`: reports cannot be deleted; this only says so through Pulumi's log. */
export async function remove(id: string): Promise<void> {
  await warn(
    `Abuse report ${id} was removed from the stack but stays on the service: reports cannot be deleted.`,
  );
}

/**
 * Abuse reports: URLs with suspected abusive content, reviewed by the service's operators
 * hostname by hostname. Reports can be filed and read, never listed, changed or deleted.
 * Reference: docs/service-api.md § Abuse reports.
 *
 * @packageDocumentation
 */
import { z } from "zod";
import { bytes, httpUrl, list } from "./checks";
import { resourceFields } from "./resourceShapes";
import { ABUSE_REPORT_URLS_MAX, ABUSE_REPORT_URLS_MIN, ID_PREFIX, METADATA_MAX_BYTES } from "./limits";

/** Whether an abuse report has been processed. A new report is `PENDING`. */
export const AbuseReportStatus = z.enum(["PENDING", "PROCESSED", "PARTIALLY_PROCESSED"]);
/** Whether an abuse report has been processed. A new report is `PENDING`. */
export type AbuseReportStatus = z.infer<typeof AbuseReportStatus>;

/** Action taken against one hostname of an abuse report. A new entry is `PENDING`. */
export const AbuseReportHostnameStatus = z.enum(["PENDING", "BANNED", "UNBANNED", "IGNORE"]);
/** Action taken against one hostname of an abuse report. A new entry is `PENDING`. */
export type AbuseReportHostnameStatus = z.infer<typeof AbuseReportHostnameStatus>;

/** A hostname parsed out of a reported URL (lower-cased) and the action taken against it. */
export const AbuseReportHostname = z.object({
  hostname: z.string(),
  status: AbuseReportHostnameStatus,
});
/** A hostname parsed out of a reported URL (lower-cased) and the action taken against it. */
export type AbuseReportHostname = z.infer<typeof AbuseReportHostname>;

/**
 * An abuse report: `status` is derived from the hostnames (all `PENDING` → `PENDING`; none →
 * `PROCESSED`; otherwise `PARTIALLY_PROCESSED`); `metadata` is `""` when none was given.
 */
export const AbuseReport = z.object({
  ...resourceFields(ID_PREFIX.abuseReport),
  urls: z.array(z.string()),
  metadata: z.string(),
  status: AbuseReportStatus,
  /** One entry per distinct hostname, in order of first appearance in `urls`. */
  hostnames: z.array(AbuseReportHostname),
});
/** An abuse report (see the schema of the same name). */
export type AbuseReport = z.infer<typeof AbuseReport>;

/** A URL of an abuse report: absolute `http` or `https`, with a host. */
export const ReportedUrl = httpUrl();

/**
 * Body of `POST /abuse_reports`: `urls` 1 to 100 absolute http(s) URLs; `metadata` at most 4096
 * **bytes** of UTF-8. Unknown fields are rejected.
 */
export const AbuseReportCreate = z.strictObject({
  urls: list(ReportedUrl, { min: ABUSE_REPORT_URLS_MIN, max: ABUSE_REPORT_URLS_MAX }),
  metadata: bytes(METADATA_MAX_BYTES).optional(),
});
/** Input of `abuseReports.create` (see the schema of the same name). */
export type AbuseReportCreate = z.infer<typeof AbuseReportCreate>;

/**
 * Abuse report review rules (docs/service-api.md § Abuse reports).
 *
 * @packageDocumentation
 */

import { AbuseReportHostnameStatus, AbuseReportStatus } from "service-contract";

/** Status of one hostname of an abuse report (the contract's `AbuseReportHostnameStatus`). */
export type HostnameStatus = AbuseReportHostnameStatus;

/** Status of an abuse report, derived from its hostnames (the contract's `AbuseReportStatus`). */
export type ReportStatus = AbuseReportStatus;

/**
 * Derives a report's status from its hostnames: all `PENDING` → `PENDING`; none `PENDING` →
 * `PROCESSED`; otherwise `PARTIALLY_PROCESSED` (docs/service-api.md § Abuse reports).
 */
export function reportStatus(hostnames: readonly { status: HostnameStatus }[]): ReportStatus {
  const { PENDING } = AbuseReportHostnameStatus.enum;
  const pending = hostnames.filter((h) => h.status === PENDING).length;
  if (pending === hostnames.length) return AbuseReportStatus.enum.PENDING;
  if (pending === 0) return AbuseReportStatus.enum.PROCESSED;
  return AbuseReportStatus.enum.PARTIALLY_PROCESSED;
}

const RESERVED_SUFFIXES = [".localhost", ".example", ".test", ".invalid"];
const RESERVED_NAMES = new Set(["localhost", "example", "test", "invalid"]);

/**
 * The emulator's automatic review rule, used when a review delay is configured: a hostname that
 * has been `PENDING` for at least the delay becomes
 *
 * - `IGNORE` when it is a reserved, never-public name (RFC 2606 / RFC 6761): `localhost`,
 *   `example`, `test`, `invalid`, or a name ending in `.localhost`, `.example`, `.test` or
 *   `.invalid`;
 * - `BANNED` otherwise.
 *
 * The rule is deterministic and depends on the hostname alone. (`example.com` is an ordinary name
 * here and is BANNED.) The rule is ours: the service's abuse response team decides by hand.
 */
export function autoReviewStatus(hostname: string): Exclude<HostnameStatus, "PENDING"> {
  const h = hostname.toLowerCase().replace(/\.$/, "");
  if (RESERVED_NAMES.has(h) || RESERVED_SUFFIXES.some((s) => h.endsWith(s)))
    return AbuseReportHostnameStatus.enum.IGNORE;
  return AbuseReportHostnameStatus.enum.BANNED;
}

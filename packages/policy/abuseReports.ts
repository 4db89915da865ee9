/**
 * The rule `service-abuse-reports-allowed`: abuse reports (which can get hostnames banned) only
 * in stacks whose policy configuration allows them.
 *
 * @packageDocumentation
 */
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { serviceKindOf } from "./resources";

/** Configuration of `service-abuse-reports-allowed`. */
export interface AbuseReportsConfig {
  /** True in the stacks that may file abuse reports; default false. */
  allowAbuseReports: boolean;
}

/** `service-abuse-reports-allowed` (mandatory): no abuse report unless `allowAbuseReports` is true. */
export const abuseReportsAllowed: ResourceValidationPolicy = {
  name: "service-abuse-reports-allowed",
  description: "Abuse reports are filed only from stacks whose policy configuration sets allowAbuseReports.",
  enforcementLevel: "mandatory",
  configSchema: { properties: { allowAbuseReports: { type: "boolean", default: false } } },
  validateResource: (args, reportViolation) => {
    if (serviceKindOf(args.type) !== "AbuseReport") return;
    if (!args.getConfig<AbuseReportsConfig>().allowAbuseReports)
      reportViolation(
        `abuse report "${args.name}" is not allowed in this stack (set allowAbuseReports: true in the policy pack config of stacks that file abuse reports)`,
      );
  },
};

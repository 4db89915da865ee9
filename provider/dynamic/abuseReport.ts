import * as pulumi from "@pulumi/pulumi";
import { providerSource, ServiceResource } from "./resource";
import type { AbuseReportHostname, AbuseReportStatus } from "service-contract";

/**
 * The serialized dynamic provider of {@link AbuseReport}, in the state of every report
 * (`__provider`): calls that load the implementation by package name in the provider process
 * (provider/impl/abuseReport.ts); reports have no update. Configuration is read in `configure()`, never
 * captured here.
 */
const provider = providerSource("abuseReport", { update: false });

/** Inputs of an {@link AbuseReport}. Reference: docs/service-api.md § Abuse reports. */
export interface AbuseReportArgs {
  /** 1 to 100 absolute `http`/`https` URLs with a host that contain suspected abusive content. */
  urls: pulumi.Input<pulumi.Input<string>[]>;
  /** Arbitrary data, at most 4096 **bytes** of UTF-8. */
  metadata?: pulumi.Input<string>;
}

/**
 * An abuse report. Needs an account authorized for abuse reports (else `up` fails with a
 * permission error).
 *
 * - create: `POST /abuse_reports`; the report and each hostname start `PENDING`;
 * - update: none exists: changing `urls` (other than their order) or `metadata` files a new
 *   report and drops the old one from the stack (replace);
 * - refresh: `GET`, which shows the review: `status` becomes `PARTIALLY_PROCESSED` or
 *   `PROCESSED` and each hostname `BANNED`, `UNBANNED` or `IGNORE`;
 * - delete: no API call (reports cannot be deleted); a warning in Pulumi's log says the
 *   report stays on the service.
 *
 * Type token: `pulumi-nodejs:dynamic/service:AbuseReport`.
 */
export class AbuseReport extends ServiceResource {
  /** The reported URLs. */
  declare public readonly urls: pulumi.Output<string[]>;
  /** The report's status as of the last create or refresh (the contract's `AbuseReportStatus`). */
  declare public readonly status: pulumi.Output<AbuseReportStatus>;
  /** One entry per distinct hostname, with its status (the contract's `AbuseReportHostnameStatus`). */
  declare public readonly hostnames: pulumi.Output<AbuseReportHostname[]>;

  /**
   * Declares the abuse report; `pulumi up` creates or updates it to match `args`.
   *
   * @param name Pulumi resource name (unique in the stack).
   * @param args Inputs, checked before anything is sent (failures name the property).
   * @param opts Resource options.
   */
  constructor(name: string, args: AbuseReportArgs, opts?: pulumi.CustomResourceOptions) {
    super(provider, "AbuseReport", name, args, ["status", "hostnames"], opts);
  }
}

/**
 * The rule `service-destination-targets`: an event destination only sends to allowed targets.
 * The target kinds and their ARN fields come from the contract (`TARGET_KINDS`), so a new kind
 * or a new ARN field needs no edit here.
 *
 * @packageDocumentation
 */
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { DESTINATION_TARGET_KINDS, TARGET_KINDS } from "service-contract";
import { serviceKindOf } from "./resources";

/** Datadog's sites (https://docs.datadoghq.com/getting_started/site/): the default of `datadogSites`. */
export const DATADOG_SITES: readonly string[] = [
  "datadoghq.com",
  "us3.datadoghq.com",
  "us5.datadoghq.com",
  "datadoghq.eu",
  "ap1.datadoghq.com",
  "ap2.datadoghq.com",
  "ddog-gov.com",
];

/** The site a Datadog target without `ddsite` sends to: Datadog's default site, US1. */
export const DEFAULT_DATADOG_SITE = "datadoghq.com";

/**
 * The fields of each target kind that hold an AWS ARN (their names end in `Arn`, outside `auth`),
 * read from the contract's schemas: `{ kinesis: ["streamArn"], firehose: ["deliveryStreamArn"], … }`.
 */
export const ARN_FIELDS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  Object.entries(TARGET_KINDS).map(([kind, schema]) => [
    kind,
    Object.keys((schema as { shape: Record<string, unknown> }).shape).filter((f) => f.endsWith("Arn")),
  ]),
);

/** Configuration of `service-destination-targets` (`--policy-pack-config`). */
export interface DestinationTargetsConfig {
  /** Target kinds allowed (contract names, e.g. `kinesis`, `cloudwatchLogs`); default every kind. */
  targetKinds: string[];
  /** AWS accounts (12 digits) an ARN target may be in; unset: any account. */
  awsAccounts?: string[];
  /** AWS regions (e.g. `us-east-1`) an ARN target may be in; unset: any region. */
  awsRegions?: string[];
  /** Datadog sites allowed (`ddsite`; unset counts as `datadoghq.com`); default DATADOG_SITES. */
  datadogSites: string[];
  /** Azure data collection rules (`dataCollectionRuleId`, `dcr-…`) allowed; unset: any. */
  azureDataCollectionRuleIds?: string[];
}

const stringList = (extra: object = {}) => ({
  type: "array" as const,
  items: { type: "string" as const, ...extra },
});

/** The parts of an ARN `arn:<partition>:<service>:<region>:<account>:<resource>`, or undefined. */
export function parseArn(arn: string): { region: string; account: string } | undefined {
  const m = /^arn:[^:]+:[^:]+:([^:]*):([^:]*):.+$/.exec(arn);
  return m ? { region: m[1], account: m[2] } : undefined;
}

/** The reasons the target `target` (a destination's `target` input) is not allowed by `config`. */
export function targetViolations(
  target: Record<string, unknown> | undefined,
  config: DestinationTargetsConfig,
): string[] {
  const out: string[] = [];
  for (const [kind, value] of Object.entries(target ?? {})) {
    if (value === undefined || value === null) continue;
    if (!config.targetKinds.includes(kind)) {
      out.push(`target kind "${kind}" is not allowed (targetKinds: ${config.targetKinds.join(", ")})`);
      continue;
    }
    const fields = value as Record<string, unknown>;
    for (const field of ARN_FIELDS[kind] ?? []) {
      const arn = fields[field];
      if (typeof arn !== "string") continue;
      const parts = parseArn(arn);
      if (!parts) {
        out.push(
          `${kind}.${field} "${arn}" is not an ARN (arn:<partition>:<service>:<region>:<account>:<resource>)`,
        );
        continue;
      }
      if (config.awsAccounts && !config.awsAccounts.includes(parts.account))
        out.push(
          `${kind}.${field} is in AWS account ${parts.account}, not an allowed one (awsAccounts: ${config.awsAccounts.join(", ")})`,
        );
      if (config.awsRegions && !config.awsRegions.includes(parts.region))
        out.push(
          `${kind}.${field} is in AWS region ${parts.region}, not an allowed one (awsRegions: ${config.awsRegions.join(", ")})`,
        );
    }
    if (kind === "datadog") {
      const site =
        typeof fields.ddsite === "string" && fields.ddsite !== "" ? fields.ddsite : DEFAULT_DATADOG_SITE;
      if (!config.datadogSites.includes(site))
        out.push(
          `datadog.ddsite "${site}" is not an allowed Datadog site (datadogSites: ${config.datadogSites.join(", ")})`,
        );
    }
    const dcr = fields.dataCollectionRuleId;
    if (
      kind === "azureLogsIngestion" &&
      config.azureDataCollectionRuleIds &&
      typeof dcr === "string" &&
      !config.azureDataCollectionRuleIds.includes(dcr)
    )
      out.push(
        `azureLogsIngestion.dataCollectionRuleId "${dcr}" is not an allowed data collection rule (azureDataCollectionRuleIds: ${config.azureDataCollectionRuleIds.join(", ")})`,
      );
  }
  return out;
}

/**
 * `service-destination-targets` (mandatory): every event destination, on either door, sends to
 * an allowed target: a kind of `targetKinds`; Kinesis, Firehose and CloudWatch Logs ARNs in
 * `awsAccounts` and `awsRegions`; a Datadog site of `datadogSites`; an Azure data collection
 * rule of `azureDataCollectionRuleIds`. One violation per reason, naming the field and the list.
 */
export const destinationTargets: ResourceValidationPolicy = {
  name: "service-destination-targets",
  description:
    "Event destinations send only to allowed targets: allowed target kinds, AWS accounts and regions of Kinesis, Firehose and CloudWatch Logs ARNs, Datadog sites and Azure data collection rules.",
  enforcementLevel: "mandatory",
  configSchema: {
    properties: {
      targetKinds: {
        ...stringList({ enum: [...DESTINATION_TARGET_KINDS] }),
        default: [...DESTINATION_TARGET_KINDS],
      },
      awsAccounts: stringList({ pattern: "^[0-9]{12}$" }),
      awsRegions: stringList({ pattern: "^[a-z]{2}(-[a-z]+)+-[0-9]+$" }),
      datadogSites: { ...stringList(), default: [...DATADOG_SITES] },
      azureDataCollectionRuleIds: stringList(),
    },
  },
  validateResource: (args, reportViolation) => {
    if (serviceKindOf(args.type) !== "EventDestination") return;
    for (const reason of targetViolations(args.props.target, args.getConfig<DestinationTargetsConfig>()))
      reportViolation(`event destination "${args.name}": ${reason}`);
  },
};

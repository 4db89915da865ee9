/**
 * zod schemas of every request and response of the service, in their TypeScript (camelCase)
 * form. They are the single source of truth: each exported type is `z.infer` of the schema of
 * the same name. Responses are converted to camelCase by `casing.ts` and then parsed with these
 * schemas; a mismatch throws `APIResponseValidationError`.
 *
 * Response schemas ignore (strip) fields they do not know, so that a service that adds a field
 * does not break the client. Request schemas are strict, like the service (unknown request field
 * → 400 / 214). The service's limits (lengths in bytes or characters, list sizes, event type
 * catalogue) are checked by the functions of `validation.ts`, with the constants of `limits.ts`.
 *
 * Spec: service-interface.md § Resources and their fields, § Endpoints; decisions.md.
 *
 * @packageDocumentation
 */
import { z } from "zod";
import { ID_PREFIX } from "./limits";

const Id = (prefix: string) => z.string().startsWith(prefix);
/** RFC 3339 timestamp, e.g. `2026-11-21T09:30:00Z` (decisions.md § Wire basics). */
const Timestamp = z.iso.datetime({ offset: true });

// ---------------------------------------------------------------------------------------------
// Abuse reports (service-interface.md § Abuse report, decisions.md § Abuse reports)
// ---------------------------------------------------------------------------------------------

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
 * An abuse report: URLs with suspected abusive content. `status` is derived from the hostnames
 * (all `PENDING` → `PENDING`; none → `PROCESSED`; otherwise `PARTIALLY_PROCESSED`).
 * `metadata` is at most 4096 bytes of UTF-8; `""` when none was given.
 */
export const AbuseReport = z.object({
  /** `abrp_` + 27 base62 characters. */
  id: Id(ID_PREFIX.abuseReport),
  /** `{base_url}/abuse_reports/<id>`. */
  uri: z.string(),
  /** RFC 3339 creation time. */
  createdAt: Timestamp,
  urls: z.array(z.string()),
  metadata: z.string(),
  status: AbuseReportStatus,
  /** One entry per distinct hostname, in order of first appearance in `urls`. */
  hostnames: z.array(AbuseReportHostname),
});
/** An abuse report (see the schema of the same name). */
export type AbuseReport = z.infer<typeof AbuseReport>;

/**
 * Body of `POST /abuse_reports`: `urls` 1 to 100 absolute http(s) URLs with a host;
 * `metadata` at most 4096 **bytes** of UTF-8.
 */
export const AbuseReportCreate = z.strictObject({
  urls: z.array(z.string()),
  metadata: z.string().optional(),
});
/** Input of `abuseReports.create` (see the schema of the same name). */
export type AbuseReportCreate = z.infer<typeof AbuseReportCreate>;

// ---------------------------------------------------------------------------------------------
// Event subscriptions (service-interface.md § Event subscription, decisions.md § Event subscriptions)
// ---------------------------------------------------------------------------------------------

/** An event type selected by a subscription, e.g. `ip_policy_created.v0`, with its URI. */
export const EventSource = z.object({
  type: z.string(),
  /** `{base_url}/event_subscriptions/<subscription_id>/sources/<type>`. */
  uri: z.string(),
});
/** An event type selected by a subscription, with its URI. */
export type EventSource = z.infer<typeof EventSource>;

/** A source in a create or update request: only the event `type` (one of `EVENT_TYPES`). */
export const EventSourceReplace = z.strictObject({ type: z.string() });
/** A source in a create or update request: only the event `type`. */
export type EventSourceReplace = z.infer<typeof EventSourceReplace>;

/** Reference to another resource (for destinations: `ed_…` and `{base_url}/event_destinations/<id>`). */
export const Ref = z.object({ id: z.string(), uri: z.string() });
/** Reference to another resource. */
export type Ref = z.infer<typeof Ref>;

/**
 * An event subscription. `metadata` (≤ 4096 characters) and `description` (≤ 255 characters)
 * are `""` when not set; `sources` and `destinations` keep the order given at create/update.
 */
export const EventSubscription = z.object({
  /** `esb_` + 27 base62 characters. */
  id: Id(ID_PREFIX.eventSubscription),
  /** `{base_url}/event_subscriptions/<id>`. */
  uri: z.string(),
  /** RFC 3339 creation time. */
  createdAt: Timestamp,
  metadata: z.string(),
  description: z.string(),
  sources: z.array(EventSource),
  destinations: z.array(Ref),
});
/** An event subscription (see the schema of the same name). */
export type EventSubscription = z.infer<typeof EventSubscription>;

/**
 * Body of `POST /event_subscriptions`: `sources` 1 to 10 distinct known event types;
 * `destinationIds` 1 to 10 `ed_…` IDs of the account; `metadata` ≤ 4096 **characters**;
 * `description` ≤ 255 **characters** (Unicode code points).
 */
export const EventSubscriptionCreate = z.strictObject({
  sources: z.array(EventSourceReplace),
  destinationIds: z.array(z.string()),
  description: z.string().optional(),
  metadata: z.string().optional(),
});
/** Input of `eventSubscriptions.create` (see the schema of the same name). */
export type EventSubscriptionCreate = z.infer<typeof EventSubscriptionCreate>;

/**
 * Body of `PATCH /event_subscriptions/{id}`: a partial update. A field left out keeps its value;
 * a field sent replaces the whole value (lists included); `""` clears a string. Same limits as
 * {@link EventSubscriptionCreate}.
 */
export const EventSubscriptionUpdate = EventSubscriptionCreate.partial();
/** Input of `eventSubscriptions.update` (see the schema of the same name). */
export type EventSubscriptionUpdate = z.infer<typeof EventSubscriptionUpdate>;

/** One page of `GET /event_subscriptions` (newest first). */
export const EventSubscriptionList = z.object({
  eventSubscriptions: z.array(EventSubscription),
  uri: z.string(),
  /** Absolute URI of the next page, `null` on the last page. */
  nextPageUri: z.string().nullable(),
});
/** One page of `GET /event_subscriptions`. */
export type EventSubscriptionList = z.infer<typeof EventSubscriptionList>;

// ---------------------------------------------------------------------------------------------
// Event destinations (decisions.md § Event destinations)
// ---------------------------------------------------------------------------------------------

/** AWS authentication by an IAM role the service assumes. */
export const AwsRole = z.object({ roleArn: z.string() });
/** AWS authentication by an IAM role the service assumes. */
export type AwsRole = z.infer<typeof AwsRole>;

/** AWS authentication by an access key. `awsSecretAccessKey` is write-only: responses show `""`. */
export const AwsCredentials = z.object({ awsAccessKeyId: z.string(), awsSecretAccessKey: z.string() });
/** AWS authentication by an access key. */
export type AwsCredentials = z.infer<typeof AwsCredentials>;

/** Exactly one of `{ role }` or `{ creds }`. */
export const AwsAuth = z.union([z.object({ role: AwsRole }), z.object({ creds: AwsCredentials })]);
/** Exactly one of `{ role }` or `{ creds }`. */
export type AwsAuth = z.infer<typeof AwsAuth>;

/** Amazon Data Firehose target. */
export const FirehoseTarget = z.object({ auth: AwsAuth, deliveryStreamArn: z.string() });
/** Amazon Data Firehose target. */
export type FirehoseTarget = z.infer<typeof FirehoseTarget>;

/** Amazon Kinesis target. */
export const KinesisTarget = z.object({ auth: AwsAuth, streamArn: z.string() });
/** Amazon Kinesis target. */
export type KinesisTarget = z.infer<typeof KinesisTarget>;

/** Amazon CloudWatch Logs target. */
export const CloudwatchLogsTarget = z.object({ auth: AwsAuth, logGroupArn: z.string() });
/** Amazon CloudWatch Logs target. */
export type CloudwatchLogsTarget = z.infer<typeof CloudwatchLogsTarget>;

/** Datadog target. `apiKey` is write-only: responses show `""`. */
export const DatadogTarget = z.object({
  apiKey: z.string(),
  ddtags: z.string().optional(),
  service: z.string().optional(),
  ddsite: z.string().optional(),
});
/** Datadog target. */
export type DatadogTarget = z.infer<typeof DatadogTarget>;

/** Azure Monitor Logs Ingestion target. `clientSecret` is write-only: responses show `""`. */
export const AzureLogsIngestionTarget = z.object({
  tenantId: z.string(),
  clientId: z.string(),
  clientSecret: z.string(),
  logsIngestionUri: z.string(),
  dataCollectionRuleId: z.string(),
  dataCollectionStreamName: z.string(),
});
/** Azure Monitor Logs Ingestion target. */
export type AzureLogsIngestionTarget = z.infer<typeof AzureLogsIngestionTarget>;

/**
 * Where a destination sends events: exactly one of `firehose`, `kinesis`, `cloudwatchLogs`,
 * `datadog` or `azureLogsIngestion` (wire: `cloudwatch_logs`, `azure_logs_ingestion`).
 */
export const DestinationTarget = z.union([
  z.object({ firehose: FirehoseTarget }),
  z.object({ kinesis: KinesisTarget }),
  z.object({ cloudwatchLogs: CloudwatchLogsTarget }),
  z.object({ datadog: DatadogTarget }),
  z.object({ azureLogsIngestion: AzureLogsIngestionTarget }),
]);
/** Exactly one of the five target kinds (see the schema of the same name). */
export type DestinationTarget = z.infer<typeof DestinationTarget>;

/** Names of the target kinds, in TypeScript form. */
export const DESTINATION_TARGET_KINDS = [
  "firehose",
  "kinesis",
  "cloudwatchLogs",
  "datadog",
  "azureLogsIngestion",
] as const;

/** Payload format of a destination; the service knows only `json`. */
export const EventDestinationFormat = z.enum(["json"]);
/** Payload format of a destination. */
export type EventDestinationFormat = z.infer<typeof EventDestinationFormat>;

/**
 * An event destination. `metadata` ≤ 4096 **bytes**, `description` ≤ 255 **characters**, both
 * `""` when not set. Secrets inside `target` are write-only and come back as `""`.
 */
export const EventDestination = z.object({
  /** `ed_` + 27 base62 characters. */
  id: Id(ID_PREFIX.eventDestination),
  /** `{base_url}/event_destinations/<id>`. */
  uri: z.string(),
  /** RFC 3339 creation time. */
  createdAt: Timestamp,
  metadata: z.string(),
  description: z.string(),
  format: EventDestinationFormat,
  target: DestinationTarget,
});
/** An event destination (see the schema of the same name). */
export type EventDestination = z.infer<typeof EventDestination>;

/**
 * Body of `POST /event_destinations`: `target` required (exactly one kind); `format` defaults
 * to `"json"`; `metadata` ≤ 4096 **bytes**; `description` ≤ 255 **characters**.
 */
export const EventDestinationCreate = z.strictObject({
  format: EventDestinationFormat.optional(),
  target: DestinationTarget,
  description: z.string().optional(),
  metadata: z.string().optional(),
});
/** Input of `eventDestinations.create` (see the schema of the same name). */
export type EventDestinationCreate = z.infer<typeof EventDestinationCreate>;

/** Body of `PATCH /event_destinations/{id}`: partial, same rules as {@link EventDestinationCreate}. */
export const EventDestinationUpdate = EventDestinationCreate.partial();
/** Input of `eventDestinations.update` (see the schema of the same name). */
export type EventDestinationUpdate = z.infer<typeof EventDestinationUpdate>;

/** One page of `GET /event_destinations` (newest first). */
export const EventDestinationList = z.object({
  eventDestinations: z.array(EventDestination),
  uri: z.string(),
  /** Absolute URI of the next page, `null` on the last page. */
  nextPageUri: z.string().nullable(),
});
/** One page of `GET /event_destinations`. */
export type EventDestinationList = z.infer<typeof EventDestinationList>;

// ---------------------------------------------------------------------------------------------
// Errors (decisions.md § Errors)
// ---------------------------------------------------------------------------------------------

/**
 * Body of an error response (camelCase form):
 * `{ errorCode: "ERR_SERVICE_218", statusCode: 400, msg: "…", details: { operationId: "op_…" } }`.
 * Parsed leniently: every field is optional, because a 404 or a proxy's error may have any body.
 */
export const ErrorBody = z.object({
  errorCode: z.string().optional(),
  statusCode: z.number().optional(),
  msg: z.string().optional(),
  details: z.object({ operationId: z.string().optional() }).optional(),
});
/** Body of an error response. */
export type ErrorBody = z.infer<typeof ErrorBody>;

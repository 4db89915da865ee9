/**
 * Event destinations: where events are delivered (one target of five kinds). Secrets inside a
 * target are write-only: responses hold `""` in their place. Reference: docs/service-api.md
 * § Event destinations.
 *
 * @packageDocumentation
 */
import { z } from "zod";
import { Id, Timestamp } from "./common";
import { writeOnlyPaths } from "./fields";
import { maxChars } from "./eventSubscription";
import { DESCRIPTION_MAX_CHARS, ID_PREFIX, METADATA_MAX_BYTES, utf8Bytes } from "./limits";

/** A write-only secret: sent on create and update, returned as `""`. */
const secret = () =>
  z.string().meta({ writeOnly: true, "x-non-empty": true, description: 'write-only: responses hold ""' });
/** A string a request must not send empty (a response may hold it empty). */
const filled = () => z.string().meta({ "x-non-empty": true });
/** A string a response holds as `""` when it was not set. */
const optionalString = () =>
  z.string().optional().meta({ description: 'optional; responses hold "" when not set' });

/** AWS authentication by an IAM role the service assumes. */
export const AwsRole = z.object({ roleArn: filled() });
/** AWS authentication by an IAM role the service assumes. */
export type AwsRole = z.infer<typeof AwsRole>;

/** AWS authentication by an access key. `awsSecretAccessKey` is write-only. */
export const AwsCredentials = z.object({ awsAccessKeyId: filled(), awsSecretAccessKey: secret() });
/** AWS authentication by an access key. */
export type AwsCredentials = z.infer<typeof AwsCredentials>;

/** Exactly one of `{ role }` or `{ creds }`. */
export const AwsAuth = z.union([z.object({ role: AwsRole }), z.object({ creds: AwsCredentials })]);
/** Exactly one of `{ role }` or `{ creds }`. */
export type AwsAuth = z.infer<typeof AwsAuth>;

/** Amazon Data Firehose target. */
export const FirehoseTarget = z.object({ auth: AwsAuth, deliveryStreamArn: filled() });
/** Amazon Data Firehose target. */
export type FirehoseTarget = z.infer<typeof FirehoseTarget>;

/** Amazon Kinesis target. */
export const KinesisTarget = z.object({ auth: AwsAuth, streamArn: filled() });
/** Amazon Kinesis target. */
export type KinesisTarget = z.infer<typeof KinesisTarget>;

/** Amazon CloudWatch Logs target. */
export const CloudwatchLogsTarget = z.object({ auth: AwsAuth, logGroupArn: filled() });
/** Amazon CloudWatch Logs target. */
export type CloudwatchLogsTarget = z.infer<typeof CloudwatchLogsTarget>;

/** Datadog target. `apiKey` is write-only; `ddtags`, `service`, `ddsite` are optional. */
export const DatadogTarget = z.object({
  apiKey: secret(),
  ddtags: optionalString(),
  service: optionalString(),
  ddsite: optionalString(),
});
/** Datadog target. */
export type DatadogTarget = z.infer<typeof DatadogTarget>;

/** Azure Monitor Logs Ingestion target. `clientSecret` is write-only. */
export const AzureLogsIngestionTarget = z.object({
  tenantId: filled(),
  clientId: filled(),
  clientSecret: secret(),
  logsIngestionUri: filled(),
  dataCollectionRuleId: filled(),
  dataCollectionStreamName: filled(),
});
/** Azure Monitor Logs Ingestion target. */
export type AzureLogsIngestionTarget = z.infer<typeof AzureLogsIngestionTarget>;

/** The schema of each target kind, by its TypeScript name. */
export const TARGET_KINDS = {
  firehose: FirehoseTarget,
  kinesis: KinesisTarget,
  cloudwatchLogs: CloudwatchLogsTarget,
  datadog: DatadogTarget,
  azureLogsIngestion: AzureLogsIngestionTarget,
} as const;

/** Names of the target kinds, in TypeScript form (wire: `cloudwatch_logs`, `azure_logs_ingestion`). */
export const DESTINATION_TARGET_KINDS = Object.keys(TARGET_KINDS) as (keyof typeof TARGET_KINDS)[];

/** Where a destination sends events: exactly one of the kinds of {@link TARGET_KINDS}. */
export const DestinationTarget = z.union([
  z.object({ firehose: FirehoseTarget }),
  z.object({ kinesis: KinesisTarget }),
  z.object({ cloudwatchLogs: CloudwatchLogsTarget }),
  z.object({ datadog: DatadogTarget }),
  z.object({ azureLogsIngestion: AzureLogsIngestionTarget }),
]);
/** Exactly one of the five target kinds (see the schema of the same name). */
export type DestinationTarget = z.infer<typeof DestinationTarget>;

/** Paths of the write-only secrets inside each target kind (read from the schemas' `writeOnly` metadata). */
export const SECRET_PATHS: Readonly<Record<string, readonly (readonly string[])[]>> = Object.fromEntries(
  Object.entries(TARGET_KINDS).map(([kind, schema]) => [kind, writeOnlyPaths(schema)]),
);

/** Optional string fields of each target kind, which responses hold as `""` when not set. */
export const OPTIONAL_STRINGS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  Object.entries(TARGET_KINDS).map(([kind, schema]) => [
    kind,
    Object.entries(schema.shape as Record<string, z.ZodType>)
      .filter(([, v]) => v instanceof z.ZodOptional)
      .map(([k]) => k),
  ]),
);

/** Payload format of a destination; the service knows only `json`. */
export const EventDestinationFormat = z.enum(["json"]);
/** Payload format of a destination. */
export type EventDestinationFormat = z.infer<typeof EventDestinationFormat>;

/**
 * An event destination. `metadata` and `description` are `""` when not set; secrets inside
 * `target` come back as `""`.
 */
export const EventDestination = z.object({
  id: Id(ID_PREFIX.eventDestination),
  /** `{base_url}/event_destinations/<id>`. */
  uri: z.string(),
  createdAt: Timestamp,
  metadata: z.string(),
  description: z.string(),
  format: EventDestinationFormat,
  target: DestinationTarget,
});
/** An event destination (see the schema of the same name). */
export type EventDestination = z.infer<typeof EventDestination>;

/** A string of at most `max` **bytes** of UTF-8. */
function maxBytes(max: number) {
  return z
    .string()
    .refine((s) => utf8Bytes(s) <= max, { message: `at most ${max} bytes` })
    .meta({ "x-unit": "bytes", "x-max-bytes": max, description: `at most ${max} bytes of UTF-8` });
}

/**
 * Body of `POST /event_destinations`: `target` required (exactly one kind); `format` defaults
 * to `"json"`; `metadata` ≤ 4096 **bytes**; `description` ≤ 255 **characters**. Unknown fields
 * are rejected.
 */
export const EventDestinationCreate = z.strictObject({
  metadata: maxBytes(METADATA_MAX_BYTES).optional(),
  description: maxChars(DESCRIPTION_MAX_CHARS).optional(),
  format: EventDestinationFormat.optional().meta({ default: "json" }),
  target: DestinationTarget,
});
/** Input of `eventDestinations.create` (see the schema of the same name). */
export type EventDestinationCreate = z.infer<typeof EventDestinationCreate>;

/**
 * Body of `PATCH /event_destinations/{id}`: partial; a field left out keeps its value, `target`
 * is replaced whole (secrets included), `""` clears a string.
 */
export const EventDestinationUpdate = z
  .strictObject({
    /** May repeat the destination's own ID (it must then be the one in the path). */
    id: z.string().optional(),
    ...EventDestinationCreate.partial().shape,
  })
  .meta({
    "x-patch": 'fields left out keep their value; target is replaced whole; "" clears a string',
  });
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

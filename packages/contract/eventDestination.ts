/**
 * Event destinations: where events are delivered (one target of five kinds). Secrets inside a
 * target are write-only: responses hold `""` in their place. Reference: docs/service-api.md
 * § Event destinations.
 *
 * @packageDocumentation
 */
import { z } from "zod";
import { bytes, chars, exactlyOne, filled } from "./checks";
import { pageOf, resourceFields, updateBody } from "./resourceShapes";
import { writeOnlyPaths } from "./fields";
import { DESCRIPTION_MAX_CHARS, ID_PREFIX, METADATA_MAX_BYTES } from "./limits";

/** What a `PATCH` does with the fields it sends and leaves out (the update body's `x-patch`). */
const PATCH_RULES = 'fields left out keep their value; target is replaced whole; "" clears a string';

const WRITE_ONLY = { writeOnly: true, description: 'write-only: responses hold ""' } as const;
const RETURNED_BLANK = {
  "x-write-only": true,
  description: 'a write-only secret: responses always hold ""',
} as const;
/** A string a response holds as `""` when it was not set. */
const optionalString = () =>
  z.string().optional().meta({ description: 'optional; responses hold "" when not set' });

/**
 * The target kinds, built for requests or for responses: a request's objects are strict (the
 * service rejects unknown fields) and its write-only secrets must not be empty; a response's
 * objects let unknown fields through and hold each secret as `""`.
 */
function targetKinds(request: boolean) {
  const object = request ? z.strictObject : z.object;
  // OpenAPI's writeOnly means "never in a response", and the service does send the field, as
  // "": so only requests mark it writeOnly, and responses declare the one value they hold.
  const secret = () => (request ? filled().meta(WRITE_ONLY) : z.literal("").meta(RETURNED_BLANK));
  const role = object({ roleArn: filled() });
  const creds = object({ awsAccessKeyId: filled(), awsSecretAccessKey: secret() });
  const auth = exactlyOne({ role, creds }, request);
  const kinds = {
    firehose: object({ auth, deliveryStreamArn: filled() }),
    kinesis: object({ auth, streamArn: filled() }),
    cloudwatchLogs: object({ auth, logGroupArn: filled() }),
    datadog: object({
      apiKey: secret(),
      ddtags: optionalString(),
      service: optionalString(),
      ddsite: optionalString(),
    }),
    azureLogsIngestion: object({
      tenantId: filled(),
      clientId: filled(),
      clientSecret: secret(),
      logsIngestionUri: filled(),
      dataCollectionRuleId: filled(),
      dataCollectionStreamName: filled(),
    }),
  };
  return { role, creds, auth, kinds };
}

const REQUEST = targetKinds(true);

/** The schema of each target kind in a request, by its TypeScript name. */
export const TARGET_KINDS = REQUEST.kinds;

/** AWS authentication by an IAM role the service assumes. */
export const AwsRole = REQUEST.role;
/** AWS authentication by an IAM role the service assumes. */
export type AwsRole = z.infer<typeof AwsRole>;

/** AWS authentication by an access key. `awsSecretAccessKey` is write-only. */
export const AwsCredentials = REQUEST.creds;
/** AWS authentication by an access key. */
export type AwsCredentials = z.infer<typeof AwsCredentials>;

/** Exactly one of `{ role }` or `{ creds }`. */
export const AwsAuth = REQUEST.auth;
/** Exactly one of `{ role }` or `{ creds }`. */
export type AwsAuth = z.infer<typeof AwsAuth>;

/** Amazon Data Firehose target. */
export const FirehoseTarget = TARGET_KINDS.firehose;
/** Amazon Data Firehose target. */
export type FirehoseTarget = z.infer<typeof FirehoseTarget>;

/** Amazon Kinesis target. */
export const KinesisTarget = TARGET_KINDS.kinesis;
/** Amazon Kinesis target. */
export type KinesisTarget = z.infer<typeof KinesisTarget>;

/** Amazon CloudWatch Logs target. */
export const CloudwatchLogsTarget = TARGET_KINDS.cloudwatchLogs;
/** Amazon CloudWatch Logs target. */
export type CloudwatchLogsTarget = z.infer<typeof CloudwatchLogsTarget>;

/** Datadog target. `apiKey` is write-only; `ddtags`, `service`, `ddsite` are optional. */
export const DatadogTarget = TARGET_KINDS.datadog;
/** Datadog target. */
export type DatadogTarget = z.infer<typeof DatadogTarget>;

/** Azure Monitor Logs Ingestion target. `clientSecret` is write-only. */
export const AzureLogsIngestionTarget = TARGET_KINDS.azureLogsIngestion;
/** Azure Monitor Logs Ingestion target. */
export type AzureLogsIngestionTarget = z.infer<typeof AzureLogsIngestionTarget>;

/** Names of the target kinds, in TypeScript form (wire: `cloudwatch_logs`, `azure_logs_ingestion`). */
export const DESTINATION_TARGET_KINDS = Object.keys(TARGET_KINDS) as (keyof typeof TARGET_KINDS)[];

/** Where a destination sends events (in a request): exactly one of the kinds of {@link TARGET_KINDS}. */
export const DestinationTarget = exactlyOne(TARGET_KINDS);
/** Exactly one of the five target kinds (see the schema of the same name). */
export type DestinationTarget = z.infer<typeof DestinationTarget>;

/** A target as responses hold it: its write-only secrets may be `""` (they always are). */
export const DestinationTargetResponse = exactlyOne(targetKinds(false).kinds, false);

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
  ...resourceFields(ID_PREFIX.eventDestination),
  metadata: z.string(),
  description: z.string(),
  format: EventDestinationFormat,
  target: DestinationTargetResponse,
});
/** An event destination (see the schema of the same name). */
export type EventDestination = z.infer<typeof EventDestination>;

/**
 * Body of `POST /event_destinations`: `target` required (exactly one kind); `format` defaults
 * to `"json"`; `metadata` ≤ 4096 **bytes**; `description` ≤ 255 **characters**. Unknown fields
 * are rejected.
 */
export const EventDestinationCreate = z.strictObject({
  metadata: bytes(METADATA_MAX_BYTES).optional(),
  description: chars(DESCRIPTION_MAX_CHARS).optional(),
  format: EventDestinationFormat.optional().meta({ default: "json" }),
  target: DestinationTarget,
});
/** Input of `eventDestinations.create` (see the schema of the same name). */
export type EventDestinationCreate = z.infer<typeof EventDestinationCreate>;

/**
 * Body of `PATCH /event_destinations/{id}`: partial; a field left out keeps its value, `target`
 * is replaced whole (secrets included), `""` clears a string.
 */
export const EventDestinationUpdate = updateBody(EventDestinationCreate, PATCH_RULES);
/** Input of `eventDestinations.update` (see the schema of the same name). */
export type EventDestinationUpdate = z.infer<typeof EventDestinationUpdate>;

/** One page of `GET /event_destinations` (newest first). */
export const EventDestinationList = pageOf("eventDestinations", EventDestination);
/** One page of `GET /event_destinations`. */
export type EventDestinationList = z.infer<typeof EventDestinationList>;

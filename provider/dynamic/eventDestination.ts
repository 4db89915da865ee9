import * as pulumi from "@pulumi/pulumi";
import { providerSource, ServiceResource } from "./resource";

/**
 * The serialized dynamic provider of {@link EventDestination}, in the state of every destination
 * (`__provider`): calls that load the implementation by package name in the provider process
 * (provider/impl/eventDestination.ts). Configuration is read in `configure()`, never
 * captured here.
 */
const provider = providerSource("eventDestination", { update: true });

/** AWS authentication: exactly one of an IAM role or an access key. */
export type AwsAuthInput =
  | { role: pulumi.Input<{ roleArn: pulumi.Input<string> }> }
  | {
      creds: pulumi.Input<{
        awsAccessKeyId: pulumi.Input<string>;
        /** Write-only secret: kept from the program, never returned by the API. */
        awsSecretAccessKey: pulumi.Input<string>;
      }>;
    };

/**
 * Where a destination sends events: exactly one kind (docs/service-api.md § Event destinations).
 * Secrets (`awsSecretAccessKey`, `apiKey`, `clientSecret`) are write-only.
 */
export type DestinationTargetInput =
  | { firehose: pulumi.Input<{ auth: pulumi.Input<AwsAuthInput>; deliveryStreamArn: pulumi.Input<string> }> }
  | { kinesis: pulumi.Input<{ auth: pulumi.Input<AwsAuthInput>; streamArn: pulumi.Input<string> }> }
  | { cloudwatchLogs: pulumi.Input<{ auth: pulumi.Input<AwsAuthInput>; logGroupArn: pulumi.Input<string> }> }
  | {
      datadog: pulumi.Input<{
        apiKey: pulumi.Input<string>;
        ddtags?: pulumi.Input<string>;
        service?: pulumi.Input<string>;
        ddsite?: pulumi.Input<string>;
      }>;
    }
  | {
      azureLogsIngestion: pulumi.Input<{
        tenantId: pulumi.Input<string>;
        clientId: pulumi.Input<string>;
        clientSecret: pulumi.Input<string>;
        logsIngestionUri: pulumi.Input<string>;
        dataCollectionRuleId: pulumi.Input<string>;
        dataCollectionStreamName: pulumi.Input<string>;
      }>;
    };

/** Inputs of an {@link EventDestination}. Reference: docs/service-api.md § Event destinations. */
export interface EventDestinationArgs {
  /** Payload format; only `"json"` exists (the default). */
  format?: pulumi.Input<"json">;
  /** The target (one kind). Stored as a secret in the state, inputs and outputs alike. */
  target: pulumi.Input<DestinationTargetInput>;
  /** Human-readable description, at most 255 characters (code points). */
  description?: pulumi.Input<string>;
  /** Arbitrary data, at most 4096 **bytes** of UTF-8. */
  metadata?: pulumi.Input<string>;
  /**
   * ID (`ed_…`) of an existing destination to take under management instead of creating one:
   * on create it is read (an error naming the ID if it does not exist in the
   * account) and updated to these inputs with one `PATCH`, except when the target holds no
   * write-only secret and the live values already equal the inputs (then nothing is sent). A
   * target with a secret is always sent, since the API never returns secrets. Read only on
   * create (see `EventSubscriptionArgs.adoptId`); `destroy` deletes it like any other
   * destination unless the `retainOnDelete` resource option is set.
   */
  adoptId?: pulumi.Input<string>;
}

/**
 * An event destination (Firehose, Kinesis, CloudWatch Logs, Datadog or Azure Logs Ingestion).
 *
 * - create: `POST /event_destinations` (or adoption with `adoptId`);
 * - update: in place, `PATCH` with every managed field (the whole target);
 * - refresh: `GET`; write-only secrets, returned empty, are kept from the state, so there is no
 *   perpetual diff (and a secret changed outside Pulumi cannot be detected);
 * - delete: `DELETE`; fails with a conflict while a subscription outside the stack still uses it;
 *   one already gone counts as deleted.
 *
 * `target` is a secret output (`additionalSecretOutputs`), so no credential reaches the state
 * in plain text. Type token: `pulumi-nodejs:dynamic/service:EventDestination`.
 */
export class EventDestination extends ServiceResource {
  /** `"json"`. */
  declare public readonly format: pulumi.Output<"json">;
  /** The target, with write-only secrets as given by the program (a secret output). */
  declare public readonly target: pulumi.Output<Record<string, unknown>>;
  /** Description (`""` when not set). */
  declare public readonly description: pulumi.Output<string>;

  /**
   * Declares the event destination; `pulumi up` creates or updates it to match `args`.
   *
   * @param name Pulumi resource name (unique in the stack).
   * @param args Inputs, checked before anything is sent (failures name the property).
   * @param opts Resource options; `target` is always added to `additionalSecretOutputs`.
   */
  constructor(name: string, args: EventDestinationArgs, opts?: pulumi.CustomResourceOptions) {
    super(provider, "EventDestination", name, { ...args, target: pulumi.secret(args.target) }, [], {
      ...opts,
      additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "target"],
    });
  }

  /** Declares a destination that adopts the existing destination `id` (see `adoptId`). */
  public static adopt(
    name: string,
    id: string,
    args: Omit<EventDestinationArgs, "adoptId">,
    opts?: pulumi.CustomResourceOptions,
  ): EventDestination {
    return new EventDestination(name, { ...args, adoptId: id }, opts);
  }
}

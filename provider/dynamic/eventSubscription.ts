import * as pulumi from "@pulumi/pulumi";
import { providerSource, ServiceResource } from "./resource";

/**
 * The serialized dynamic provider of {@link EventSubscription}, in the state of every subscription
 * (`__provider`): calls that load the implementation by package name in the provider process
 * (provider/impl/eventSubscription.ts). Configuration is read in `configure()`, never
 * captured here.
 */
const provider = providerSource("eventSubscription", { update: true });

/**
 * Inputs of an {@link EventSubscription}. Reference: docs/service-api.md § Event subscriptions.
 */
export interface EventSubscriptionArgs {
  /** Event types that trigger the subscription: 1 to 10 `{ type }`, no duplicates, from the catalogue (e.g. `ip_policy_created.v0`). Order does not matter. */
  sources: pulumi.Input<pulumi.Input<{ type: pulumi.Input<string> }>[]>;
  /** IDs (`ed_…`) of 1 to 10 event destinations of the account. Order does not matter. */
  destinationIds: pulumi.Input<pulumi.Input<string>[]>;
  /** Human-readable description, at most 255 characters (code points). Removing it clears it. */
  description?: pulumi.Input<string>;
  /** Machine-readable data, at most 4096 characters (code points). Removing it clears it. */
  metadata?: pulumi.Input<string>;
  /**
   * ID (`esb_…`) of an existing subscription to take under management instead of creating one:
   * on create it is read (an error naming the ID if it does not exist in the
   * account of the API key) and, only if its live values differ from these inputs (lists
   * compared as sets), updated to them with one `PATCH`; no `POST` is ever sent. Read only on
   * create: changing it later changes nothing. `destroy` deletes the adopted subscription like
   * any other; use the `retainOnDelete` resource option to keep it on the service.
   */
  adoptId?: pulumi.Input<string>;
}

/**
 * An event subscription: which event types (sources) go to which event destinations.
 *
 * - create: `POST /event_subscriptions` (or adoption with `adoptId`);
 * - update: in place (same ID), `PATCH` with every managed field, so the result is exactly what
 *   the program says (a removed description or metadata is cleared);
 * - refresh: `GET`; a subscription deleted outside Pulumi leaves the stack;
 * - delete: `DELETE`; one already gone counts as deleted.
 *
 * Type token: `pulumi-nodejs:dynamic/service:EventSubscription`.
 * @throws (during `pulumi up`) the client's errors, e.g. `AuthenticationError` for a bad key.
 */
export class EventSubscription extends ServiceResource {
  /** Event types with their URIs: `[{ type, uri }]`, uri = `{base_url}/event_subscriptions/<id>/sources/<type>`. */
  declare public readonly sources: pulumi.Output<{ type: string; uri: string }[]>;
  /** IDs of the destinations, in the service's order. */
  declare public readonly destinationIds: pulumi.Output<string[]>;
  /** Destinations as references: `[{ id, uri }]`. */
  declare public readonly destinations: pulumi.Output<{ id: string; uri: string }[]>;
  /** Description (`""` when not set). */
  declare public readonly description: pulumi.Output<string>;

  /**
   * Declares the event subscription; `pulumi up` creates or updates it to match `args`.
   *
   * @param name Pulumi resource name (unique in the stack).
   * @param args Inputs, checked before anything is sent (failures name the property).
   * @param opts Resource options.
   */
  constructor(name: string, args: EventSubscriptionArgs, opts?: pulumi.CustomResourceOptions) {
    super(provider, "EventSubscription", name, args, ["destinations"], opts);
  }

  /**
   * Declares a subscription that adopts the existing subscription `id` (see
   * {@link EventSubscriptionArgs.adoptId}).
   */
  public static adopt(
    name: string,
    id: string,
    args: Omit<EventSubscriptionArgs, "adoptId">,
    opts?: pulumi.CustomResourceOptions,
  ): EventSubscription {
    return new EventSubscription(name, { ...args, adoptId: id }, opts);
  }
}

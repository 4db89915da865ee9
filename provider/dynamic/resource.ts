import * as pulumi from "@pulumi/pulumi";
import { RESOURCE_OPTIONS_INPUT, type ForwardedOptions } from "../impl/resourceOptions";

/**
 * The base of this package's resources ({@link EventSubscription}, {@link EventDestination},
 * {@link AbuseReport}): dynamic resources of the module `service` (type token
 * `pulumi-nodejs:dynamic/service:<type>`) with the outputs the service gives each of them.
 */
export abstract class ServiceResource extends pulumi.dynamic.Resource {
  /** Metadata (`""` when not set). */
  declare public readonly metadata: pulumi.Output<string>;
  /** Absolute URI: `{base_url}/<collection>/<id>`, e.g. `{base_url}/event_destinations/ed_…`. */
  declare public readonly uri: pulumi.Output<string>;
  /** Creation time, RFC 3339 UTC with whole seconds. */
  declare public readonly createdAt: pulumi.Output<string>;

  /**
   * Registers the resource with its dynamic provider.
   * @param provider - the resource's dynamic provider.
   * @param type - the last part of the type token, e.g. `EventDestination`.
   * @param name - Pulumi resource name (unique in the stack).
   * @param inputs - the resource's inputs.
   * @param outputs - the outputs that are not inputs, besides `uri` and `createdAt` (which every
   *   resource has): registered empty, for the provider to fill in.
   * @param opts - resource options. Those the dynamic provider host does not pass on to the
   *   provider (`replaceOnChanges`, `customTimeouts`) travel as the input `__resourceOptions`
   *   (provider/impl/resourceOptions.ts); a resource without them gets no such input.
   */
  protected constructor(
    provider: pulumi.dynamic.ResourceProvider,
    type: string,
    name: string,
    inputs: pulumi.Inputs,
    outputs: string[],
    opts?: pulumi.CustomResourceOptions,
  ) {
    const empty = Object.fromEntries([...outputs, "uri", "createdAt"].map((k) => [k, undefined]));
    const forwarded: ForwardedOptions = {
      ...(opts?.replaceOnChanges?.length ? { replaceOnChanges: [...opts.replaceOnChanges] } : {}),
      ...(opts?.customTimeouts ? { customTimeouts: { ...opts.customTimeouts } } : {}),
    };
    const hidden = Object.keys(forwarded).length > 0 ? { [RESOURCE_OPTIONS_INPUT]: forwarded } : {};
    super(provider, name, { ...inputs, ...hidden, ...empty }, opts, "service", type);
  }
}

import * as pulumi from "@pulumi/pulumi";
import { RESOURCE_OPTIONS_INPUT, type ForwardedOptions } from "../impl/resourceOptions";

/** The implementation modules of the dynamic providers, `pulumi-service/provider/impl/<name>`. */
export type ImplModule = "eventSubscription" | "eventDestination" | "abuseReport";

/**
 * The serialized dynamic provider (`__provider`) of the resources implemented by
 * `pulumi-service/provider/impl/<impl>`: CommonJS source whose `handler()` returns the provider,
 * as Pulumi's dynamic-provider host loads it (require-from-string, then `handler()`). Its
 * `configure` calls provider/impl/runtime's; `check`, `diff`, `create`, `read`, `update` (only
 * when `update` is true) and `delete` call the module's functions of those names (`remove` for
 * `delete`), the module loaded by package name at the first call in the provider process, as the
 * providers serialized by earlier versions do (so the same module paths stay the public
 * interface, docs/development.md § Layout).
 *
 * Written out here rather than made by Pulumi's closure serialization of a provider object
 * (`pulumi.dynamic.Resource`), which wraps each method in a function of its own: about 350
 * bytes instead of 2,200 in each resource's inputs and outputs, so in every message between the
 * engine and the provider process and in the state (bench/state.ts), and no closure serializer
 * (with the TypeScript parser it loads) in the program.
 */
export function providerSource(impl: ImplModule, opts: { update: boolean }): string {
  const methods = [
    `configure:r=>require("pulumi-service/provider/impl/runtime").configure(r)`,
    `check:(o,n)=>m().check(o,n)`,
    `diff:(i,o,n)=>m().diff(i,o,n)`,
    `create:n=>m().create(n)`,
    `read:(i,p)=>m().read(i,p)`,
    ...(opts.update ? [`update:(i,o,n)=>m().update(i,o,n)`] : []),
    `delete:(i,p)=>m().remove(i,p)`,
  ];
  return `exports.handler=()=>{const m=()=>require("pulumi-service/provider/impl/${impl}");return{${methods.join(",")}}};`;
}

/**
 * The base of this package's resources ({@link EventSubscription}, {@link EventDestination},
 * {@link AbuseReport}): dynamic resources of the module `service` (type token
 * `pulumi-nodejs:dynamic/service:<type>`, served by Pulumi's dynamic-provider host like any
 * `pulumi.dynamic.Resource`) with the outputs the service gives each of them.
 */
export abstract class ServiceResource extends pulumi.CustomResource {
  /** Metadata (`""` when not set). */
  declare public readonly metadata: pulumi.Output<string>;
  /** Absolute URI: `{base_url}/<collection>/<id>`, e.g. `{base_url}/event_destinations/ed_…`. */
  declare public readonly uri: pulumi.Output<string>;
  /** Creation time, RFC 3339 UTC with whole seconds. */
  declare public readonly createdAt: pulumi.Output<string>;

  /**
   * Registers the resource with its dynamic provider.
   * @param provider - the resource's serialized dynamic provider ({@link providerSource}).
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
    provider: string,
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
    super(
      `pulumi-nodejs:dynamic/service:${type}`,
      name,
      { ...inputs, ...hidden, ...empty, __provider: provider },
      opts,
    );
  }
}

/**
 * Lookups for programs on the dynamic door: the functions the native provider offers as invokes
 * (`service:index:getEventSubscription`…, provider/native/invokes.ts), run by the same
 * implementation (provider/impl/reads/lookups.ts) in the program's own process.
 *
 * **Why `Output`-returning functions, not plain async functions over the client.** A lookup
 * is used as a resource's outputs are: its values feed other resources' inputs and stack
 * outputs. As an `Output`:
 * - an event destination's `target` stays secret (the whole result is a secret, as the native
 *   SDK's `get…Output` makes it), so it never reaches the state or the console in plain text; a
 *   plain `Promise` would carry it unmarked;
 * - the ID may be another resource's output (`{ id: destination.id }`): the lookup waits for it,
 *   and during a preview of a resource not created yet the result is unknown instead of failing;
 * - `dependsOn` orders a lookup after resources the program creates (a list that should hold
 *   them).
 * They are named `get…Output` and return what `pulumi-service/native`'s functions of the same
 * names return, so that moving a program between the doors changes only its import path. The
 * Promise-returning forms (`getEventSubscription`…) are not offered: they would drop the
 * secret.
 *
 * **Account.** The stack's `service:*` settings (`service:apiKey`, `service:baseUrl`, …), each
 * falling back to its environment variable, as the dynamic providers read them
 * (provider/impl/runtime.ts, docs/resources.md § Configuration).
 *
 * **Errors.** A lookup that fails (no such resource: the message names the ID, unless the ID is
 * a secret; not an ID of the kind; no API key; the service's errors) rejects the returned
 * `Output` with a `pulumi.RunError` holding the failure's message, which fails the program as any
 * failed `Output` does; Pulumi shows a `RunError`'s message without a stack trace. Its stack is
 * its first line only: Pulumi also `util.inspect`s every unhandled error (for its trace span), and
 * Node.js 20.20's `util.inspect` runs for minutes through gigabytes of memory over the frame of
 * `@pulumi/pulumi`'s `apply` in which a lookup runs (`…/node_modules/@pulumi/output.ts:…`, a path
 * its source map gives).
 *
 * The implementation and the client are loaded on the first call, so a program that imports
 * the package without calling a lookup loads neither (docs/performance.md § Fixed cost).
 *
 * @packageDocumentation
 */
import * as pulumi from "@pulumi/pulumi";
import type {
  AbuseReportHostname,
  AbuseReportStatus,
  DestinationTarget,
  EventDestinationFormat,
  EventSource,
} from "service-contract";
import type * as Lookups from "../impl/reads/lookups";
import type * as Runtime from "../impl/runtime";

/**
 * An event subscription found by a lookup: its ID and the outputs of an `EventSubscription`
 * (test/provider/dynamic/functions.test.ts checks that these are exactly the shared lookup's).
 */
export interface GetEventSubscriptionResult {
  /** ID (`esb_…`). */
  id: string;
  /** Event types with their URIs: `[{ type, uri }]`, uri = `{base_url}/event_subscriptions/<id>/sources/<type>`. */
  sources: EventSource[];
  /** IDs of the destinations, in the service's order. */
  destinationIds: string[];
  /** Destinations as references: `[{ id, uri }]`. */
  destinations: { id: string; uri: string }[];
  /** Description (`""` when not set). */
  description: string;
  /** Metadata (`""` when not set). */
  metadata: string;
  /** Absolute URI: `{base_url}/event_subscriptions/<id>`. */
  uri: string;
  /** Creation time, RFC 3339 UTC with whole seconds. */
  createdAt: string;
}

/**
 * An event destination found by a lookup: its ID and the outputs of an `EventDestination`, except
 * that the write-only credentials of `target`, which the API never returns, are `""`.
 */
export interface GetEventDestinationResult {
  /** ID (`ed_…`). */
  id: string;
  /** Payload format: `"json"`. */
  format: EventDestinationFormat;
  /** Where events are sent: one kind, its optional strings `""` when not set, its credentials `""`. */
  target: DestinationTarget;
  /** Description (`""` when not set). */
  description: string;
  /** Metadata (`""` when not set). */
  metadata: string;
  /** Absolute URI: `{base_url}/event_destinations/<id>`. */
  uri: string;
  /** Creation time, RFC 3339 UTC with whole seconds. */
  createdAt: string;
}

/** An abuse report found by a lookup: its ID and the outputs of an `AbuseReport`, its review as of now. */
export interface GetAbuseReportResult {
  /** ID (`abrp_…`). */
  id: string;
  /** The reported URLs, in the order they were filed. */
  urls: string[];
  /** Metadata (`""` when not set). */
  metadata: string;
  /** The review's status (`PENDING`, …). */
  status: AbuseReportStatus;
  /** One entry per distinct hostname of `urls`, with its status. */
  hostnames: AbuseReportHostname[];
  /** Absolute URI: `{base_url}/abuse_reports/<id>`. */
  uri: string;
  /** Creation time, RFC 3339 UTC with whole seconds. */
  createdAt: string;
}

/** Every event subscription of the account, newest first (all pages). */
export interface GetEventSubscriptionsResult {
  /** The subscriptions, each as {@link getEventSubscriptionOutput} returns it. */
  items: GetEventSubscriptionResult[];
}

/** Every event destination of the account, newest first (all pages). */
export interface GetEventDestinationsResult {
  /** The destinations, each as {@link getEventDestinationOutput} returns it. */
  items: GetEventDestinationResult[];
}

/** The argument of a lookup by ID. */
export interface GetByIdArgs {
  /** ID of the resource to read (`esb_…`, `ed_…`, `abrp_…` by kind); may be another resource's output. */
  id: pulumi.Input<string>;
}

/** Options of a lookup. */
export interface LookupOptions {
  /**
   * Resources the lookup waits for (created or updated first); while one's ID is unknown (a
   * preview of its creation), the result is unknown.
   */
  dependsOn?: pulumi.Resource | pulumi.Resource[];
}

/** The shared lookups, with the runtime configured from the stack's `service:*` settings first. */
async function lookups(): Promise<typeof Lookups.LOOKUPS> {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const runtime = require("../impl/runtime") as typeof Runtime;
  await runtime.configure({ config: { get: (key) => pulumi.runtime.getConfig(key) } });
  return (require("../impl/reads/lookups") as typeof Lookups).LOOKUPS;
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/**
 * `run()`'s value; its failure as a `pulumi.RunError` with the same message and a stack of that
 * line only (see the module comment).
 */
async function failingCleanly<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const failure = new pulumi.RunError(err instanceof Error ? err.message : String(err));
    failure.stack = `${failure.name}: ${failure.message}`;
    throw failure;
  }
}

/** What a lookup waits for: the IDs of `dependsOn`'s custom resources, the URNs of the others. */
function waitFor(opts: LookupOptions | undefined): pulumi.Output<unknown>[] {
  const deps = opts?.dependsOn === undefined ? [] : [opts.dependsOn].flat();
  return deps.map((r) => (pulumi.CustomResource.isInstance(r) ? r.id : r.urn));
}

/** A lookup by ID as an `Output`: unknown while the ID or a dependency is, secret when the ID is. */
function byId<T>(
  args: GetByIdArgs,
  opts: LookupOptions | undefined,
  get: (all: typeof Lookups.LOOKUPS, id: string, shown: string | undefined) => Promise<T>,
): pulumi.Output<T> {
  const id = pulumi.output(args.id);
  const secretId = pulumi.isSecret(id);
  return pulumi
    .all([id, secretId, ...waitFor(opts)])
    .apply(([value, secret]) =>
      failingCleanly(async () =>
        get(await lookups(), value as string, secret ? "(whose ID is a secret)" : undefined),
      ),
    ) as pulumi.Output<T>;
}

/** A list as an `Output`: unknown while a dependency is. */
function listAll<T>(
  opts: LookupOptions | undefined,
  list: (all: typeof Lookups.LOOKUPS) => Promise<T>,
): pulumi.Output<T> {
  return pulumi
    .all(waitFor(opts))
    .apply(() => failingCleanly(async () => list(await lookups()))) as pulumi.Output<T>;
}

/**
 * Reads the event subscription `args.id` (`esb_…`) of the account.
 * @returns an `Output` of {@link GetEventSubscriptionResult}.
 * @throws (through the `Output`, as a `pulumi.RunError` with the message) when the account has
 *   no such subscription or it is not a subscription's ID (the message names the ID, unless it is
 *   a secret); the client's other errors (authentication, connection…).
 */
export function getEventSubscriptionOutput(
  args: GetByIdArgs,
  opts?: LookupOptions,
): pulumi.Output<GetEventSubscriptionResult> {
  return byId<GetEventSubscriptionResult>(args, opts, (all, id, shown) =>
    all.eventSubscription.get(id, shown),
  );
}

/**
 * Reads the event destination `args.id` (`ed_…`) of the account. The result is a secret (its
 * `target` is).
 * @returns a secret `Output` of {@link GetEventDestinationResult}.
 * @throws (through the `Output`, as a `pulumi.RunError` with the message) when the account has
 *   no such destination or it is not a destination's ID (the message names the ID, unless it is
 *   a secret); the client's other errors (authentication, connection…).
 */
export function getEventDestinationOutput(
  args: GetByIdArgs,
  opts?: LookupOptions,
): pulumi.Output<GetEventDestinationResult> {
  return pulumi.secret(
    byId<GetEventDestinationResult>(args, opts, (all, id, shown) => all.eventDestination.get(id, shown)),
  );
}

/**
 * Reads the abuse report `args.id` (`abrp_…`) of the account: its review as of now.
 * @returns an `Output` of {@link GetAbuseReportResult}.
 * @throws (through the `Output`, as a `pulumi.RunError` with the message) when the account has
 *   no such report or it is not a report's ID (the message names the ID, unless it is a secret),
 *   when the account is not authorized for abuse reports, and the client's other errors.
 */
export function getAbuseReportOutput(
  args: GetByIdArgs,
  opts?: LookupOptions,
): pulumi.Output<GetAbuseReportResult> {
  return byId<GetAbuseReportResult>(args, opts, (all, id, shown) => all.abuseReport.get(id, shown));
}

/**
 * Lists every event subscription of the account (all pages, newest first).
 * @returns an `Output` of {@link GetEventSubscriptionsResult}.
 * @throws (through the `Output`, as a `pulumi.RunError` with the message) the client's errors.
 */
export function getEventSubscriptionsOutput(
  opts?: LookupOptions,
): pulumi.Output<GetEventSubscriptionsResult> {
  return listAll<GetEventSubscriptionsResult>(opts, async (all) => ({
    items: await all.eventSubscription.list(),
  }));
}

/**
 * Lists every event destination of the account (all pages, newest first). The result is a
 * secret (each `target` is).
 * @returns a secret `Output` of {@link GetEventDestinationsResult}.
 * @throws (through the `Output`, as a `pulumi.RunError` with the message) the client's errors.
 */
export function getEventDestinationsOutput(opts?: LookupOptions): pulumi.Output<GetEventDestinationsResult> {
  return pulumi.secret(
    listAll<GetEventDestinationsResult>(opts, async (all) => ({ items: await all.eventDestination.list() })),
  );
}

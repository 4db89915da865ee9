/**
 * Lookups, the one implementation of the functions both doors offer (the native plugin's
 * invokes, provider/native/invokes.ts, and the dynamic door's `get…Output` functions,
 * provider/dynamic/functions.ts): one resource read by ID, or every resource of a kind listed
 * (all pages), each returned as `id` and the outputs the resource of that kind has, made by the
 * kind's own `toOutputs` (so a lookup and a resource of the same object hold the same values).
 * What the service never returns (write-only credentials in a destination's `target`) reads back
 * as `""`: a lookup has no program's value to keep.
 *
 * The client is this process's ({@link getClient} in runtime.ts): the provider process's in the
 * native plugin, configured by the engine's `Configure`; in a program, the one the dynamic door
 * configures from the stack's `service:*` settings.
 *
 * @packageDocumentation
 */
import { RESOURCES, type ResourceDescriptor } from "service-contract";
import { ValidationError } from "../../../client/errors";
import * as abuseReport from "../abuseReport";
import * as eventDestination from "../eventDestination";
import * as eventSubscription from "../eventSubscription";
import { getClient, isNotFound } from "../process/client";

/** A resource found by a lookup: its ID and the outputs of the resource of its kind. */
export type Found<Outputs> = Outputs & { id: string };

/** The lookups of one kind of resource. */
export interface Lookup<Outputs> {
  /** The contract's descriptor of the kind (names and ID prefix, for messages). */
  descriptor: ResourceDescriptor;
  /**
   * The resource `id` of the account of this process's API key.
   * @param shown - how messages name the ID (default: the ID quoted); a caller whose ID is a
   *   secret passes a phrase instead, so that no error shows it.
   * @throws Error naming the ID (as `shown`) when the account has no such resource (HTTP 404,
   *   which is also what another account's ID answers), or when it is not an ID of the kind.
   * @throws any other client error (authentication, permission, rate limit, connection) as is,
   *   and runtime.ts's configuration errors (no API key or base URL).
   */
  get(id: string, shown?: string): Promise<Found<Outputs>>;
  /**
   * Every resource of the kind in the account, newest first, all pages read (absent for a kind
   * the service does not list: abuse reports).
   * @throws any client error, as is.
   */
  list?(): Promise<Found<Outputs>[]>;
}

/**
 * Reads one resource for {@link Lookup.get}, turning "not found" and "not an ID of the kind"
 * into messages that name the ID and the account.
 */
async function readOne<T extends { id: string }, Outputs>(
  descriptor: ResourceDescriptor,
  id: string,
  shown: string,
  get: (id: string) => Promise<T>,
  toOutputs: (live: T) => Outputs,
): Promise<Found<Outputs>> {
  const { names, idPrefix } = descriptor;
  let live: T;
  try {
    live = await get(id);
  } catch (err) {
    if (isNotFound(err))
      throw new Error(
        `${names.singular} ${shown} does not exist in the account of this API key (deleted, mistyped, or owned by another account)`,
      );
    if (err instanceof ValidationError)
      throw new Error(`id: ${shown} is not ${names.article} ID (${idPrefix}…)`);
    throw err;
  }
  return { id: live.id, ...toOutputs(live) };
}

/** Every item of a listing, mapped to outputs, for {@link Lookup.list}. */
async function readAll<T extends { id: string }, Outputs>(
  list: () => AsyncIterable<T>,
  toOutputs: (live: T) => Outputs,
): Promise<Found<Outputs>[]> {
  const found: Found<Outputs>[] = [];
  for await (const live of list()) found.push({ id: live.id, ...toOutputs(live) });
  return found;
}

const quoted = (id: string) => JSON.stringify(id);

/** What a kind's lookups read: the client's collection of the kind (`client.eventSubscriptions`…). */
interface Readable<T> {
  get(id: string): Promise<T>;
}

/** A collection that is also listed (all kinds but abuse reports). */
interface Listable<T> extends Readable<T> {
  list(): AsyncIterable<T>;
}

/**
 * The {@link Lookup} of a kind read by ID only: `get` reads `collection().get(id)`, made into
 * outputs by `toOutputs`. `collection` is called at each lookup, so that it reaches the client
 * configured by then ({@link getClient}).
 */
function readable<T extends { id: string }, Outputs>(
  descriptor: ResourceDescriptor,
  collection: () => Readable<T>,
  toOutputs: (live: T) => Outputs,
) {
  return {
    descriptor,
    get: (id: string, shown = quoted(id)) =>
      readOne(descriptor, id, shown, (i) => collection().get(i), toOutputs),
  };
}

/** The {@link Lookup} of a listed kind: {@link readable}'s `get`, and `list` of every page of `collection().list()`. */
function listable<T extends { id: string }, Outputs>(
  descriptor: ResourceDescriptor,
  collection: () => Listable<T>,
  toOutputs: (live: T) => Outputs,
) {
  return {
    ...readable(descriptor, collection, toOutputs),
    list: () => readAll(() => collection().list(), toOutputs),
  };
}

/** The lookups of each kind, by the descriptor's camelCase name. */
export const LOOKUPS = {
  eventSubscription: listable(
    RESOURCES.eventSubscription,
    () => getClient().eventSubscriptions,
    eventSubscription.toOutputs,
  ) satisfies Lookup<eventSubscription.SubscriptionOutputs>,
  // No program's target to keep secrets from: write-only credentials read back as "".
  eventDestination: listable(
    RESOURCES.eventDestination,
    () => getClient().eventDestinations,
    (live) => eventDestination.toOutputs(live, undefined),
  ) satisfies Lookup<eventDestination.DestinationOutputs>,
  abuseReport: readable(
    RESOURCES.abuseReport,
    () => getClient().abuseReports,
    abuseReport.toOutputs,
  ) satisfies Lookup<abuseReport.ReportOutputs>,
};

/** The camelCase name of a kind that has lookups: `eventSubscription`, `eventDestination`, `abuseReport`. */
export type LookupKind = keyof typeof LOOKUPS;

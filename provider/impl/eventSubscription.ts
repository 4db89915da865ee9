/**
 * Implementation of the `EventSubscription` dynamic provider, loaded by package name inside the
 * provider methods (see provider/dynamic/eventSubscription.ts). Reference: docs/service-api.md § Event subscriptions.
 *
 * @packageDocumentation
 */
import { EventSubscriptionCreate, RESOURCES, writableFields, type WritableField } from "service-contract";
import type { EventSubscription } from "../../client";
import { checkEventSubscriptionInputs } from "./inputChecks";
import { getClient } from "./process/client";
import { sameList, sameSet } from "./compare";
import { collectionCalls, listedOperations, withoutBlanks, type ListedKind } from "./listedKind";

/** Inputs as the provider receives them (after `check`): the contract's create body and `adoptId`. */
export type SubscriptionInputs = EventSubscriptionCreate & { adoptId?: string };

/** Outputs (the state) of an `EventSubscription`: the subscription as the API returns it, without `id`, and `destinationIds`. */
export type SubscriptionOutputs = Omit<EventSubscription, "id"> & { destinationIds: string[] };

type Json = Record<string, unknown>;

/**
 * The managed fields of the contract's create body that the API returns as they were sent
 * (`description`, `metadata`, …), with the value a left-out one has: all but `sources` (returned
 * with URIs) and `destinationIds` (returned as `destinations`).
 */
const PLAIN = writableFields(EventSubscriptionCreate).filter(
  (f) => f.name !== "sources" && f.name !== "destinationIds",
);

/** `field` of `value`, or the value the API holds when it is left out. */
const plain = (value: object, field: WritableField): unknown => (value as Json)[field.name] ?? field.default;

/** The properties `diff` compares, each with "equal?" on old outputs and new inputs. */
const MANAGED: Record<string, (olds: SubscriptionOutputs, news: SubscriptionInputs) => boolean> = {
  sources: (o, n) =>
    sameSet(
      (o.sources ?? []).map((s) => s.type),
      (n.sources ?? []).map((s) => s.type),
    ),
  destinationIds: (o, n) => sameSet(o.destinationIds ?? [], n.destinationIds ?? []),
  ...Object.fromEntries(
    PLAIN.map((f) => [
      f.name,
      (o: SubscriptionOutputs, n: SubscriptionInputs) => plain(o, f) === plain(n, f),
    ]),
  ),
};

/** Maps the API's subscription to the resource's outputs. */
export function toOutputs(sub: EventSubscription): SubscriptionOutputs {
  const { id: _id, ...outs } = sub;
  return {
    ...outs,
    sources: sub.sources.map((s) => ({ type: s.type, uri: s.uri })),
    destinationIds: sub.destinations.map((d) => d.id),
    destinations: sub.destinations.map((d) => ({ id: d.id, uri: d.uri })),
  };
}

/** The inputs that describe `out` exactly (returned by `read`, so refresh shows no diff). */
export function toInputs(out: SubscriptionOutputs): SubscriptionInputs {
  const inputs: Json = {
    sources: out.sources.map((s) => ({ type: s.type })),
    destinationIds: [...out.destinationIds],
  };
  for (const f of PLAIN)
    if (plain(out, f) !== f.default && plain(out, f) !== "") inputs[f.name] = plain(out, f);
  return inputs as SubscriptionInputs;
}

/** The body of a create: the fields given, without those left out or `""`. */
function createBody(news: SubscriptionInputs): EventSubscriptionCreate {
  return withoutBlanks(body(news));
}

/** Every managed field (defaults for those left out): the body of an update or an adoption. */
function body(news: SubscriptionInputs): EventSubscriptionCreate {
  return {
    sources: news.sources.map((s) => ({ type: s.type })),
    destinationIds: [...news.destinationIds],
    ...Object.fromEntries(PLAIN.map((f) => [f.name, plain(news, f)])),
  };
}

/**
 * True when the live subscription has exactly the values a create with these inputs sends:
 * sources and destinations in the same order, and every other field (its default when absent).
 * Used to find the subscription an ambiguous create made and by recovery after an
 * interrupted deployment.
 */
export function matchesInputs(live: EventSubscription, news: SubscriptionInputs): boolean {
  return (
    sameList(
      live.sources.map((s) => s.type),
      news.sources.map((s) => s.type),
    ) &&
    sameList(
      live.destinations.map((d) => d.id),
      news.destinationIds,
    ) &&
    PLAIN.every((f) => plain(live, f) === plain(news, f))
  );
}

/**
 * The values {@link matchesInputs} compares, as one JSON string: two creates with the same key
 * match the same live subscriptions.
 */
export function matchKey(news: SubscriptionInputs): string {
  return JSON.stringify([
    news.sources.map((s) => s.type),
    news.destinationIds,
    PLAIN.map((f) => plain(news, f)),
  ]);
}

/**
 * Subscriptions for the steps the listed kinds share (listedKind.ts): the lookups of pending
 * creates (pendingCreate.ts), adoption, read, update and delete.
 */
const KIND: ListedKind<EventSubscription, SubscriptionInputs, SubscriptionOutputs> = {
  ...collectionCalls(RESOURCES.eventSubscription, () => getClient().eventSubscriptions),
  matches: (live, sent) => matchesInputs(live, sent as SubscriptionInputs),
  candidates: "subscription",
  createRequest: (news) => createBody(news),
  matchKey,
  managed: MANAGED,
  checkInputs: (news) => checkEventSubscriptionInputs(news as unknown as Record<string, unknown>),
  update: (id, news) => getClient().eventSubscriptions.update(id, body(news)),
  outputs: (live) => toOutputs(live),
  // Lists compared as sets, as `diff` does.
  adoptedAsIs: (live, news) => Object.keys(MANAGED).every((k) => MANAGED[k](live, news)),
  sentAsIs: (sent, news) => matchKey(sent) === matchKey(news),
};

/** The operations below, as every listed kind has them (listedKind.ts). */
const OPERATIONS = listedOperations(KIND, toInputs);

/**
 * `check`: validates with the client's rules; unknown values are not failures. A placeholder ID
 * (a destination whose create timed out, pendingCreate.ts) in `destinationIds` or `adoptId` is
 * one, as any value that is not an ID of the kind.
 */
export const check = OPERATIONS.check;

/**
 * `diff`: order of `sources` and `destinationIds` does not matter; every change is an update in
 * place unless `replaceOnChanges` names it; `adoptId` is only read on create, so changing it
 * later changes nothing. A placeholder of a create that timed out is replaced (pendingCreate.ts).
 */
export const diff = OPERATIONS.diff;

/**
 * `create`: creates the subscription, or, with `adoptId`, takes an existing one under
 * management: reads it (an error naming the ID if it does not exist in this
 * account) and, only when its live values differ from the program's (lists compared as sets,
 * like `diff`), updates it with one `PATCH` of every managed field. An adopted subscription that
 * already matches the program gets no write at all.
 *
 * With `SERVICE_ADOPT_FROM` set (recovery after an interrupted deployment, see
 * `adoptionCandidates` in runtime.ts), a subscription it lists with exactly these values, held by
 * no other resource of the deployment, is adopted instead of created.
 *
 * The replacement of a placeholder (a create that timed out, see pendingCreate.ts) first takes
 * the subscription that create made, when the service holds it, and sends the program's values
 * when they differ from those sent.
 *
 * @param timeoutMs - the create timeout in **milliseconds** (the native door's
 *   `customTimeouts.create`); the dynamic door's comes with the inputs (see timeouts.ts).
 * @throws PendingCreateError (pendingCreate.ts) when the timeout passes after the request may
 *   have reached the service: the engine keeps a placeholder that the next `up` resolves.
 */
export const create = OPERATIONS.create;

/**
 * `read` (refresh): the live subscription; a 404 to the key that made it removes it from the
 * state (to another key, an error: keyStamp.ts). A placeholder (see pendingCreate.ts) is kept as
 * it is, with no request.
 */
export const read = OPERATIONS.read;

/**
 * `update`: sends every managed field, so the result is exactly what the program says.
 * @param timeoutMs - the update timeout in **milliseconds** (see {@link create}).
 */
export const update = OPERATIONS.update;

/**
 * `delete`: deletes the subscription; one already gone (404 to the service and key that made it)
 * counts as deleted. A placeholder's delete is `removePending`'s (pendingCreate.ts): nothing
 * after its replacement, else the lookup.
 * @param props - the state's outputs (the dynamic door's delete timeout travels in them).
 * @param timeoutMs - the delete timeout in **milliseconds** (see {@link create}).
 */
export const remove = OPERATIONS.remove;

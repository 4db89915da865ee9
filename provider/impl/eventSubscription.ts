/**
 * Implementation of the `EventSubscription` dynamic provider, loaded by package name inside the
 * provider methods (see provider/dynamic/eventSubscription.ts). Reference: docs/service-api.md § Event subscriptions.
 *
 * @packageDocumentation
 */
import type * as pulumi from "@pulumi/pulumi";
import { EventSubscriptionCreate, RESOURCES, writableFields, type WritableField } from "service-contract";
import type { EventSubscription } from "../../client";
import { checkEventSubscriptionInputs } from "./inputChecks";
import { adoptionCandidates, deleteUnlessGone, getClient, getUnlessGone, stamped, warn } from "./runtime";
import { changedProperties, sameList, sameSet } from "./compare";
import { adopting, readForAdoption } from "./adopt";
import { claimId, createOnce } from "./ambiguous";
import { carryOptions, diffResult, type ServiceDiffResult } from "./resourceOptions";
import { timed } from "./timeouts";
import {
  adoptPending,
  notPlaceholder,
  pendingDiff,
  readPending,
  removePending,
  timedCreate,
  type PendingKind,
  type PendingReplacement,
} from "./pendingCreate";

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
 * `check`: validates with the client's rules; unknown values are not failures. A placeholder ID
 * (a destination whose create timed out, pendingCreate.ts) in `destinationIds` or `adoptId` is
 * one, as any value that is not an ID of the kind.
 */
export async function check(_olds: unknown, news: SubscriptionInputs): Promise<pulumi.dynamic.CheckResult> {
  const failures = checkEventSubscriptionInputs(news as unknown as Record<string, unknown>);
  return { inputs: news, failures };
}

/**
 * `diff`: order of `sources` and `destinationIds` does not matter; every change is an update in
 * place unless `replaceOnChanges` names it; `adoptId` is only read on create, so changing it
 * later changes nothing. A placeholder of a create that timed out is replaced (pendingCreate.ts).
 */
export async function diff(
  id: string,
  olds: SubscriptionOutputs,
  news: SubscriptionInputs,
): Promise<ServiceDiffResult> {
  const pending = pendingDiff(id, olds as unknown as Json, news);
  if (pending) return pending;
  claimId(id);
  return diffResult(changedProperties(MANAGED, olds, news), news);
}

/** Subscriptions for the lookups of pending creates (pendingCreate.ts). */
const PENDING: PendingKind<EventSubscription> = {
  what: RESOURCES.eventSubscription.names.singular,
  list: () => getClient().eventSubscriptions.list(),
  matches: (live, sent) => matchesInputs(live, sent as SubscriptionInputs),
};

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
export async function create(
  news: SubscriptionInputs,
  timeoutMs?: number,
): Promise<pulumi.dynamic.CreateResult> {
  const what = RESOURCES.eventSubscription.names.singular;
  return timedCreate(what, news as unknown as Json, timeoutMs, (pending, sending) =>
    createSubscription(news, pending, sending),
  );
}

async function createSubscription(
  news: SubscriptionInputs,
  pending: PendingReplacement | undefined,
  sending: () => void = () => {},
): Promise<pulumi.dynamic.CreateResult> {
  const client = getClient();
  const adoptId = news.adoptId;
  if (adoptId) {
    return adopting(RESOURCES.eventSubscription, adoptId, async () => {
      const live = toOutputs(
        await readForAdoption(RESOURCES.eventSubscription, adoptId, (id) =>
          client.eventSubscriptions.get(id),
        ),
      );
      if (Object.keys(MANAGED).every((k) => MANAGED[k](live, news))) {
        return { id: adoptId, outs: stamped(live) };
      }
      const sub = await client.eventSubscriptions.update(adoptId, body(news));
      return { id: sub.id, outs: stamped(toOutputs(sub)) };
    });
  }
  // What a create that timed out made, taken rather than made again (see pendingCreate.ts).
  const made = pending && (await adoptPending(PENDING, pending));
  if (made) {
    const sent = pending.sent as SubscriptionInputs;
    const same = matchKey(sent) === matchKey(news);
    const sub = same ? made : await client.eventSubscriptions.update(made.id, body(news));
    return { id: sub.id, outs: stamped(toOutputs(sub)) };
  }
  // One Idempotency-Key per logical create; an answer lost on the way back is resolved without
  // a duplicate or an orphan (see ambiguous.ts).
  const request = Object.fromEntries(
    Object.entries(body(news)).filter(([, v]) => v !== undefined && v !== ""),
  ) as EventSubscriptionCreate;
  const sub = await createOnce({
    what: RESOURCES.eventSubscription.names.singular,
    create: (idempotencyKey) => {
      sending();
      return client.eventSubscriptions.create(request, { idempotencyKey });
    },
    fingerprint: JSON.stringify(request),
    matchKey: matchKey(news),
    list: () => client.eventSubscriptions.list(),
    matches: (live) => matchesInputs(live, news),
    keysHonoured: () => client.idempotency.honoured,
    warn,
    adoptFrom: adoptionCandidates("subscription"),
  });
  return { id: sub.id, outs: stamped(toOutputs(sub)) };
}

/**
 * `read` (refresh): the live subscription; a 404 to the key that made it removes it from the
 * state (to another key, an error: keyStamp.ts). A placeholder (see pendingCreate.ts) is kept as
 * it is, with no request.
 */
export async function read(id: string, props: SubscriptionOutputs): Promise<pulumi.dynamic.ReadResult> {
  const placeholder = readPending(id, props);
  if (placeholder) return placeholder;
  claimId(id);
  const what = `${RESOURCES.eventSubscription.names.singular} ${id}`;
  const sub = await getUnlessGone(() => getClient().eventSubscriptions.get(id), { what, props });
  if (!sub) return {};
  const outs = stamped(toOutputs(sub), props);
  return { id, props: carryOptions({ outs }, props).outs, inputs: toInputs(outs) };
}

/**
 * `update`: sends every managed field, so the result is exactly what the program says.
 * @param timeoutMs - the update timeout in **milliseconds** (see {@link create}).
 */
export async function update(
  id: string,
  _olds: SubscriptionOutputs,
  news: SubscriptionInputs,
  timeoutMs?: number,
): Promise<pulumi.dynamic.UpdateResult> {
  notPlaceholder(id);
  claimId(id);
  const what = `${RESOURCES.eventSubscription.names.singular} ${id}`;
  return timed("update", what, news, timeoutMs, async () => ({
    outs: stamped(toOutputs(await getClient().eventSubscriptions.update(id, body(news)))),
  }));
}

/**
 * `delete`: deletes the subscription; one already gone (404 to the service and key that made it)
 * counts as deleted. A placeholder's delete is `removePending`'s (pendingCreate.ts): nothing
 * after its replacement, else the lookup.
 * @param props - the state's outputs (the dynamic door's delete timeout travels in them).
 * @param timeoutMs - the delete timeout in **milliseconds** (see {@link create}).
 */
export async function remove(id: string, props?: SubscriptionOutputs, timeoutMs?: number): Promise<void> {
  const what = `${RESOURCES.eventSubscription.names.singular} ${id}`;
  await timed("delete", what, props, timeoutMs, async () => {
    const removeLive = (live: EventSubscription) =>
      deleteUnlessGone(() => getClient().eventSubscriptions.delete(live.id), live.uri);
    if (await removePending(PENDING, id, props, removeLive)) return;
    await deleteUnlessGone(() => getClient().eventSubscriptions.delete(id), props?.uri, { what, props });
  });
}

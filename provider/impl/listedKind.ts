/**
 * The steps that the kinds the service lists (event subscriptions, event destinations) share in
 * `create`, `read`, `update` and `delete`: adopting by `adoptId`, taking what a create that timed
 * out made (pendingCreate.ts), reading with the key stamp (keyStamp.ts), updating and deleting.
 * Each kind's module gives its client calls and comparisons as a {@link ListedKind}; what differs
 * between the kinds (the create's body, write-only secrets) stays there.
 *
 * @packageDocumentation
 */
import type * as pulumi from "@pulumi/pulumi";
import type { ResourceDescriptor } from "service-contract";
import { adoptExisting, type AdoptableKind } from "./create/adopt";
import { createOnce } from "./create/createOnce";
import { claimId } from "./create/claims";
import { changedProperties } from "./compare";
import { canonical, notPlaceholder, pendingDiff, readPending, timedCreate } from "./create/pendingCreate";
import { removePending, replayAnswered, replayOf, type PendingKind } from "./create/placeholderSettlement";
import { carryOptions, diffResult, type ServiceDiffResult } from "./resourceOptions";
import type { Page } from "../../client/collections";
import { readThroughListing, whileWriting, type ListableKind } from "./reads/listReads";
import { adoptionCandidates, recoveryAdoption } from "./create/recoveryAdoption";
import { deleteUnlessGone, getUnlessGone, stamped } from "./keyChecks";
import { getClient } from "./process/client";
import { warn } from "./process/debugLog";
import { timed } from "./timeouts";

/** A live resource of a listed kind, as the client returns it. */
type Live = { id: string; createdAt: string; uri: string };

/**
 * A kind the service lists: its lookups (as {@link PendingKind}: `what` is the kind in words,
 * e.g. `event subscription`) and the client calls and comparisons its operations use.
 * `I` is the kind's inputs, `O` its outputs (the state, without `id`).
 */
export interface ListedKind<T extends Live, I, O extends object>
  extends PendingKind<T>, AdoptableKind<T, I, O> {
  /** The contract's descriptor of the kind (its names and ID prefix, for adoption's messages). */
  resource: ResourceDescriptor;
  /** The kind as `SERVICE_ADOPT_FROM`'s file names it (`adoptionCandidates` in runtime.ts). */
  candidates: "subscription" | "destination";
  /** The body of a create with the inputs `news`: the fields given, without those left out or `""`. */
  createRequest(news: I): object;
  /** The client's `create` of `request` (a {@link ListedKind.createRequest}) with this `Idempotency-Key`. */
  create(request: object, idempotencyKey: string): Promise<T>;
  /** The values {@link PendingKind.matches} compares, as one JSON string (write-only secrets left out). */
  matchKey(news: I): string;
  /** What a resource recovery adoption took (`SERVICE_ADOPT_FROM`) is before it is returned; default itself. */
  afterRecoveryAdoption?(live: T, news: I): Promise<T>;
  /** The client's `get` of `id`. */
  get(id: string): Promise<T>;
  /** The client's pages of the kind, `limit` resources each, newest first (`read` answers from them: listReads.ts). */
  pages(limit: number): AsyncIterable<Page<T>>;
  /** The properties `diff` compares, each with "equal?" on old outputs and new inputs. */
  managed: Record<string, (olds: O, news: I) => boolean>;
  /** The failures of `check` for the inputs `news`, by the client's rules (`[]` when valid; unknown values are not failures). */
  checkInputs(news: I): pulumi.dynamic.CheckFailure[];
  /** The client's `update` of `id` with every managed field of `news` (one `PATCH`). */
  update(id: string, news: I): Promise<T>;
  /** The client's `delete` of `id`. */
  delete(id: string): Promise<unknown>;
  /** The outputs of `live`, keeping what the API does not return (write-only secrets) from `known` (inputs or earlier outputs). */
  outputs(live: T, known: I | O | undefined): O;
  /** True when the adopted `id`, whose outputs are `live`, needs no write to hold the values `news`. */
  adoptedAsIs(live: O, news: I, id: string): boolean | Promise<boolean>;
  /** True when a resource made with the values `sent` needs no write to hold the values `news`. */
  sentAsIs(sent: I, news: I): boolean;
}

/**
 * `diff` of a listed kind: a placeholder's replacement (pendingCreate.ts), else the properties
 * whose "equal?" in `managed` (on old outputs and new inputs) is false; `id` is claimed as this
 * resource's.
 */
export function diffListed<O, I>(
  id: string,
  olds: O,
  news: I,
  managed: Record<string, (olds: O, news: I) => boolean>,
): ServiceDiffResult {
  const pending = pendingDiff(id, olds as unknown as Record<string, unknown>, news);
  if (pending) return pending;
  claimId(id);
  return diffResult(changedProperties(managed, olds, news), news);
}

/**
 * `create` of a listed kind, under its timeout ({@link timedCreate}), as a write that drops this
 * process's listings (`whileWriting`, listReads.ts): with `adoptId`, {@link adoptExisting}; else
 * one logical create (`createOnce`, createOnce.ts: one `Idempotency-Key`, an answer lost on the
 * way back resolved without a duplicate or an orphan, recovery adoption with
 * `SERVICE_ADOPT_FROM`). For a placeholder's replacement, that create is the timed-out create
 * sent again, its values under its key (pendingCreate.ts), and the program's values follow with
 * one `PATCH` when they differ. The request is sent with its object keys sorted (`canonical`),
 * so that a replay rebuilt from the state repeats it byte for byte.
 * @param news - the inputs (the dynamic door's create timeout travels in them).
 * @param timeoutMs - the native door's create timeout in **milliseconds**.
 * @returns its ID and stamped outputs.
 * @throws PendingCreateError (pendingCreate.ts) when the timeout passes after the request may
 *   have reached the service; Error when a placeholder was sent with another API key; what
 *   those steps throw.
 */
export async function createListed<T extends Live, I extends { adoptId?: string }, O extends object>(
  kind: ListedKind<T, I, O>,
  news: I,
  timeoutMs: number | undefined,
): Promise<pulumi.dynamic.CreateResult> {
  const client = getClient();
  // The request of a create with the values `values`, in the one form a placeholder's replay repeats.
  const requestOf = (values: I): object => canonical(kind.createRequest(values));
  // The write ends when its requests do, not when the timeout gives up on them.
  return timedCreate(kind.what, news as Record<string, unknown>, timeoutMs, (pending, sending) =>
    whileWriting(async () => {
      let made: { id: string; outs: O };
      if (news.adoptId) made = await adoptExisting(kind, news.adoptId, news);
      else {
        // A placeholder's replacement sends the timed-out create again: its values, its key.
        const replay = pending && replayOf(kind.what, pending);
        const values = (replay ? replay.sent : news) as I;
        const request = requestOf(values);
        const from = adoptionCandidates(kind.candidates);
        const afterRecoveryAdoption = kind.afterRecoveryAdoption;
        let replayed = false;
        const live = await createOnce({
          what: kind.what,
          idempotencyKey: replay?.idempotencyKey,
          create: async (idempotencyKey) => {
            sending(idempotencyKey);
            const answer = await kind.create(request, idempotencyKey);
            if (pending) replayed = replayAnswered(pending, idempotencyKey) || replayed;
            return answer;
          },
          fingerprint: JSON.stringify(request),
          matchKey: kind.matchKey(values),
          list: () => kind.list(),
          matches: (found) => kind.matches(found, values as Record<string, unknown>),
          keysHonoured: () => client.idempotency.honoured,
          serviceNow: (localMs) => client.serviceClock.now(localMs),
          warn,
          ...(from && {
            recover: recoveryAdoption({
              what: kind.what,
              from,
              list: () => kind.list(),
              matches: (found) => kind.matches(found, values as Record<string, unknown>),
              warn,
              ...(afterRecoveryAdoption && {
                afterRecoveryAdoption: (found: T) => afterRecoveryAdoption(found, values),
              }),
            }),
          }),
        });
        if (replayed)
          await warn(
            `${kind.what}: the create of ${pending!.placeholderId} timed out earlier; sent again under its Idempotency-Key, ` +
              `the service answered with ${live.id}, which that create had made: took it`,
          );
        // A replay sent the placeholder's values: the program's values now are written if they differ.
        const held = !replay || kind.sentAsIs(values, news) ? live : await kind.update(live.id, news);
        made = { id: held.id, outs: kind.outputs(held, news) };
      }
      return { id: made.id, outs: stamped(made.outs) };
    }),
  );
}

/** The body of a create: the fields of `body` (every managed field) without those left out or `""`. */
export function withoutBlanks<B extends object>(body: B): B {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined && v !== "")) as B;
}

/**
 * `read` (refresh) of a listed kind: the live resource with the state's resource options; a 404 to
 * the key that made it removes it from the state (`{}`). A placeholder is kept as it is, with no request.
 * Many reads of the kind together are answered from its list endpoint, a resource the listing
 * does not hold re-checked with its own `GET` (`readThroughListing`, listReads.ts); few, with a
 * `GET` each.
 * @throws Error naming both key stamps for a 404 to another key (keyStamp.ts); any other client error as is.
 */
export async function readListed<T extends Live, I, O extends object>(
  kind: ListedKind<T, I, O>,
  id: string,
  props: O,
  toInputs: (outs: O) => I,
): Promise<pulumi.dynamic.ReadResult> {
  const placeholder = readPending(id, props);
  if (placeholder) return placeholder;
  claimId(id);
  const createdAtMs = Date.parse(String((props as { createdAt?: unknown } | undefined)?.createdAt));
  const live = await getUnlessGone(
    () => readThroughListing(listable(kind), id, Number.isNaN(createdAtMs) ? undefined : createdAtMs),
    { what: `${kind.what} ${id}`, props },
  );
  if (!live) return {};
  const outs = stamped(kind.outputs(live, props), props);
  return { id, props: carryOptions({ outs }, props).outs, inputs: toInputs(outs) };
}

/**
 * What pendingCreate.ts needs of `kind` to settle a placeholder: its listing, its comparison, and
 * the replay of a create (the request of the values sent, in `canonical` form, as
 * {@link createListed} sends it).
 */
function pendingKind<T extends Live, I, O extends object>(kind: ListedKind<T, I, O>): PendingKind<T> {
  return {
    what: kind.what,
    list: () => kind.list(),
    matches: (live, sent) => kind.matches(live, sent),
    replay: (sent, idempotencyKey) => kind.create(canonical(kind.createRequest(sent as I)), idempotencyKey),
  };
}

/** What listReads.ts needs of `kind`. */
function listable<T extends Live>(
  kind: Pick<ListedKind<T, unknown, object>, "what" | "resource" | "pages" | "get">,
): ListableKind<T> {
  return {
    what: kind.what,
    idPrefix: kind.resource.idPrefix,
    pages: (limit) => kind.pages(limit),
    get: (id) => kind.get(id),
  };
}

/**
 * `update` of a listed kind: every managed field, under the update timeout, as a write that drops
 * this process's listings (`whileWriting`, listReads.ts).
 * @param timeoutMs - the update timeout in **milliseconds** (the dynamic door's travels in `news`).
 * @throws Error when `id` is a placeholder (pendingCreate.ts); the timeout's error; any client error as is.
 */
export async function updateListed<T extends Live, I, O extends object>(
  kind: ListedKind<T, I, O>,
  id: string,
  news: I,
  timeoutMs: number | undefined,
): Promise<pulumi.dynamic.UpdateResult> {
  notPlaceholder(id);
  claimId(id);
  return timed("update", `${kind.what} ${id}`, news, timeoutMs, () =>
    whileWriting(async () => ({ outs: stamped(kind.outputs(await kind.update(id, news), news)) })),
  );
}

/**
 * `delete` of a listed kind, under the delete timeout, as a write that drops this process's
 * listings (`whileWriting`, listReads.ts): one already gone (404 to the key that made it) counts
 * as deleted; a placeholder's delete is {@link removePending}'s.
 * @param props - the state's outputs (the dynamic door's delete timeout travels in them).
 * @param timeoutMs - the delete timeout in **milliseconds**.
 * @throws Error naming both key stamps for a 404 to another key (keyStamp.ts); what
 *   {@link removePending} throws; the timeout's error; any other client error as is.
 */
export async function removeListed<T extends Live, I, O extends { uri?: string }>(
  kind: ListedKind<T, I, O>,
  id: string,
  props: O | undefined,
  timeoutMs: number | undefined,
): Promise<void> {
  const what = `${kind.what} ${id}`;
  await timed("delete", what, props, timeoutMs, () =>
    whileWriting(async () => {
      const removeLive = (live: T) => deleteUnlessGone(() => kind.delete(live.id), live.uri);
      if (await removePending(pendingKind(kind), id, props, removeLive)) return;
      await deleteUnlessGone(() => kind.delete(id), props?.uri, { what, props });
    }),
  );
}

/**
 * The operations a listed kind's module exports, with the dynamic provider's parameters and the
 * native door's timeout last (in **milliseconds**; the dynamic door's travels in the inputs or
 * outputs, see timeouts.ts): `check`, `diff` ({@link diffListed}), `create` ({@link createListed}), `read` ({@link readListed}),
 * `update` ({@link updateListed}, every managed field) and `remove`, the delete
 * ({@link removeListed}). Their errors are those steps'.
 */
export interface ListedOperations<I, O> {
  /** The inputs `news` as they are, with {@link ListedKind.checkInputs}'s failures. */
  check(olds: unknown, news: I): Promise<pulumi.dynamic.CheckResult>;
  /** {@link diffListed} of `id` on {@link ListedKind.managed}. */
  diff(id: string, olds: O, news: I): Promise<ServiceDiffResult>;
  /** {@link createListed} of the inputs `news`. */
  create(news: I, timeoutMs?: number): Promise<pulumi.dynamic.CreateResult>;
  /** {@link readListed} of `id` with the state's outputs `props`. */
  read(id: string, props: O): Promise<pulumi.dynamic.ReadResult>;
  /** {@link updateListed} of `id` to the inputs `news` (the old outputs are not needed). */
  update(id: string, olds: O, news: I, timeoutMs?: number): Promise<pulumi.dynamic.UpdateResult>;
  /** {@link removeListed} of `id`, whose state's outputs are `props`. */
  remove(id: string, props?: O, timeoutMs?: number): Promise<void>;
}

/**
 * The {@link ListedOperations} of `kind`, whose state's outputs become inputs by `toInputs` (what
 * a refresh reports as the resource's inputs).
 */
export function listedOperations<T extends Live, I extends { adoptId?: string }, O extends { uri?: string }>(
  kind: ListedKind<T, I, O>,
  toInputs: (outs: O) => I,
): ListedOperations<I, O> {
  return {
    check: async (_olds, news) => ({ inputs: news, failures: kind.checkInputs(news) }),
    diff: async (id, olds, news) => diffListed(id, olds, news, kind.managed),
    create: (news, timeoutMs) => createListed(kind, news, timeoutMs),
    read: (id, props) => readListed(kind, id, props, toInputs),
    update: (id, _olds, news, timeoutMs) => updateListed(kind, id, news, timeoutMs),
    remove: (id, props, timeoutMs) => removeListed(kind, id, props, timeoutMs),
  };
}

/**
 * The calls the shared steps make on the client's collection of a listed kind
 * (`client.eventSubscriptions`, `client.eventDestinations`: client/collections.ts).
 */
export interface ListedCollection<T> {
  /** Creates one resource from the body `request`, under `options.idempotencyKey`. */
  create(request: object, options: { idempotencyKey: string }): Promise<T>;
  /** Every resource of the account, page by page, newest first. */
  list(): AsyncIterable<T>;
  /** One resource by ID. */
  get(id: string): Promise<T>;
  /** The pages of the list, `limit` resources each. */
  pages(params: { limit: number }): AsyncIterable<Page<T>>;
  /** Deletes one resource by ID. */
  delete(id: string): Promise<unknown>;
}

/**
 * The members of a {@link ListedKind} that come from the contract's descriptor `resource` (`what`,
 * its singular name, and `resource`) and those that are plain calls of its client collection
 * (`create`, `list`, `get`, `pages`, `delete`), each on the collection `collection()` returns at
 * the call (the process's client is built on first use).
 */
export function collectionCalls<T extends Live>(
  resource: ResourceDescriptor,
  collection: () => ListedCollection<T>,
): Pick<
  ListedKind<T, unknown, object>,
  "what" | "resource" | "create" | "list" | "get" | "pages" | "delete"
> {
  return {
    what: resource.names.singular,
    resource,
    create: (request, idempotencyKey) => collection().create(request, { idempotencyKey }),
    list: () => collection().list(),
    get: (id) => collection().get(id),
    pages: (limit) => collection().pages({ limit }),
    delete: (id) => collection().delete(id),
  };
}

/**
 * Implementation of the `EventDestination` dynamic provider, loaded by package name inside the
 * provider methods (see provider/dynamic/eventDestination.ts). Reference: docs/service-api.md § Event destinations.
 *
 * Write-only secrets (`awsSecretAccessKey`, Datadog `apiKey`, Azure `clientSecret`) come back
 * from the API as `""`; the provider keeps the values the program gave, so a refresh shows no
 * perpetual diff. They stay secret: the resource marks `target` as a secret input and output.
 * A secret changed outside Pulumi cannot be seen (the API never returns it).
 *
 * @packageDocumentation
 */
import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import {
  DestinationTarget,
  EventDestinationCreate,
  RESOURCES,
  type EventDestination,
} from "service-contract";
import {
  blankWriteOnly,
  complete,
  keepWriteOnly,
  writableFields,
  type WritableField,
} from "service-contract";
import { checkEventDestinationInputs } from "./inputChecks";
import { changedProperties, sameJson } from "./compare";
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
import { adoptionCandidates, deleteUnlessGone, getClient, getUnlessGone, stamped, warn } from "./runtime";

/** Inputs as the provider receives them (after `check`): the contract's create body and `adoptId`. */
export type DestinationInputs = EventDestinationCreate & { adoptId?: string };

/** Outputs (the state) of an `EventDestination`: the destination as the API returns it, without `id`. */
export type DestinationOutputs = Omit<EventDestination, "id">;

type Json = Record<string, unknown>;

/** The managed fields: those of the contract's create body, with the value a left-out one has. */
const FIELDS = writableFields(EventDestinationCreate);
const SHAPE = EventDestinationCreate.shape as Record<string, z.ZodType>;

/** `field` of `value` with its default when left out, completed as the API returns it. */
function fieldValue(field: WritableField, value: Json): unknown {
  return complete(SHAPE[field.name], value[field.name] ?? field.default);
}

/** `target` with unset optional strings as `""`, the form the API returns. */
export function normalizeTarget(target: DestinationTarget): DestinationTarget {
  return complete(DestinationTarget, target) as DestinationTarget;
}

/**
 * The live target with each write-only secret the API blanked (`""`) taken from `known` (the
 * program's or the last deployment's target), when both are of the same kind.
 */
export function withKnownSecrets(
  live: DestinationTarget,
  known: DestinationTarget | undefined,
): DestinationTarget {
  return keepWriteOnly(DestinationTarget, live, known) as DestinationTarget;
}

/** Maps the API's destination to outputs, keeping the known write-only secrets. */
export function toOutputs(dest: EventDestination, known: DestinationTarget | undefined): DestinationOutputs {
  const { id: _id, ...outs } = dest;
  return { ...outs, target: withKnownSecrets(normalizeTarget(dest.target), known) };
}

/** The inputs that describe `out` exactly (returned by `read`): every field not `""`. */
export function toInputs(out: DestinationOutputs): DestinationInputs {
  const inputs: Json = {};
  for (const f of FIELDS) {
    const value = (out as Json)[f.name];
    if (value !== "" && value !== undefined) inputs[f.name] = value;
  }
  return inputs as DestinationInputs;
}

/** Every managed field (defaults for those left out): the body of an update or an adoption. */
function body(news: DestinationInputs): EventDestinationCreate {
  return Object.fromEntries(
    FIELDS.map((f) => [f.name, (news as Json)[f.name] ?? f.default]),
  ) as EventDestinationCreate;
}

/** The body of a create: the fields given, without those left out or `""`. */
function createBody(news: DestinationInputs): EventDestinationCreate {
  return Object.fromEntries(
    Object.entries(body(news)).filter(([, v]) => v !== undefined && v !== ""),
  ) as EventDestinationCreate;
}

/**
 * True when the live destination has exactly the values a create with these inputs sends
 * (left-out fields as their defaults), compared in the form the API returns, so write-only
 * secrets, which come back as `""`, cannot tell two destinations apart. Used to find the
 * destination an ambiguous create made and by recovery after an interrupted deployment.
 */
export function matchesInputs(live: EventDestination, news: DestinationInputs): boolean {
  return FIELDS.every((f) =>
    sameJson(
      blankWriteOnly(SHAPE[f.name], fieldValue(f, live as unknown as Json)),
      blankWriteOnly(SHAPE[f.name], fieldValue(f, news as unknown as Json)),
    ),
  );
}

/**
 * The values {@link matchesInputs} compares (write-only secrets blanked), as one JSON string: two
 * creates with the same key match the same live destinations.
 */
export function matchKey(news: DestinationInputs): string {
  return JSON.stringify(
    FIELDS.map((f) => blankWriteOnly(SHAPE[f.name], fieldValue(f, news as unknown as Json))),
  );
}

/**
 * `check`: validates with the client's rules; unknown values are not failures. A placeholder ID
 * (pendingCreate.ts) in `adoptId` is one, as any value that is not an ID of the kind.
 */
export async function check(_olds: unknown, news: DestinationInputs): Promise<pulumi.dynamic.CheckResult> {
  return {
    inputs: news,
    failures: checkEventDestinationInputs(news as unknown as Json),
  };
}

/** The properties `diff` compares, each with "equal?" on old outputs and new inputs. */
const MANAGED: Record<string, (olds: DestinationOutputs, news: DestinationInputs) => boolean> =
  Object.fromEntries(
    FIELDS.map((f) => [
      f.name,
      (o: DestinationOutputs, n: DestinationInputs) =>
        sameJson(fieldValue(f, o as unknown as Json), fieldValue(f, n as unknown as Json)),
    ]),
  );

/**
 * `diff`: every change (the target's kind included) is an update in place, unless
 * `replaceOnChanges` names it. A placeholder of a create that timed out is replaced
 * (pendingCreate.ts).
 */
export async function diff(
  id: string,
  olds: DestinationOutputs,
  news: DestinationInputs,
): Promise<ServiceDiffResult> {
  const pending = pendingDiff(id, olds as unknown as Json, news);
  if (pending) return pending;
  claimId(id);
  return diffResult(changedProperties(MANAGED, olds, news), news);
}

/** Destinations for the lookups of pending creates (pendingCreate.ts). */
const PENDING: PendingKind<EventDestination> = {
  what: RESOURCES.eventDestination.names.singular,
  list: () => getClient().eventDestinations.list(),
  matches: (live, sent) => matchesInputs(live, sent as DestinationInputs),
};

/**
 * True when `target` holds a write-only secret (`awsSecretAccessKey`, Datadog `apiKey`, Azure
 * `clientSecret`) with a value: such a target cannot be compared with the live one, whose
 * secrets the API returns as `""`.
 */
export function hasWriteOnlySecret(target: DestinationTarget | undefined): boolean {
  return target !== undefined && !sameJson(blankWriteOnly(DestinationTarget, target), target);
}

/**
 * `create`: creates the destination, or, with `adoptId`, takes an existing one under management:
 * reads it (an error naming the ID if it does not exist in this account) and
 * updates it with one `PATCH` of every managed field, unless its live values already equal the
 * program's. That shortcut applies only to targets without a write-only secret: a secret
 * cannot be read back, so a target holding one is always sent (the PATCH re-sends the
 * configured secret and changes nothing else when the other values match).
 *
 * With `SERVICE_ADOPT_FROM` set (recovery after an interrupted deployment, see
 * `adoptionCandidates` in runtime.ts), a destination it lists with exactly these values, held by
 * no other resource of the deployment, is adopted instead of created; one whose target holds a
 * write-only secret is then sent the program's values with one `PATCH`.
 *
 * The replacement of a placeholder (a create that timed out, see pendingCreate.ts) first takes
 * the destination that create made, when the service holds it, and sends the program's values
 * with one `PATCH` when they differ from those sent or hold a write-only secret.
 *
 * @param timeoutMs - the create timeout in **milliseconds** (the native door's
 *   `customTimeouts.create`); the dynamic door's comes with the inputs (see timeouts.ts).
 * @throws PendingCreateError (pendingCreate.ts) when the timeout passes after the request may
 *   have reached the service: the engine keeps a placeholder that the next `up` resolves.
 */
export async function create(
  news: DestinationInputs,
  timeoutMs?: number,
): Promise<pulumi.dynamic.CreateResult> {
  const what = RESOURCES.eventDestination.names.singular;
  return timedCreate(what, news as unknown as Json, timeoutMs, (pending, sending) =>
    createDestination(news, pending, sending),
  );
}

async function createDestination(
  news: DestinationInputs,
  pending: PendingReplacement | undefined,
  sending: () => void = () => {},
): Promise<pulumi.dynamic.CreateResult> {
  const client = getClient();
  const adoptId = news.adoptId;
  if (adoptId) {
    return adopting(RESOURCES.eventDestination, adoptId, async () => {
      const live = await readForAdoption(RESOURCES.eventDestination, adoptId, (id) =>
        client.eventDestinations.get(id),
      );
      if (!hasWriteOnlySecret(news.target)) {
        const outs = toOutputs(live, news.target);
        const changed = await diff(adoptId, outs, news);
        if (!changed.changes) return { id: adoptId, outs: stamped(outs) };
      }
      const dest = await client.eventDestinations.update(adoptId, body(news));
      return { id: dest.id, outs: stamped(toOutputs(dest, news.target)) };
    });
  }
  // What a create that timed out made, taken rather than made again (see pendingCreate.ts). A
  // write-only secret cannot be compared: a target holding one is sent again.
  const made = pending && (await adoptPending(PENDING, pending));
  if (made) {
    const same =
      !hasWriteOnlySecret(news.target) &&
      sameJson(createBody(pending.sent as DestinationInputs), createBody(news));
    const dest = same ? made : await client.eventDestinations.update(made.id, body(news));
    return { id: dest.id, outs: stamped(toOutputs(dest, news.target)) };
  }
  // One Idempotency-Key per logical create; an answer lost on the way back is resolved without
  // a duplicate or an orphan (see ambiguous.ts).
  const request = createBody(news);
  const dest = await createOnce({
    what: RESOURCES.eventDestination.names.singular,
    create: (idempotencyKey) => {
      sending();
      return client.eventDestinations.create(request, { idempotencyKey });
    },
    fingerprint: JSON.stringify(request),
    matchKey: matchKey(news),
    list: () => client.eventDestinations.list(),
    matches: (live) => matchesInputs(live, news),
    keysHonoured: () => client.idempotency.honoured,
    warn,
    adoptFrom: adoptionCandidates("destination"),
    // A write-only secret cannot be compared: the adopted destination gets the program's.
    afterRecoveryAdoption: async (live) =>
      hasWriteOnlySecret(news.target) ? await client.eventDestinations.update(live.id, body(news)) : live,
  });
  return { id: dest.id, outs: stamped(toOutputs(dest, news.target)) };
}

/**
 * `read` (refresh): the live destination, secrets kept from the state; a 404 to the key that made
 * it removes it (to another key, an error: keyStamp.ts). A placeholder (see pendingCreate.ts) is
 * kept as it is, with no request.
 */
export async function read(id: string, props: DestinationOutputs): Promise<pulumi.dynamic.ReadResult> {
  const placeholder = readPending(id, props);
  if (placeholder) return placeholder;
  claimId(id);
  const what = `${RESOURCES.eventDestination.names.singular} ${id}`;
  const dest = await getUnlessGone(() => getClient().eventDestinations.get(id), { what, props });
  if (!dest) return {};
  const outs = stamped(toOutputs(dest, props?.target), props);
  return { id, props: carryOptions({ outs }, props).outs, inputs: toInputs(outs) };
}

/**
 * `update`: sends every managed field, the whole target included.
 * @param timeoutMs - the update timeout in **milliseconds** (see {@link create}).
 */
export async function update(
  id: string,
  _olds: DestinationOutputs,
  news: DestinationInputs,
  timeoutMs?: number,
): Promise<pulumi.dynamic.UpdateResult> {
  notPlaceholder(id);
  claimId(id);
  const what = `${RESOURCES.eventDestination.names.singular} ${id}`;
  return timed("update", what, news, timeoutMs, async () => ({
    outs: stamped(toOutputs(await getClient().eventDestinations.update(id, body(news)), news.target)),
  }));
}

/**
 * `delete`: deletes the destination; one already gone (404 to the service and key that made it)
 * counts as deleted. A placeholder's delete is `removePending`'s (pendingCreate.ts): nothing
 * after its replacement, else the lookup.
 * @param props - the state's outputs (the dynamic door's delete timeout travels in them).
 * @param timeoutMs - the delete timeout in **milliseconds** (see {@link create}).
 */
export async function remove(id: string, props?: DestinationOutputs, timeoutMs?: number): Promise<void> {
  const what = `${RESOURCES.eventDestination.names.singular} ${id}`;
  await timed("delete", what, props, timeoutMs, async () => {
    const removeLive = (live: EventDestination) =>
      deleteUnlessGone(() => getClient().eventDestinations.delete(live.id), live.uri);
    if (await removePending(PENDING, id, props, removeLive)) return;
    await deleteUnlessGone(() => getClient().eventDestinations.delete(id), props?.uri, { what, props });
  });
}

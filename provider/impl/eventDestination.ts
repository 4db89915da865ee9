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
import { sameJson } from "./compare";
import { collectionCalls, listedOperations, withoutBlanks, type ListedKind } from "./listedKind";
import { getClient } from "./process/client";

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
  return withoutBlanks(body(news));
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
 * Destinations for the steps the listed kinds share (listedKind.ts): the lookups of pending
 * creates (pendingCreate.ts), adoption, read, update and delete. A write-only secret cannot be
 * compared: a target holding one is always sent, when adopted as when taken after a timeout.
 */
const KIND: ListedKind<EventDestination, DestinationInputs, DestinationOutputs> = {
  ...collectionCalls(RESOURCES.eventDestination, () => getClient().eventDestinations),
  matches: (live, sent) => matchesInputs(live, sent as DestinationInputs),
  candidates: "destination",
  createRequest: (news) => createBody(news),
  matchKey,
  managed: MANAGED,
  checkInputs: (news) => checkEventDestinationInputs(news as unknown as Json),
  // A write-only secret cannot be compared: a destination recovery adoption took gets the program's.
  afterRecoveryAdoption: async (live, news) =>
    hasWriteOnlySecret(news.target) ? await getClient().eventDestinations.update(live.id, body(news)) : live,
  update: (id, news) => getClient().eventDestinations.update(id, body(news)),
  outputs: (live, known) => toOutputs(live, known?.target),
  adoptedAsIs: async (live, news, id) =>
    !hasWriteOnlySecret(news.target) && !(await diff(id, live, news)).changes,
  sentAsIs: (sent, news) => !hasWriteOnlySecret(news.target) && sameJson(createBody(sent), createBody(news)),
};

/** The operations below, as every listed kind has them (listedKind.ts). */
const OPERATIONS = listedOperations(KIND, toInputs);

/**
 * `check`: validates with the client's rules; unknown values are not failures. A placeholder ID
 * (pendingCreate.ts) in `adoptId` is one, as any value that is not an ID of the kind.
 */
export const check = OPERATIONS.check;

/**
 * `diff`: every change (the target's kind included) is an update in place, unless
 * `replaceOnChanges` names it. A placeholder of a create that timed out is replaced
 * (pendingCreate.ts).
 */
export const diff = OPERATIONS.diff;

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
export const create = OPERATIONS.create;

/**
 * `read` (refresh): the live destination, secrets kept from the state; a 404 to the key that made
 * it removes it (to another key, an error: keyStamp.ts). A placeholder (see pendingCreate.ts) is
 * kept as it is, with no request.
 */
export const read = OPERATIONS.read;

/**
 * `update`: sends every managed field, the whole target included.
 * @param timeoutMs - the update timeout in **milliseconds** (see {@link create}).
 */
export const update = OPERATIONS.update;

/**
 * `delete`: deletes the destination; one already gone (404 to the service and key that made it)
 * counts as deleted. A placeholder's delete is `removePending`'s (pendingCreate.ts): nothing
 * after its replacement, else the lookup.
 * @param props - the state's outputs (the dynamic door's delete timeout travels in them).
 * @param timeoutMs - the delete timeout in **milliseconds** (see {@link create}).
 */
export const remove = OPERATIONS.remove;

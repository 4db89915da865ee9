/**
 * Settling a placeholder (see pendingCreate.ts) without ever touching what is not provably its
 * own: the replay of its create under its `Idempotency-Key` (the replacement's, in `up`; the
 * placeholder's delete's, in `destroy`), the proof an answer gives, and, without proof, the
 * candidates inside the marker's window named in a warning, never adopted or deleted.
 *
 * @packageDocumentation
 */
import { SERVICE_VERSION } from "service-contract";
import { LISTINGS, maybeApplied, withArticle } from "./lostAnswer";
import { processClaims, type ClaimRegistry } from "./claims";
import { KEY_CHANGE_ENV, rotationInEffect } from "../configChange";
import { listSince } from "./lookup";
import {
  isPlaceholderId,
  pendingMarker,
  pendingWindow,
  processPending,
  runtimeContext,
  sentValues,
  type PendingContext,
  type PendingCreateMarker,
  type PendingReplacement,
  type PendingReplacements,
} from "./pendingCreate";
import { warn } from "../process/debugLog";

/** Plain property values. */
type Props = Record<string, unknown>;

/**
 * How long the service keeps an `Idempotency-Key`, in **milliseconds** (24 hours: docs/service-api.md
 * § Idempotency keys). A replay sent later may make a new resource even though the first create
 * made one, so its answer proves nothing about the first.
 */
export const KEY_RETENTION_MS = 24 * 60 * 60 * 1000;

/** What settling a placeholder needs of its kind: how to list it, compare, and send a create again. */
export interface PendingKind<T extends { id: string; createdAt: string }> {
  /** Kind in words, e.g. `event subscription` (also the claims' gate of the kind, as in createOnce.ts). */
  what: string;
  /** Every resource of the kind, newest first. */
  list(): AsyncIterable<T>;
  /** True when `live` has exactly the values `sent` (inputs). */
  matches(live: T, sent: Props): boolean;
  /**
   * Sends the create of the values `sent` again under `idempotencyKey`, as the timed-out create
   * sent it (the same request, byte for byte): the service's answer, which with a service that
   * honours keys is the resource that key made. Absent: the placeholder is never replayed.
   */
  replay?(sent: Props, idempotencyKey: string): Promise<T>;
}

/** A resource of the kind as a warning names it: its ID and, when it has one, the command that deletes it. */
function deleteCommand(live: { id: string; uri?: unknown }): string {
  return typeof live.uri === "string" && live.uri !== ""
    ? `${live.id} (\`curl -X DELETE ${live.uri} -H "Authorization: Bearer $SERVICE_API_KEY" -H "Service-Version: ${SERVICE_VERSION}"\`)`
    : live.id;
}

/**
 * The placeholder `id`'s key stamp against the provider's.
 * @throws Error naming the placeholder when its create was sent with another API key (whose
 *   account a replay or a lookup would not reach), unless `SERVICE_KEY_CHANGE=rotation` says the
 *   key was rotated within the account.
 */
function assertSameKey(what: string, id: string, marker: PendingCreateMarker, context: PendingContext): void {
  if (marker.keyStamp === undefined || context.isCurrentKeyStamp(marker.keyStamp) !== false) return;
  // The user says the key was rotated within the account, for this run (warned once per process).
  if (rotationInEffect()) return;
  throw new Error(
    `${what} ${id} (the placeholder of a create that timed out) was sent with another service API key than this provider's: ` +
      `what it made would be in that key's account, which this provider cannot see, so it neither sends it again nor looks for it. ` +
      `Configure the provider with the key that sent it (service:apiKey or SERVICE_API_KEY) and run again; if the key was rotated ` +
      `within that account, run with ${KEY_CHANGE_ENV}=rotation.`,
  );
}

/**
 * The replay of the placeholder `pending` for its replacement's create: the `Idempotency-Key`
 * and the values to send again, or `undefined` when the marker has no key (a placeholder written
 * before keys were recorded: the replacement is a plain create).
 * @throws Error when the placeholder was sent with another API key (see the module comment).
 */
export function replayOf(
  what: string,
  pending: PendingReplacement,
  context: PendingContext = runtimeContext(),
): { idempotencyKey: string; sent: Props } | undefined {
  assertSameKey(what, pending.placeholderId, pending.marker, context);
  const key = pending.marker.idempotencyKey;
  return key === undefined ? undefined : { idempotencyKey: key, sent: pending.sent };
}

/**
 * True when the answer to a create sent again under `idempotencyKey` (a 2xx, or a refusal that is
 * no lost answer) proves what the timed-out create made: the key's first answer came back
 * (`Idempotent-Replayed`), or the service honours keys and the key is within {@link KEY_RETENTION_MS}
 * of the send, so it had made nothing under it.
 */
function replayProves(marker: PendingCreateMarker, idempotencyKey: string, context: PendingContext): boolean {
  if (context.wasReplayed(idempotencyKey)) return true;
  return context.keysHonoured() === true && context.now() - marker.sentAtMs < KEY_RETENTION_MS;
}

/**
 * Records the answer to the replacement's replay of `pending` (sent under `idempotencyKey`, the
 * marker's): the placeholder is settled when that answer proves what the timed-out create made.
 * @returns true when the answer was the first answer of the key (the resource the timed-out create made).
 */
export function replayAnswered(
  pending: PendingReplacement,
  idempotencyKey: string,
  context: PendingContext = runtimeContext(),
): boolean {
  if (idempotencyKey !== pending.marker.idempotencyKey) return false;
  if (replayProves(pending.marker, idempotencyKey, context)) pending.settled = true;
  return context.wasReplayed(idempotencyKey);
}

/**
 * The kind's resources with exactly the values `sent`, made inside the marker's window
 * ({@link pendingWindow}), held by no resource of the deployment, newest first, listed while no
 * other create or lookup of the kind runs.
 * @throws Error saying what to look for, when the listing fails {@link LISTINGS} times.
 */
async function candidates<T extends { id: string; createdAt: string }>(
  kind: PendingKind<T>,
  marker: PendingCreateMarker,
  sent: Props,
  registry: ClaimRegistry,
): Promise<T[]> {
  const gate = registry.gate(kind.what);
  const { fromMs, toMs } = pendingWindow(marker);
  await gate.enterLookup();
  try {
    return await listSince(
      () => kind.list(),
      fromMs,
      (live) =>
        Date.parse(live.createdAt) <= toMs && kind.matches(live, sent) && !registry.isClaimed(live.id),
      LISTINGS,
      (err) =>
        new Error(
          `${kind.what}: a create that timed out may have been made, and looking for it failed ${LISTINGS} times ` +
            `(last: ${err instanceof Error ? err.message : String(err)}). Look for ${withArticle(kind.what)} with these values made ` +
            `between ${new Date(fromMs).toISOString()} and ${new Date(toMs).toISOString()} (service-drift generate lists them).`,
        ),
    );
  } finally {
    gate.leaveLookup();
  }
}

/**
 * Names in a warning what the timed-out create of placeholder `id` may have made when nothing
 * proved it: the candidates of {@link candidates}, each with the command to delete it. Deletes
 * and adopts nothing.
 */
async function warnCandidates<T extends { id: string; createdAt: string }>(
  kind: PendingKind<T>,
  id: string,
  marker: PendingCreateMarker,
  sent: Props,
  registry: ClaimRegistry,
  why: string,
): Promise<void> {
  const found = await candidates(kind, marker, sent, registry);
  if (found.length === 0) return;
  const { fromMs, toMs } = pendingWindow(marker);
  await warn(
    `${kind.what} ${id} (the placeholder of a create that timed out): ${why}, so nothing tells whether the service made it. ` +
      `${found.length === 1 ? `One ${kind.what}` : `${found.length} ${kind.what}s`} with its values, made between ` +
      `${new Date(fromMs).toISOString()} and ${new Date(toMs).toISOString()} and held by no resource of this deployment, ` +
      `may be it, or another stack's or anyone's: ${found.map(deleteCommand).join(", ")}. The provider deletes none of them. ` +
      `If one is what this stack's create made, delete it with the command shown (or adopt it with adoptId).`,
  );
}

/**
 * `delete` of a placeholder. When its replacement's create took it in this process: nothing, if
 * the replay settled it; else the candidates are named in a warning ({@link warnCandidates}).
 * Otherwise (`destroy`, or the resource left the program): the timed-out create is sent again
 * under its `Idempotency-Key` and what the answer names is deleted with `remove`, being provably
 * this create's (the first answer of the key, or the replay's own resource); when that answer does
 * not prove what the timed-out create made (a service that ignores keys, a key past
 * {@link KEY_RETENTION_MS}, a marker without a key), the candidates are named in a warning and
 * deleted by no one.
 * @returns true when `id` is a placeholder (handled here), false for a real ID (the kind deletes it).
 * @throws Error when the placeholder was sent with another API key; Error saying to run `destroy`
 *   again when the replay's answer was lost; a listing's error as {@link candidates}.
 */
export async function removePending<T extends { id: string; createdAt: string }>(
  kind: PendingKind<T>,
  id: string,
  props: unknown,
  remove: (live: T) => Promise<void>,
  registry: ClaimRegistry = processClaims,
  pendingReplacements: PendingReplacements = processPending,
  context: PendingContext = runtimeContext(),
): Promise<boolean> {
  if (!isPlaceholderId(id)) return false;
  const marker = pendingMarker(props);
  if (!marker) return true;
  const sent = sentValues(props as Props);
  const placeholder = `${kind.what} ${id} (the placeholder of a create that timed out)`;
  const nameCandidates = (why: string) => warnCandidates(kind, id, marker, sent, registry, why);
  const taken = pendingReplacements.taken(id);
  if (taken) {
    if (!taken.settled)
      await nameCandidates("its replacement was created anew without proof of what it had made");
    return true;
  }
  assertSameKey(kind.what, id, marker, context);
  const key = marker.idempotencyKey;
  if (key === undefined || !kind.replay) {
    await nameCandidates("its marker holds no Idempotency-Key to send it again with");
    return true;
  }
  if (context.keysHonoured() === false) {
    await nameCandidates("the service does not honour Idempotency-Key");
    return true;
  }
  let live: T;
  try {
    live = await kind.replay(sent, key);
  } catch (err) {
    if (maybeApplied(err))
      throw new Error(
        `${placeholder}: sending its create again under the same Idempotency-Key, to find what it made, failed without ` +
          `an answer (${err instanceof Error ? err.message : String(err)}). Run pulumi destroy (or up) again.`,
        { cause: err },
      );
    // Refused (a destination it named is gone, say): under a key the service honours, nothing was made.
    if (!replayProves(marker, key, context))
      await nameCandidates("sending it again under its Idempotency-Key was refused");
    return true;
  }
  registry.claim(live.id);
  await remove(live);
  if (context.wasReplayed(key)) {
    await warn(`${placeholder}: the service had made ${live.id} under its Idempotency-Key; deleted it`);
  } else if (replayProves(marker, key, context)) {
    await warn(
      `${placeholder}: the service had made nothing under its Idempotency-Key; sending it again to find out made ${live.id}, which was deleted`,
    );
  } else {
    await warn(`${placeholder}: sending it again made ${live.id}, which was deleted`);
    await nameCandidates("the service did not show that it honours Idempotency-Key");
  }
  return true;
}

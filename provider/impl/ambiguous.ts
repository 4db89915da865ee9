/**
 * Ambiguous creates: a `POST` whose request reached the service but whose answer
 * was lost (connection reset, timeout, a gateway's 502/504) may or may not have created the
 * resource. Sending it again could make a duplicate; giving up could leave an orphan that no
 * stack knows about. {@link createOnce} resolves it:
 *
 * 1. Every logical create gets one `Idempotency-Key` (a UUID), reused by every attempt. The
 *    client (`idempotencyKeys: "auto"`) already retries such a POST after a reset once the
 *    server has shown that it honours keys (it echoes the key); the server then answers the
 *    retry with the first result.
 * 2. When the create still fails and may have been made — an attempt's answer was lost (the
 *    client's `maybeApplied`, set even when the last attempt was, say, a 429) — and the server is
 *    known to honour keys, one more attempt with the same key settles it. A create that fails
 *    without a lost answer (validation, 4xx, 429s or 503s with `Retry-After` all along) made
 *    nothing, and its error is thrown as it is.
 * 3. Otherwise (a server that ignores the key, or one not heard from yet) the provider looks for
 *    the resource it made: it lists the resources newest first, back to {@link CLOCK_SKEW_MS}
 *    before the first attempt, and keeps those whose fields equal the request exactly. One
 *    match: adopt it. None: the create did not happen; send it once more (same key) and, if that
 *    fails the same way, look again. Several: fail with an error naming them, since the provider
 *    cannot tell which one (if any) is its own.
 *
 * Kinds without a list (abuse reports) rely on the key alone: step 2 when the server honours
 * keys, else an error that says the report may or may not have been filed.
 *
 * The lookup never adopts an ID that this provider process has already created, adopted or been
 * handed by the engine (see {@link claimId}): the provider process serves every resource of one
 * deployment, so a stack with several resources of identical values cannot end with two of them
 * sharing one ID. What remains possible: a resource with identical values made by another
 * deployment (another stack, another process) inside the lookup window is indistinguishable from
 * the lost create's and can be adopted.
 *
 * Known limit: a create that timed out may still be running on the service; against a server
 * that ignores keys, a lookup that runs before it commits finds nothing, and the create sent
 * again then makes a second resource. The client's 30-second timeout makes that unlikely; a
 * server that honours keys rules it out.
 *
 * @packageDocumentation
 */
import { randomUUID } from "node:crypto";
import { APIConnectionError, APIError } from "../../sdk/errors";
import { isLostAnswer } from "../../sdk/retry";

/**
 * How far before the first attempt the lookup reaches, in **milliseconds**: room for clock skew
 * between this machine and the service, and for `created_at`'s whole seconds.
 */
export const CLOCK_SKEW_MS = 30_000;

/** What {@link createOnce} needs to know about one kind of resource. */
export interface CreateOnceSpec<T extends { id: string; createdAt: string }> {
  /** Kind in words, for messages, e.g. `event subscription`. */
  what: string;
  /** Sends the create with this `Idempotency-Key` (the same for every attempt). */
  create(idempotencyKey: string): Promise<T>;
  /** Every resource of the kind, newest first; absent for kinds without a list. */
  list?(): AsyncIterable<T>;
  /** True when `live` has exactly the values the create sent. Required with `list`. */
  matches?(live: T): boolean;
  /** What the client has seen of the server and `Idempotency-Key` (`ServiceClient.idempotency.honoured`). */
  keysHonoured(): boolean | undefined;
  /** Warning shown by `pulumi up` when the provider adopts or retries; default none. */
  warn?(message: string): Promise<void> | void;
  /** Clock in **milliseconds** since the Unix epoch (tests); default `Date.now`. */
  now?(): number;
}

/** IDs this provider process has created, adopted, or been given by the engine for a resource. */
const claimedIds = new Set<string>();

/**
 * Records that `id` belongs to a resource of this deployment (created, adopted, or passed in by
 * the engine to `diff`, `read`, `update` or `delete`), so that a lost create's lookup never
 * adopts it for another resource.
 */
export function claimId(id: string): void {
  if (typeof id === "string" && id !== "") claimedIds.add(id);
}

/** True when `id` was recorded by {@link claimId} in this provider process. */
export function isClaimed(id: string): boolean {
  return claimedIds.has(id);
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * True when a create that failed with `err` may nevertheless have taken effect: the client's
 * `maybeApplied` (an earlier attempt's answer was lost: e.g. a reset retried with an
 * `Idempotency-Key`, whatever the last attempt answered), or the error itself is a lost answer
 * (`isLostAnswer`: a reset or timeout after sending, a 502, 504 or 503 without `Retry-After`).
 */
export function maybeApplied(err: unknown): boolean {
  if (err instanceof APIError || err instanceof APIConnectionError)
    return err.maybeApplied || isLostAnswer(err);
  return false;
}

/**
 * Creates one resource and never leaves a duplicate or an orphan behind a create whose outcome
 * is unknown (see the module comment for the steps).
 *
 * @returns the created resource, or the one an earlier attempt had made.
 * @throws the create's own error when it surely made nothing (validation, 4xx, a refusal on the
 *   first and only attempt…); an Error naming the IDs when several resources match; an Error
 *   saying nothing was created when two creates failed and no match exists; for kinds without a
 *   list, an Error saying the outcome is unknown.
 */
export async function createOnce<T extends { id: string; createdAt: string }>(
  spec: CreateOnceSpec<T>,
): Promise<T> {
  const now = spec.now ?? Date.now;
  const key = randomUUID();
  const startedMs = now();
  /** The last error, once an attempt may have made the resource (until then, `undefined`). */
  let lost: unknown;
  const attempt = async (): Promise<{ ok: T } | undefined> => {
    try {
      const made = await spec.create(key);
      claimId(made.id);
      return { ok: made };
    } catch (err) {
      // Once an earlier attempt may have made it, no later failure says it does not exist.
      if (lost === undefined && !maybeApplied(err)) throw err;
      lost = err;
      return undefined;
    }
  };

  let result = await attempt();
  if (result) return result.ok;

  if (spec.keysHonoured() === true) {
    await spec.warn?.(
      `${spec.what}: the create failed and may have been made (${describe(lost)}); sending it again with the same Idempotency-Key, which the service honours`,
    );
    result = await attempt();
    if (result) return result.ok;
  }

  if (!spec.list || !spec.matches) {
    throw new Error(
      `${spec.what}: the create failed after reaching the service (${describe(lost)}), so it may or may not have been made. ` +
        `${spec.what}s cannot be listed, so the provider cannot look for it, and the service has not shown that it honours Idempotency-Key, ` +
        `so sending it again could make a second one. Check with the service before running pulumi up again.`,
    );
  }

  const since = startedMs - CLOCK_SKEW_MS;
  const lookFor = async (): Promise<T[]> => {
    const found: T[] = [];
    try {
      for await (const live of spec.list!()) {
        if (Date.parse(live.createdAt) < since) break;
        if (spec.matches!(live) && !isClaimed(live.id)) found.push(live);
      }
    } catch (err) {
      throw new Error(
        `${spec.what}: the create failed and may have been made (${describe(lost)}), and looking for it failed ` +
          `(${describe(err)}). Before running pulumi up again, look for a ${spec.what} with these values made since ` +
          `${new Date(since).toISOString()}: if there is one, delete it or adopt it with adoptId.`,
      );
    }
    return found;
  };

  for (let round = 1; ; round++) {
    const found = await lookFor();
    if (found.length === 1) {
      await spec.warn?.(
        `${spec.what}: the create failed and may have been made (${describe(lost)}); the service holds exactly one ${spec.what} with these values made since it started that no other resource of this deployment holds, ${found[0].id}: adopted it`,
      );
      claimId(found[0].id);
      return found[0];
    }
    if (found.length > 1) {
      throw new Error(
        `${spec.what}: the create failed and may have been made (${describe(lost)}), and ${found.length} ${spec.what}s made since ` +
          `${new Date(since).toISOString()} have exactly these values: ${found.map((f) => f.id).join(", ")}. ` +
          `The provider cannot tell which one (if any) this create made, so it adopts none. Delete the extra ones ` +
          `(or adopt one with adoptId) and run pulumi up again.`,
      );
    }
    if (round === 2) {
      throw new Error(
        `${spec.what}: the create failed twice (last: ${describe(lost)}), and the service holds no ${spec.what} ` +
          `with these values made since ${new Date(since).toISOString()}: nothing was created. Run pulumi up again.`,
      );
    }
    await spec.warn?.(
      `${spec.what}: the create failed and may have been made (${describe(lost)}), but the service holds no such ${spec.what}: sending it again`,
    );
    result = await attempt();
    if (result) return result.ok;
  }
}

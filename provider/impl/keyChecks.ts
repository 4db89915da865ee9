/**
 * What this provider's API key says about a resource of the state: the key stamp written into
 * its outputs ({@link stamped}), and whether a 404 counts as "gone" ({@link getUnlessGone},
 * {@link deleteUnlessGone}), which only the key (and the service) that made it may say
 * (keyStamp.ts derives and compares the stamps).
 *
 * @packageDocumentation
 */
import { KEY_STAMP, assertGoneForThisKey, isLegacyStamp, keyStamp, stampIn, stampMatches } from "./keyStamp";
import { getClient, isNotFound } from "./process/client";
import { setting } from "./process/settings";

/** A resource of the state, as the key-stamp checks name it: e.g. `event subscription sub_123`, and its outputs. */
export interface StateOf {
  what: string;
  props: unknown;
}

/**
 * This provider's API key.
 * @throws Error saying what to set when no key is configured (as {@link getClient}).
 */
function currentApiKey(): string {
  const apiKey = setting("apiKey");
  if (!apiKey) getClient(); // throws the missing-key error
  return apiKey!.value;
}

/**
 * The key stamp to write (keyStamp.ts): `s1.<salt>.<hash>`, this provider's API key derived with
 * scrypt and this process's salt. Derived once per process and key (tens of milliseconds), then kept.
 * @throws Error saying what to set when no key is configured (as {@link getClient}).
 */
export function currentKeyStamp(): string {
  return keyStamp(currentApiKey());
}

/**
 * Whether `stamp` (a state's {@link KEY_STAMP}, salted or of an earlier version) was derived from
 * this provider's API key: `true` when it was, `false` when from another key, `undefined` when
 * there is no stamp or it cannot be read. The one comparison every check of stamps uses; the
 * first stamp of each salt costs one scrypt derivation (kept for the others: keyStamp.ts
 * `stampMatches`).
 * @throws Error saying what to set when `stamp` is given and no key is configured (as {@link getClient}).
 */
export function isCurrentKeyStamp(stamp: string | undefined): boolean | undefined {
  if (stamp === undefined) return undefined;
  return stampMatches(stamp, currentApiKey());
}

/**
 * `outs` stamped with this provider's key ({@link KEY_STAMP}), as a create, an update, an
 * adoption or an import writes them. For a refresh, pass `refreshed`, the state's outputs: a
 * state written before stamps (outputs without one) keeps its shape, so an upgrade refreshes to no
 * change; a salted stamp of this key is kept as it is (no new salt, no churn in the state); a
 * stamp of an earlier version, or of another key (one rotated within the account: this key found
 * the resource), is replaced by {@link currentKeyStamp}.
 * @throws Error saying what to set when no key is configured (as {@link getClient}).
 */
export function stamped<T extends object>(outs: T, refreshed?: unknown): T {
  const earlier = refreshed as Record<string, unknown> | undefined;
  const stamp = stampIn(earlier);
  if (earlier && Object.keys(earlier).length > 0 && stamp === undefined) return outs;
  const kept = stamp !== undefined && !isLegacyStamp(stamp) && isCurrentKeyStamp(stamp) === true;
  return { ...outs, [KEY_STAMP]: kept ? stamp : currentKeyStamp() };
}

/** The stamps a 404 to this provider's key is judged by (keyStamp.ts `assertGoneForThisKey`). */
function stampCheck(state: StateOf) {
  const made = stampIn(state.props);
  return { made, madeIsCurrent: isCurrentKeyStamp(made), current: currentKeyStamp() };
}

/**
 * Runs a `get` for `read` (refresh): its result, or `undefined` when the service answers 404
 * (the resource was deleted outside Pulumi and leaves the state) to the key that made it.
 * @param state - the resource and its outputs: a 404 to another key than the one its stamp
 *   names is not taken for "gone" (see keyStamp.ts).
 * @throws Error naming both key stamps for a 404 to another key; any other client error, as is.
 */
export async function getUnlessGone<T>(get: () => Promise<T>, state?: StateOf): Promise<T | undefined> {
  try {
    return await get();
  } catch (err) {
    if (!isNotFound(err)) throw err;
    if (state) assertGoneForThisKey(state.what, "read", stampCheck(state));
    return undefined;
  }
}

/**
 * Runs a `delete`; a 404 (already gone) counts as deleted, but only when the provider deleting
 * is the one the resource was made through: the same service (`madeAt`, the resource's `uri` in
 * the state, `{base_url}/<collection>/<id>`, must lie below this provider's base URL) and the
 * same account (the state's key stamp, when it has one, is this provider's key's: keyStamp.ts).
 * Another service's or another key's 404 says nothing about the resource, so it is an error that
 * names both.
 * @param state - the resource and its outputs, for the key stamp.
 * @throws Error naming both services for a 404 from another service than the one in `madeAt`, or
 *   both key stamps for a 404 to another key; any other client error, as is.
 */
export async function deleteUnlessGone(
  del: () => Promise<unknown>,
  madeAt?: unknown,
  state?: StateOf,
): Promise<void> {
  try {
    await del();
  } catch (err) {
    if (!isNotFound(err)) throw err;
    const here = getClient().baseUrl;
    if (typeof madeAt === "string" && madeAt !== "" && !madeAt.startsWith(`${here}/`)) {
      throw new Error(
        `${madeAt} was made at another service than this provider's (${here}), which answers 404 for it: ` +
          "it cannot be counted as deleted. Delete it through a provider configured for the service that " +
          "made it, or remove it from the stack with `pulumi state delete` if it is gone.",
        { cause: err },
      );
    }
    if (state) assertGoneForThisKey(state.what, "delete", stampCheck(state));
  }
}

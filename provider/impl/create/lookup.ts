/**
 * Looking for what a create may have made: the kind listed newest first back to a time
 * ({@link listSince}: the client retries each page; a listing cut short anyway starts again from
 * the newest, a given number of times, before the caller gives up), and the lost create's lookup
 * ({@link lookup}: alone among its kind's creates, it keeps the unclaimed matches and claims what
 * it adopts in the same step; {@link listingLookup} is the protocol's service). Used by the create-once protocol (createOnce.ts), recovery adoption
 * (recoveryAdoption.ts) and a placeholder's settlement (placeholderSettlement.ts).
 *
 * @packageDocumentation
 */
import type { LookingCreate, Lookup, LookupOutcome } from "./createOnceSpec";
import { LISTINGS } from "./lostAnswer";
import { lookupFailedError } from "./lostCreateMessages";

/**
 * How long a listing cut short waits before it starts again, in **milliseconds**, times the
 * listings made so far (250, 500, 750…): room for a service that failed several pages in a row
 * (each already retried by the client) to recover.
 */
export const RELIST_PAUSE_MS = 250;

/**
 * The resources of `list()` made at or after `sinceMs` (**milliseconds** since the Unix epoch;
 * a function is asked once per listing, when its first resource has arrived: after the first
 * page's answer) that `keep` accepts, newest first; the listing stops at the first older one. A
 * listing that throws is started again after a pause ({@link RELIST_PAUSE_MS} times the listings
 * so far), `listings` times in all.
 *
 * @throws the Error `fail` makes of the last listing's error, after `listings` failed listings.
 */
export async function listSince<T extends { createdAt: string }>(
  list: () => AsyncIterable<T>,
  sinceMs: number | (() => number),
  keep: (live: T) => boolean,
  listings: number,
  fail: (err: unknown) => Error,
): Promise<T[]> {
  const windowStart = typeof sinceMs === "number" ? () => sinceMs : sinceMs;
  for (let listing = 1; ; listing++) {
    try {
      const found: T[] = [];
      let from: number | undefined;
      for await (const live of list()) {
        from ??= windowStart();
        if (Date.parse(live.createdAt) < from) break;
        if (keep(live)) found.push(live);
      }
      return found;
    } catch (err) {
      if (listing >= listings) throw fail(err);
      await new Promise((resolve) => setTimeout(resolve, RELIST_PAUSE_MS * listing));
    }
  }
}

/**
 * The lookup: once every create of the kind in flight has settled, and alone, lists the kind
 * newest first back to `c.since`, keeps what `matches` the request and no resource of the
 * deployment holds, and claims what it adopts before anything else of the kind runs.
 *
 * @throws Error saying what to look for when the listing failed {@link LISTINGS} times.
 */
export async function lookup<T extends { id: string; createdAt: string }>(
  c: LookingCreate,
  list: () => AsyncIterable<T>,
  matches: (live: T) => boolean,
): Promise<LookupOutcome<T>> {
  await c.gate.enterLookup();
  try {
    const found = await listUnclaimedMatches(c, list, matches);
    return claimWhatItAdopts(c, found);
  } finally {
    c.gate.leaveLookup();
  }
}

/** The lookup of {@link lookup} as the create-once protocol calls it (its default `finder`). */
export const listingLookup: Lookup = { lookup };

/**
 * The kind's resources made since `c.since` that `matches` accepts and no resource of the
 * deployment holds, newest first. The client has retried each page already; a listing cut short
 * starts again from the newest, {@link LISTINGS} times in all.
 *
 * @throws Error saying the create may have been made and what to look for, after the last failed listing.
 */
async function listUnclaimedMatches<T extends { id: string; createdAt: string }>(
  c: LookingCreate,
  list: () => AsyncIterable<T>,
  matches: (live: T) => boolean,
): Promise<T[]> {
  const { store } = c;
  // Taken once the first page has answered (its Date tells the service's clock, if nothing did before).
  let since: number | undefined;
  const from = (): number => (since ??= c.since());
  try {
    return await listSince(
      list,
      from,
      (live) => matches(live) && !store.isClaimed(live.id),
      LISTINGS,
      (err) => lookupFailedError(c, LISTINGS, err, from()),
    );
  } finally {
    c.lookedSince = from();
  }
}

/**
 * Decides, in one step with nothing awaited, what the lookup's `found` (unclaimed matches, newest
 * first) gives this create. A waiting twin whose request differs (a write-only secret): every
 * match is claimed for no one (`unlike`). More matches than the creates of those values waiting
 * (this one included): none adopted. Otherwise the first match not yet claimed is claimed and
 * adopted, and the create stops waiting.
 */
function claimWhatItAdopts<T extends { id: string; createdAt: string }>(
  c: LookingCreate,
  found: T[],
): LookupOutcome<T> {
  if (found.length === 0) return { found };
  const twins = c.gate.waiting.twinsOf(c.me, found[0]);
  if (twins.some((w) => !w.sameRequest)) {
    // Whose they are cannot be told: no create of this deployment may take them now.
    for (const f of found) c.store.claim(f.id);
    return { found, unlike: true };
  }
  if (found.length > twins.length) return { found };
  // Claimed here, before the lookup lets the kind go on; tryClaim guards the rule itself.
  const adopted = found.find((f) => c.store.tryClaim(f.id));
  if (!adopted) return { found: [] };
  c.gate.waiting.delete(c.me);
  return { adopted, found };
}

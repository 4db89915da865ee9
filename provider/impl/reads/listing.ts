/**
 * Listing a kind newest first, as the ambiguous-create lookup and recovery adoption both do: the
 * client retries each page; a listing cut short anyway starts again from the newest, a given
 * number of times, before the caller gives up.
 *
 * @packageDocumentation
 */

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

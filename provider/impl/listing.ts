/**
 * Listing a kind newest first, as the ambiguous-create lookup and recovery adoption both do: the
 * client retries each page; a listing cut short anyway starts again from the newest, a given
 * number of times, before the caller gives up.
 *
 * @packageDocumentation
 */

/**
 * The resources of `list()` made at or after `sinceMs` (**milliseconds** since the Unix epoch)
 * that `keep` accepts, newest first; the listing stops at the first older one. A listing that
 * throws is started again, `listings` times in all.
 *
 * @throws the Error `fail` makes of the last listing's error, after `listings` failed listings.
 */
export async function listSince<T extends { createdAt: string }>(
  list: () => AsyncIterable<T>,
  sinceMs: number,
  keep: (live: T) => boolean,
  listings: number,
  fail: (err: unknown) => Error,
): Promise<T[]> {
  for (let listing = 1; ; listing++) {
    try {
      const found: T[] = [];
      for await (const live of list()) {
        if (Date.parse(live.createdAt) < sinceMs) break;
        if (keep(live)) found.push(live);
      }
      return found;
    } catch (err) {
      if (listing >= listings) throw fail(err);
    }
  }
}

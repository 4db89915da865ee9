/**
 * The listing and the account boundary every resource table shares
 * (packages/emulator/store/resourceTable.ts), through the event destinations' table: pages newest
 * first whose boundaries neither skip nor repeat a resource, `hasMore` exactly when older ones
 * remain, and one account's resources invisible to another's every read, update and delete.
 */
import type { Store } from "../../../packages/emulator/store";
import { storedDestination, withMemoryStore } from "../../helpers/emulator-fixtures";

/**
 * Every destination of `accountId`, page after page of `limit`, with each page's `hasMore`; at
 * most `maxPages` pages (a listing that never ends fails the test instead of hanging it).
 */
function allPages(store: Store, accountId: string, limit: number, maxPages = 20) {
  const ids: string[] = [];
  const hasMore: boolean[] = [];
  let beforeId: string | undefined;
  while (hasMore.length < maxPages) {
    const page = store.listDestinations(accountId, { limit, beforeId });
    ids.push(...page.items.map((d) => d.id));
    hasMore.push(page.hasMore);
    if (!page.hasMore) return { ids, hasMore };
    beforeId = page.items[page.items.length - 1].id;
  }
  return { ids, hasMore };
}

describe("resource tables: pages and accounts", () => {
  it("pages newest first without skipping or repeating at any boundary, hasMore exactly while older ones remain", () => {
    withMemoryStore((store) => {
      const acct = store.registerAccount("a".repeat(64), false);
      const made = Array.from({ length: 7 }, (_, i) =>
        store.createDestination(acct.id, storedDestination({ description: `d${i}` })),
      );
      const newestFirst = made.map((d) => d.id).reverse();
      for (const limit of [1, 2, 3, 6, 7, 8]) {
        const { ids, hasMore } = allPages(store, acct.id, limit);
        expect(ids).toEqual(newestFirst);
        const pages = Math.max(1, Math.ceil(made.length / limit));
        expect(hasMore).toEqual([...Array<boolean>(pages - 1).fill(true), false]);
      }
    });
  });

  it("keeps each account's resources to it: another account's key lists, reads, updates and deletes none of them", () => {
    withMemoryStore((store) => {
      const mine = store.registerAccount("m".repeat(64), false);
      const theirs = store.registerAccount("t".repeat(64), false);
      const d = store.createDestination(mine.id, storedDestination({ description: "mine" }));
      expect(store.listDestinations(theirs.id, { limit: 100 })).toEqual({ items: [], hasMore: false });
      expect(store.getDestination(theirs.id, d.id)).toBeUndefined();
      expect(() => store.updateDestination(theirs.id, d.id, { description: "taken" })).toThrow(d.id);
      expect(() => store.deleteDestination(theirs.id, d.id)).toThrow(d.id);
      // Nothing of it changed for its own account.
      expect(store.getDestination(mine.id, d.id)).toEqual(d);
      expect(store.listDestinations(mine.id, { limit: 100 }).items).toEqual([d]);
    });
  });
});

/**
 * Listing a kind newest first back to a time (provider/impl/create/lookup.ts `listSince`), as a
 * lost create's lookup, recovery adoption and a placeholder's settlement do: the listing stops at
 * the first resource older than the window, asks for the window's start only once the first
 * resource has arrived, and a listing cut short starts again from the newest, a given number of
 * times, before the caller's error is thrown. The protocol reaches its lookup as a service (a
 * spec's `finder`, `listingLookup` by default). (The lookup's claims and twins: createOnce.test.ts.)
 */
import { APIConnectionError } from "../../../../client";
import { ClaimRegistry, createOnce, type Lookup } from "../../../../provider/impl/create/createOnce";
import { RELIST_PAUSE_MS, listSince } from "../../../../provider/impl/create/lookup";

type R = { id: string; createdAt: string };

const at = (id: string, iso: string): R => ({ id, createdAt: iso });
const NEWEST_FIRST = [
  at("r_3", "2026-11-29T10:00:03Z"),
  at("r_2", "2026-11-29T10:00:02Z"),
  at("r_1", "2026-11-29T10:00:01Z"),
  at("r_0", "2026-11-29T10:00:00Z"),
];

/** A listing of `items` newest first that counts how far it was read. */
function listing(items: R[], failFirst = 0) {
  const seen = { listings: 0, read: 0 };
  const list = async function* (): AsyncIterable<R> {
    seen.listings++;
    if (seen.listings <= failFirst) throw new Error(`page failed (${seen.listings})`);
    for (const item of items) {
      seen.read++;
      yield item;
    }
  };
  return { list, seen };
}

describe("listSince", () => {
  it("keeps what `keep` accepts, newest first, and stops reading at the first resource older than the window", async () => {
    const { list, seen } = listing(NEWEST_FIRST);
    const found = await listSince(
      list,
      Date.parse("2026-11-29T10:00:02Z"),
      (r) => r.id !== "r_3",
      5,
      () => new Error("x"),
    );
    expect(found.map((r) => r.id)).toEqual(["r_2"]);
    expect(seen.read).toBe(3); // r_1 is read, found older, and ends the listing: r_0 is never read
  });

  it("asks for the window's start once, after the first resource has arrived", async () => {
    const { list } = listing(NEWEST_FIRST);
    const asked: number[] = [];
    const found = await listSince(
      list,
      () => {
        asked.push(asked.length);
        return Date.parse("2026-11-29T10:00:01Z");
      },
      () => true,
      5,
      () => new Error("x"),
    );
    expect(found.map((r) => r.id)).toEqual(["r_3", "r_2", "r_1"]);
    expect(asked).toEqual([0]);
  });

  it("lists again after a listing cut short, pausing longer each time, and gives up with the caller's error after the last", async () => {
    const again = listing(NEWEST_FIRST, 2);
    const started = Date.now();
    expect(
      await listSince(
        again.list,
        0,
        () => true,
        3,
        () => new Error("gave up"),
      ),
    ).toHaveLength(4);
    expect(again.seen.listings).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(RELIST_PAUSE_MS * (1 + 2) - 20);

    const never = listing(NEWEST_FIRST, 99);
    await expect(
      listSince(
        never.list,
        0,
        () => true,
        2,
        (err) => new Error(`gave up after: ${(err as Error).message}`),
      ),
    ).rejects.toThrow("gave up after: page failed (2)");
    expect(never.seen.listings).toBe(2);
  });
});

describe("the lookup as the protocol's service", () => {
  const lost = () => new APIConnectionError("POST /things: socket hang up", { request: "POST /things" });

  it("a lost answer is looked up through the spec's finder, whose adoption is the create's result", async () => {
    const asked: string[] = [];
    const finder: Lookup = {
      async lookup<T extends { id: string; createdAt: string }>(
        c: Parameters<Lookup["lookup"]>[0],
        list: () => AsyncIterable<T>,
        matches: (live: T) => boolean,
      ) {
        asked.push(c.what);
        const found: T[] = [];
        for await (const live of list()) if (matches(live)) found.push(live);
        c.store.tryClaim(found[0].id);
        return { adopted: found[0], found };
      },
    };
    let sends = 0;
    const made = await createOnce<R>({
      what: "thing",
      create: async () => {
        sends++;
        throw lost();
      },
      list: async function* () {
        yield* NEWEST_FIRST;
      },
      matches: (live) => live.id === "r_1",
      keysHonoured: () => false,
      registry: new ClaimRegistry(),
      finder,
    });
    expect({ made: made.id, asked, sends }).toEqual({ made: "r_1", asked: ["thing"], sends: 1 });
  });

  it("without a finder, the protocol lists the kind itself (listingLookup) and adopts the one match", async () => {
    const registry = new ClaimRegistry();
    const { list, seen } = listing(NEWEST_FIRST);
    const made = await createOnce<R>({
      what: "thing",
      create: async () => {
        throw lost();
      },
      list,
      matches: (live) => live.id === "r_2",
      keysHonoured: () => false,
      registry,
      now: () => Date.parse("2026-11-29T10:00:01Z"),
    });
    expect(made.id).toBe("r_2");
    expect(registry.isClaimed("r_2")).toBe(true);
    expect(seen.listings).toBe(1);
  });
});

it("matches another process claims between the listing and the claim are no match: the create is sent again, not refused as ambiguous", async () => {
  const registry = new ClaimRegistry();
  // Two creates of these values wait (this one and a twin), so two matches may be adopted.
  jest
    .spyOn(registry.gate("thing").waiting, "twinsOf")
    .mockReturnValue([{ sameRequest: true }, { sameRequest: true }]);
  // Each match is claimed by the time this lookup claims it.
  const tryClaim = registry.tryClaim.bind(registry);
  jest.spyOn(registry, "tryClaim").mockImplementation((id) => !["r_1", "r_2"].includes(id) && tryClaim(id));
  const { list } = listing(NEWEST_FIRST.slice(1, 3));
  const warnings: string[] = [];
  let sends = 0;
  const made = await createOnce<R>({
    what: "thing",
    create: async () => {
      if (++sends === 1)
        throw new APIConnectionError("POST /things: socket hang up", { request: "POST /things" });
      return at("r_9", "2026-11-29T10:00:09Z");
    },
    list,
    matches: () => true,
    keysHonoured: () => false,
    registry,
    now: () => Date.parse("2026-11-29T10:00:01Z"),
    warn: async (m) => void warnings.push(m),
  });
  expect({ made: made.id, sends }).toEqual({ made: "r_9", sends: 2 });
  expect(warnings).toHaveLength(1);
});

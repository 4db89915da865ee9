/**
 * Reads that scale (provider/impl/reads/listReads.ts): many reads of one kind are answered from its
 * list endpoint, page by page, few with single GETs; a resource the listing does not hold is
 * re-checked with a GET (gone on a 404 to the key that made it, an error for another key's), a
 * destination's write-only secrets are kept, and a write of this process drops the listing.
 * Through the providers' `read` (eventSubscription.ts, eventDestination.ts) against the emulator,
 * counting the requests it logs, by method and route.
 */
import { ServiceClient } from "../../../../client";
import type { EventSubscription } from "../../../../client";
import * as eventDestination from "../../../../provider/impl/eventDestination";
import * as eventSubscription from "../../../../provider/impl/eventSubscription";
import type { DestinationOutputs } from "../../../../provider/impl/eventDestination";
import type { SubscriptionOutputs } from "../../../../provider/impl/eventSubscription";
import { keyStamp, shortStamp } from "../../../../provider/impl/keyStamp";
import {
  COALESCE_MAX_MS,
  COALESCE_WINDOW_MS,
  EXPECTED_READS_ENV,
  LISTING_LIFETIME_MS,
  LIST_FROM_READS,
  announcedReads,
  forgetListings,
  readThroughListing,
  whileWriting,
  type ListableKind,
} from "../../../../provider/impl/reads/listReads";
import * as runtime from "../../../../provider/impl/runtime";
import { getRequestLog, startEmulator, type RunningEmulator } from "../../../helpers/emulator";

const KEY_A = "sk_listreads_account_a_0123456789";
const KEY_B = "sk_listreads_account_b_9876543210";
const KEY_BIG = "sk_listreads_account_big_5555555";
const KEY_GRID = "sk_listreads_account_grid_777777";

let emulator: RunningEmulator;
let clientA: ServiceClient;
let destinationId: string;
/** The subscriptions of account A made in `beforeAll`, oldest first, with their outputs as a create writes them. */
const subs: { id: string; outs: SubscriptionOutputs }[] = [];
/** The emulator's last request log entry seen by {@link requestsOf}. */
let since = 0;

const useKey = (apiKey: string) =>
  runtime.configure({
    config: { get: (k: string) => ({ "service:apiKey": apiKey, "service:baseUrl": emulator.url })[k] },
  });

/** The requests the emulator answered since the last call, as `METHOD /route` (IDs as `{id}`, query dropped). */
async function requestsOf(): Promise<string[]> {
  const { requests } = await getRequestLog(emulator.url, emulator.adminKey, since);
  if (requests.length > 0) since = requests[requests.length - 1].seq;
  return requests.map((r) => `${r.method} ${r.path.split("?")[0].replace(/\/(esb|ed)_[^/]+$/, "/{id}")}`);
}

/** The newest of {@link subs} (on the listing's first page). */
const newest = (count: number) => subs.slice(-count);

/** `requests` in a fixed order: requests sent concurrently reach the emulator in any order. */
const sorted = (requests: string[]) => [...requests].sort();

/** The same request `count` times. */
const times = (count: number, request: string) => Array.from({ length: count }, () => request);

/** The outputs the provider writes for `sub` (as a create does), with this test's key stamp. */
async function made(description: string): Promise<{ id: string; outs: SubscriptionOutputs }> {
  const { id, outs } = await eventSubscription.create({
    description,
    sources: [{ type: "ip_policy_created.v0" }],
    destinationIds: [destinationId],
  });
  return { id, outs: outs as SubscriptionOutputs };
}

/** What a read answered before listings: the live subscription through the provider's own outputs. */
function expectedRead(live: EventSubscription, outs: SubscriptionOutputs) {
  const fresh = eventSubscription.toOutputs(live);
  const props = { ...fresh, __keyStamp: (outs as unknown as Record<string, unknown>).__keyStamp };
  return { id: live.id, props, inputs: eventSubscription.toInputs(fresh) };
}

beforeAll(async () => {
  emulator = await startEmulator({ apiKeys: [KEY_A, KEY_B, KEY_BIG, KEY_GRID] });
  clientA = new ServiceClient({ apiKey: KEY_A, baseUrl: emulator.url });
  await useKey(KEY_A);
  destinationId = (await clientA.eventDestinations.create({ target: { datadog: { apiKey: "dd-list-key" } } }))
    .id;
  for (let i = 0; i < 120; i++) subs.push(await made(`listed ${i}`));
}, 60_000);

afterAll(async () => {
  delete process.env[EXPECTED_READS_ENV];
  await runtime.configure({ config: { get: () => undefined } });
  await clientA?.close();
  await emulator?.close();
});

beforeEach(async () => {
  forgetListings();
  await useKey(KEY_A);
  await requestsOf();
});

describe("many reads of one kind", () => {
  it("120 reads together cost 2 list requests (100 a page), not 120 GETs, with the same results as GETs", async () => {
    const reads = await Promise.all(subs.map((s) => eventSubscription.read(s.id, s.outs)));
    expect(await requestsOf()).toEqual(times(2, "GET /event_subscriptions"));
    for (const [i, s] of subs.entries()) {
      expect(reads[i]).toEqual(expectedRead(await clientA.eventSubscriptions.get(s.id), s.outs));
    }
  });

  it("a list item has exactly the parsed shape of a GET's answer, for both kinds", async () => {
    const [listed] = (await clientA.eventSubscriptions.pages({ limit: 1 })[Symbol.asyncIterator]().next())
      .value!.items;
    expect(listed).toEqual(await clientA.eventSubscriptions.get(listed.id));
    const [dest] = (await clientA.eventDestinations.pages({ limit: 1 })[Symbol.asyncIterator]().next()).value!
      .items;
    expect(dest).toEqual(await clientA.eventDestinations.get(dest.id));
  });

  it(`reads one at a time send single GETs until ${LIST_FROM_READS} have been seen, then one listing answers the rest`, async () => {
    for (const s of newest(10)) await eventSubscription.read(s.id, s.outs);
    expect(await requestsOf()).toEqual([
      ...times(LIST_FROM_READS - 1, "GET /event_subscriptions/{id}"),
      "GET /event_subscriptions",
    ]);
  });

  it(`fewer than ${LIST_FROM_READS} reads together keep single GETs (a small refresh lists nothing)`, async () => {
    await Promise.all(newest(LIST_FROM_READS - 1).map((s) => eventSubscription.read(s.id, s.outs)));
    expect(await requestsOf()).toEqual(times(LIST_FROM_READS - 1, "GET /event_subscriptions/{id}"));
    forgetListings();
    await Promise.all(newest(LIST_FROM_READS).map((s) => eventSubscription.read(s.id, s.outs)));
    expect(await requestsOf()).toEqual(["GET /event_subscriptions"]);
  });

  it("service-drift's announcement lists from the first read, and pages as far as the reads announced, with no GET", async () => {
    process.env[EXPECTED_READS_ENV] = JSON.stringify({ esb_: 10 });
    try {
      for (const s of subs.slice(0, 10)) await eventSubscription.read(s.id, s.outs);
    } finally {
      delete process.env[EXPECTED_READS_ENV];
    }
    // The 10 oldest, read one at a time, are on the second page.
    expect(await requestsOf()).toEqual(times(2, "GET /event_subscriptions"));
    expect(announcedReads("esb_", { [EXPECTED_READS_ENV]: '{"esb_":7,"ed_":1}' })).toBe(7);
    expect(announcedReads("ed_", { [EXPECTED_READS_ENV]: "not json" })).toBe(0);
  });
});

describe("what a listing does not hold is re-checked with a GET", () => {
  it("a subscription deleted out of band is reported gone after its GET's 404, the others read from the listing", async () => {
    // A second later than the other subscriptions (createdAt has whole seconds), so that the
    // first page ends before its creation.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const gone = await made("deleted out of band");
    const kept = await Promise.all([1, 2, 3, 4].map((i) => made(`kept ${i}`)));
    await clientA.eventSubscriptions.delete(gone.id);
    await requestsOf();
    const reads = await Promise.all([gone, ...kept].map((s) => eventSubscription.read(s.id, s.outs)));
    expect(reads[0]).toEqual({});
    for (const [i, s] of kept.entries()) expect(reads[i + 1].id).toBe(s.id);
    // The listing passes the deleted one's creation time on its first page: no page after it.
    expect(await requestsOf()).toEqual(["GET /event_subscriptions", "GET /event_subscriptions/{id}"]);
  });

  it("one made with another account's key still fails as before: the listing does not hold it, the GET's 404 is not taken for gone", async () => {
    await useKey(KEY_B);
    const reads = await Promise.allSettled(subs.slice(0, 5).map((s) => eventSubscription.read(s.id, s.outs)));
    for (const [i, r] of reads.entries()) {
      expect(r.status).toBe("rejected");
      expect(String((r as PromiseRejectedResult).reason)).toContain(
        `event subscription ${subs[i].id} was made with another service API key (key stamp ${shortStamp(keyStamp(KEY_A))}) ` +
          `than this provider's (key stamp ${shortStamp(keyStamp(KEY_B))})`,
      );
    }
    expect(await requestsOf()).toEqual([
      "GET /event_subscriptions",
      ...times(5, "GET /event_subscriptions/{id}"),
    ]);
  });

  it("in an account with 400 newer subscriptions, 4 reads of older ones send at most 4 pages, then 4 GETs", async () => {
    const big = new ServiceClient({ apiKey: KEY_BIG, baseUrl: emulator.url });
    try {
      await useKey(KEY_BIG);
      const dest = (await big.eventDestinations.create({ target: { datadog: { apiKey: "dd" } } })).id;
      const news = { sources: [{ type: "ip_policy_created.v0" }], destinationIds: [dest] };
      const old = [];
      for (let i = 0; i < 4; i++)
        old.push(await eventSubscription.create({ ...news, description: `old ${i}` }));
      for (let i = 0; i < 400; i++)
        await big.eventSubscriptions.create({ ...news, description: `newer ${i}` });
      forgetListings();
      await requestsOf();
      const reads = await Promise.all(
        old.map((s) => eventSubscription.read(s.id, s.outs as SubscriptionOutputs)),
      );
      expect(reads.map((r) => r.id)).toEqual(old.map((s) => s.id));
      expect(sorted(await requestsOf())).toEqual([
        ...times(4, "GET /event_subscriptions"),
        ...times(4, "GET /event_subscriptions/{id}"),
      ]);
    } finally {
      await big.close();
    }
  }, 60_000);
});

describe("the crossover: requests of k reads together in an account of 250 subscriptions", () => {
  let grid: { id: string; outs: SubscriptionOutputs }[];

  beforeAll(async () => {
    const client = new ServiceClient({ apiKey: KEY_GRID, baseUrl: emulator.url });
    try {
      await useKey(KEY_GRID);
      const dest = (await client.eventDestinations.create({ target: { datadog: { apiKey: "dd" } } })).id;
      grid = [];
      for (let i = 0; i < 250; i++) {
        const { id, outs } = await eventSubscription.create({
          description: `grid ${i}`,
          sources: [{ type: "ip_policy_created.v0" }],
          destinationIds: [dest],
        });
        grid.push({ id, outs: outs as SubscriptionOutputs });
      }
    } finally {
      await client.close();
    }
  }, 60_000);

  // The newest k are on the first page; the oldest k on the third (100 a page, newest first).
  it.each<[number, "newest" | "oldest", string[]]>([
    [1, "newest", ["GET /event_subscriptions/{id}"]],
    [3, "newest", times(3, "GET /event_subscriptions/{id}")],
    [4, "newest", ["GET /event_subscriptions"]],
    [10, "newest", ["GET /event_subscriptions"]],
    [3, "oldest", times(3, "GET /event_subscriptions/{id}")],
    [4, "oldest", times(3, "GET /event_subscriptions")],
    [10, "oldest", times(3, "GET /event_subscriptions")],
  ])("%i reads of the %s", async (k, which, expected) => {
    await useKey(KEY_GRID);
    forgetListings();
    await requestsOf();
    const some = which === "newest" ? grid.slice(-k) : grid.slice(0, k);
    const reads = await Promise.all(some.map((s) => eventSubscription.read(s.id, s.outs)));
    expect(reads.map((r) => r.id)).toEqual(some.map((s) => s.id));
    expect(sorted(await requestsOf())).toEqual(expected);
  });
});

describe("secrets and freshness", () => {
  it("destinations read from the listing keep the write-only secrets of their state", async () => {
    const made = await Promise.all(
      [1, 2, 3, 4, 5].map((i) =>
        eventDestination.create({
          description: `secret ${i}`,
          target: { datadog: { apiKey: `dd-secret-${i}` } },
        }),
      ),
    );
    forgetListings();
    await requestsOf();
    const reads = await Promise.all(
      made.map((d) => eventDestination.read(d.id, d.outs as DestinationOutputs)),
    );
    expect(await requestsOf()).toEqual(["GET /event_destinations"]);
    for (const [i, r] of reads.entries()) {
      expect((r.props as DestinationOutputs).target).toEqual({
        datadog: { apiKey: `dd-secret-${i + 1}`, ddtags: "", service: "", ddsite: "" },
      });
      expect(r.props).toEqual(made[i].outs);
    }
  });

  it("an update by this process drops the listing: a read after it sees the new value", async () => {
    const some = newest(5);
    await Promise.all(some.map((s) => eventSubscription.read(s.id, s.outs)));
    const news = { ...eventSubscription.toInputs(some[0].outs), description: "updated through the provider" };
    await eventSubscription.update(some[0].id, some[0].outs, news);
    const after = await Promise.all(some.map((s) => eventSubscription.read(s.id, s.outs)));
    expect((after[0].props as SubscriptionOutputs).description).toBe("updated through the provider");
    expect(await requestsOf()).toEqual([
      "GET /event_subscriptions",
      "PATCH /event_subscriptions/{id}",
      "GET /event_subscriptions",
    ]);
    await eventSubscription.update(some[0].id, some[0].outs, eventSubscription.toInputs(some[0].outs));
  });

  it("a change made elsewhere is seen once the listing expires", async () => {
    const some = newest(10).slice(0, 5);
    await Promise.all(some.map((s) => eventSubscription.read(s.id, s.outs)));
    await clientA.eventSubscriptions.update(some[0].id, { description: "changed elsewhere" });
    const within = await eventSubscription.read(some[0].id, some[0].outs);
    expect((within.props as SubscriptionOutputs).description).toBe(some[0].outs.description);
    const realNow = Date.now;
    const spy = jest.spyOn(Date, "now").mockImplementation(() => realNow() + LISTING_LIFETIME_MS + 1);
    try {
      const after = await Promise.all(some.map((s) => eventSubscription.read(s.id, s.outs)));
      expect((after[0].props as SubscriptionOutputs).description).toBe("changed elsewhere");
    } finally {
      spy.mockRestore();
    }
    expect(await requestsOf()).toEqual([
      "GET /event_subscriptions",
      "PATCH /event_subscriptions/{id}",
      "GET /event_subscriptions",
    ]);
    await clientA.eventSubscriptions.update(some[0].id, { description: some[0].outs.description });
  });
});

/** A resource of {@link fakeKind}. */
interface Thing {
  id: string;
  createdAt: string;
}

/** `count` things, newest first, created a second apart. */
const things = (count: number): Thing[] =>
  Array.from({ length: count }, (_, i) => ({
    id: `fk_${i}`,
    createdAt: new Date(Date.UTC(2026, 0, 1) - i * 1_000).toISOString(),
  }));

/**
 * A kind served from memory, `perPage` things a page (newest first), each page request taking
 * `delayMs` (fake clock) and failing when `fail`; the last page says `nextPageUri: null` unless
 * `endsWithoutNull` (then the pages just end). `log` counts page requests and lists the GETs'
 * IDs, sorted (concurrent reads send them in any order).
 */
function fakeKind(
  all: Thing[],
  o: { perPage?: number; delayMs?: number; fail?: boolean; endsWithoutNull?: boolean } = {},
) {
  const perPage = o.perPage ?? 100;
  const log = { pages: 0, gets: [] as string[] };
  const kind: ListableKind<Thing> = {
    what: "fake thing",
    idPrefix: "fk_",
    pages: () => ({
      [Symbol.asyncIterator]: () => {
        let index = 0;
        return {
          async next(): Promise<IteratorResult<{ items: Thing[]; nextPageUri: string | null }>> {
            log.pages++;
            if (o.delayMs) await new Promise((resolve) => setTimeout(resolve, o.delayMs));
            if (o.fail) throw new Error("503 on the list");
            if (index >= all.length) return { done: true, value: undefined };
            const items = all.slice(index, (index += perPage));
            const last = index >= all.length && !o.endsWithoutNull;
            return { done: false, value: { items, nextPageUri: last ? null : `/things?page=${index}` } };
          },
        };
      },
    }),
    async get(id) {
      log.gets.push(id);
      log.gets.sort();
      const hit = all.find((t) => t.id === id);
      if (!hit) throw new Error(`404 ${id}`);
      return { ...hit };
    },
  };
  return { kind, log };
}

describe("when reads are answered (fake clock, a kind served from memory)", () => {
  const START = Date.UTC(2026, 5, 1);
  const all = things(10);

  /** A read of `id`, recording when (ms after START) it settled and with what. */
  function read(kind: ListableKind<Thing>, id: string) {
    const r: { at?: number; value?: Thing; error?: unknown } = {};
    readThroughListing(kind, id).then(
      (value) => Object.assign(r, { at: Date.now() - START, value }),
      (error) => Object.assign(r, { at: Date.now() - START, error }),
    );
    return r;
  }
  /** Moves the fake clock to `ms` after START, running what falls due. */
  const until = (ms: number) => jest.advanceTimersByTimeAsync(START + ms - Date.now());

  beforeEach(() => {
    jest.useFakeTimers({ now: START });
  });
  afterEach(() => {
    jest.useRealTimers();
    delete process.env.SERVICE_EXPECTED_READS;
  });

  it(`the ${LIST_FROM_READS}th read starts the listing at once and the waiting reads are answered with it`, async () => {
    const { kind, log } = fakeKind(all);
    const reads = [0, 1, 2, 3].map((i) => read(kind, all[i].id));
    await until(0);
    expect(reads.map((r) => [r.at, r.value])).toEqual([0, 1, 2, 3].map((i) => [0, all[i]]));
    expect(reads[0].value).not.toBe(all[0]);
    expect(log).toEqual({ pages: 1, gets: [] });
  });

  it(`fewer reads wait until none has come for ${COALESCE_WINDOW_MS} ms, then GET; a later burst waits again`, async () => {
    const { kind, log } = fakeKind(all);
    const reads = [read(kind, all[0].id)];
    await until(10);
    reads.push(read(kind, all[1].id));
    await until(15);
    reads.push(read(kind, all[2].id));
    await until(200);
    expect(reads.map((r) => [r.at, r.value])).toEqual(
      [0, 1, 2].map((i) => [15 + COALESCE_WINDOW_MS, all[i]]),
    );
    // Once the first three are older than LISTING_LIFETIME_MS, a read waits for a window again.
    await until(11_000);
    const later = read(kind, all[3].id);
    await until(11_200);
    expect(later.at).toBe(11_000 + COALESCE_WINDOW_MS);
    expect(log).toEqual({ pages: 0, gets: [0, 1, 2, 3].map((i) => all[i].id) });
  });

  it(`the window closes ${COALESCE_MAX_MS} ms after it opened while reads keep coming; reads during a write GET`, async () => {
    const { kind, log } = fakeKind(all);
    const waiting = [0, 1, 2].map((i) => read(kind, all[i].id));
    let endWrite!: () => void;
    const write = whileWriting(() => new Promise<string>((resolve) => (endWrite = () => resolve("written"))));
    const during = [];
    for (let ms = 10; ms <= 150; ms += 10) {
      await until(ms);
      during.push(read(kind, all[3].id));
    }
    await until(160);
    expect(waiting.map((r) => r.at)).toEqual([COALESCE_MAX_MS, COALESCE_MAX_MS, COALESCE_MAX_MS]);
    expect(during.map((r) => r.at)).toEqual(Array.from({ length: 15 }, (_, i) => 10 * (i + 1)));
    expect(log.pages).toBe(0);
    endWrite();
    await expect(write).resolves.toBe("written");
    // The write over, the reads of the kind list again.
    const after = [4, 5, 6, 7].map((i) => read(kind, all[i].id));
    await until(160);
    expect(after.map((r) => r.value)).toEqual([4, 5, 6, 7].map((i) => all[i]));
    expect(log).toEqual({ pages: 1, gets: [...[0, 1, 2].map((i) => all[i].id), ...times(15, all[3].id)] });
  });

  it("a read during a write, alone, is a GET answered at once: no window waited for", async () => {
    const { kind, log } = fakeKind(all);
    let endWrite!: () => void;
    const write = whileWriting(() => new Promise<void>((resolve) => (endWrite = resolve)));
    const alone = read(kind, all[0].id);
    await until(0);
    expect([alone.at, alone.value]).toEqual([0, all[0]]);
    expect(log).toEqual({ pages: 0, gets: [all[0].id] });
    endWrite();
    await write;
  });

  it("whileWriting rethrows what the write throws, and the reads list again after it", async () => {
    const { kind, log } = fakeKind(all);
    await expect(whileWriting(() => Promise.reject(new Error("409 conflict")))).rejects.toThrow(
      "409 conflict",
    );
    const reads = [0, 1, 2, 3].map((i) => read(kind, all[i].id));
    await until(0);
    expect(reads.map((r) => r.value)).toEqual([0, 1, 2, 3].map((i) => all[i]));
    expect(log).toEqual({ pages: 1, gets: [] });
  });

  it(`SERVICE_EXPECTED_READS announcing ${LIST_FROM_READS} lists from the first read with no wait, up to ${LIST_FROM_READS} pages`, async () => {
    process.env.SERVICE_EXPECTED_READS = JSON.stringify({ fk_: LIST_FROM_READS, other_: 50 });
    const { kind, log } = fakeKind(all, { perPage: 1 });
    const first = read(kind, all[3].id);
    await until(0);
    expect([first.at, first.value]).toEqual([0, all[3]]);
    const beyond = read(kind, all[4].id);
    await until(0);
    expect([beyond.at, beyond.value]).toEqual([0, all[4]]);
    expect(log).toEqual({ pages: LIST_FROM_READS, gets: [all[4].id] });
    expect(announcedReads("fk_", { SERVICE_EXPECTED_READS: '{"fk_":-5}' })).toBe(0);
    expect(announcedReads("fk_", { SERVICE_EXPECTED_READS: '{"fk_":2.5}' })).toBe(0);
  });

  it(`a listing answers until exactly ${LISTING_LIFETIME_MS} ms after it started, not 1 ms later`, async () => {
    const { kind, log } = fakeKind(all);
    [0, 1, 2, 3].map((i) => read(kind, all[i].id));
    await until(LISTING_LIFETIME_MS);
    const last = read(kind, all[5].id);
    await until(LISTING_LIFETIME_MS);
    expect([last.at, last.value, log.pages]).toEqual([LISTING_LIFETIME_MS, all[5], 1]);
    await until(LISTING_LIFETIME_MS + 1);
    const next = read(kind, all[6].id);
    await until(LISTING_LIFETIME_MS + 100);
    // Only 2 reads within the lifetime now: it waits for the window, then GETs.
    expect([next.at, next.value]).toEqual([LISTING_LIFETIME_MS + 1 + COALESCE_WINDOW_MS, all[6]]);
    expect(log).toEqual({ pages: 1, gets: [all[6].id] });
  });

  it(`reads seen up to ${LISTING_LIFETIME_MS} ms before count toward ${LIST_FROM_READS}; older ones do not`, async () => {
    const { kind, log } = fakeKind(all);
    [0, 1, 2].map((i) => read(kind, all[i].id));
    await until(LISTING_LIFETIME_MS);
    const fourth = read(kind, all[3].id);
    await until(LISTING_LIFETIME_MS);
    expect([fourth.at, fourth.value]).toEqual([LISTING_LIFETIME_MS, all[3]]);
    expect(log).toEqual({ pages: 1, gets: [0, 1, 2].map((i) => all[i].id) });

    forgetListings();
    const { kind: other, log: otherLog } = fakeKind(all);
    const t = 20_000;
    await until(t);
    [0, 1].map((i) => read(other, all[i].id));
    await until(t + LISTING_LIFETIME_MS - 10);
    const waiting = read(other, all[2].id);
    // The 4th read arrives during a write (a GET at once); the window closes 20 ms after it,
    // when the first two are more than LISTING_LIFETIME_MS old: 2 recent reads, no listing.
    await until(t + LISTING_LIFETIME_MS - 5);
    let endWrite!: () => void;
    const write = whileWriting(() => new Promise<void>((resolve) => (endWrite = resolve)));
    read(other, all[3].id);
    await until(t + LISTING_LIFETIME_MS);
    endWrite();
    await write;
    await until(t + LISTING_LIFETIME_MS + 100);
    expect([waiting.at, waiting.value]).toEqual([t + LISTING_LIFETIME_MS - 5 + COALESCE_WINDOW_MS, all[2]]);
    expect(otherLog).toEqual({ pages: 0, gets: [0, 1, 2, 3].map((i) => all[i].id) });
  });

  it(`a failed page request: its reads GET, and no listing starts again for ${LISTING_LIFETIME_MS} ms`, async () => {
    const failing = fakeKind(all, { fail: true });
    const reads = [0, 1, 2, 3].map((i) => read(failing.kind, all[i].id));
    await until(5_000);
    expect(reads.map((r) => r.value)).toEqual([0, 1, 2, 3].map((i) => all[i]));
    expect(failing.log).toEqual({ pages: 1, gets: [0, 1, 2, 3].map((i) => all[i].id) });
    const working = fakeKind(all);
    [4, 5, 6, 7].map((i) => read(working.kind, all[i].id));
    await until(LISTING_LIFETIME_MS);
    [4, 5, 6, 7].map((i) => read(working.kind, all[i].id));
    await until(LISTING_LIFETIME_MS);
    expect(working.log).toEqual({ pages: 0, gets: [4, 4, 5, 5, 6, 6, 7, 7].map((i) => all[i].id) });
    await until(LISTING_LIFETIME_MS + 1);
    const again = read(working.kind, all[8].id);
    await until(LISTING_LIFETIME_MS + 1);
    expect(again.value).toEqual(all[8]);
    expect(working.log.pages).toBe(1);
  });

  it.each([
    ["say nextPageUri: null", false, 1],
    ["just end", true, 2],
  ])(
    "when the pages %s, a resource not listed is a GET, and the listing keeps answering what it found",
    async (_, endsWithoutNull, pages) => {
      const { kind, log } = fakeKind(all.slice(0, 5), { endsWithoutNull });
      [0, 1, 2, 3].map((i) => read(kind, all[i].id));
      const missing = read(kind, "fk_missing");
      await until(0);
      const found = read(kind, all[4].id);
      await until(0);
      expect(String(missing.error)).toContain("404 fk_missing");
      expect(found.value).toEqual(all[4]);
      expect(log).toEqual({ pages, gets: ["fk_missing"] });
    },
  );

  it("a write while a page is in flight: the reads it does not answer GET, no further page", async () => {
    const { kind, log } = fakeKind(all, { perPage: 2, delayMs: 50 });
    const reads = [0, 1, 2, 3].map((i) => read(kind, all[i].id));
    await until(10);
    await whileWriting(async () => "updated");
    await until(100);
    expect(reads.map((r) => [r.at, r.value])).toEqual([0, 1, 2, 3].map((i) => [50, all[i]]));
    expect(log).toEqual({ pages: 1, gets: [all[2].id, all[3].id] });
  });

  it("a listing's page budget counts the reads that asked it, even those no longer within the lifetime", async () => {
    const { kind, log } = fakeKind(all, { perPage: 1 });
    [0, 1, 2].map((i) => read(kind, all[i].id));
    await until(10);
    read(kind, all[3].id);
    await until(LISTING_LIFETIME_MS + 5);
    const late = read(kind, all[4].id);
    await until(LISTING_LIFETIME_MS + 5);
    expect(late.value).toEqual(all[4]);
    expect(log).toEqual({ pages: 5, gets: [] });
  });
});

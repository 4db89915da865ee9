/**
 * Units of the emulator without HTTP: IDs, durations, fault specs, the store's transactions.
 */
import fc from "fast-check";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ServiceError } from "../../emulator/errors";
import { drawFault, parseDuration, parseFaults, parseRateLimit, seededRandom } from "../../emulator/faults";
import { KsuidGenerator, rfc3339 } from "../../emulator/ids";
import { openStore } from "../../emulator/store";
import { apiRequest, startEmulator } from "../helpers/emulator";
import { destinationBody, storedDestination, subscriptionBody } from "../helpers/emulator-fixtures";

describe("KSUID-like IDs", () => {
  it("are the prefix and 27 base62 characters, with the creation second inside", () => {
    const now = Date.UTC(2026, 10, 21, 9, 30, 0, 700);
    const m = new KsuidGenerator(() => now).next("esb_");
    expect(m.id).toMatch(/^esb_[0-9A-Za-z]{27}$/);
    expect(rfc3339(m.unixSeconds)).toBe("2026-11-21T09:30:00Z");
  });

  it("sort in creation order for any non-decreasing clock, within a second and across seconds", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 2, maxLength: 200 }), (steps) => {
        let t = 1_700_000_000_000;
        const gen = new KsuidGenerator(() => t);
        const ids = steps.map((s) => {
          t += s;
          return gen.next("ed_").id;
        });
        for (let i = 1; i < ids.length; i++) expect(ids[i] > ids[i - 1]).toBe(true);
      }),
    );
  });

  it("keep sorting after an observed ID even when the clock went back", () => {
    let t = 1_700_000_000_000;
    const a = new KsuidGenerator(() => t);
    const last = Array.from({ length: 5 }, () => a.next("esb_").id).at(-1)!;
    t -= 5000;
    const b = new KsuidGenerator(() => t);
    b.observe(last, "esb_");
    expect(b.next("esb_").id > last).toBe(true);
  });

  it("format timestamps as RFC 3339 UTC with whole seconds", () => {
    expect(rfc3339(0)).toBe("1970-01-01T00:00:00Z");
    expect(rfc3339(1_795_253_400)).toBe("2026-11-21T09:30:00Z");
  });
});

describe("parseDuration and parseRateLimit", () => {
  it.each([
    ["200ms", "ms", 200],
    ["30s", "ms", 30_000],
    ["1.5m", "ms", 90_000],
    ["2h", "ms", 7_200_000],
    ["250", "ms", 250],
    ["30", "s", 30_000],
    ["1d", "ms", 86_400_000],
  ] as const)("%s (bare unit %s) is %i ms", (text, unit, ms) => {
    expect(parseDuration(text, unit)).toBe(ms);
  });

  it.each(["", "soon", "-1s", "1 2s", "1e3x"])("rejects %j", (text) => {
    expect(() => parseDuration(text)).toThrow(/invalid duration/);
  });

  it.each([
    ["120/60s", { max: 120, windowMs: 60_000 }],
    ["5/1m", { max: 5, windowMs: 60_000 }],
    ["10/30", { max: 10, windowMs: 30_000 }],
  ])("reads %s", (text, expected) => {
    expect(parseRateLimit(text)).toEqual(expected);
  });

  it.each(["120", "0/60s", "x/60s", "120/0s"])("rejects rate limit %j", (text) => {
    expect(() => parseRateLimit(text)).toThrow(/invalid rate limit/);
  });
});

describe("parseFaults", () => {
  it.each([
    [
      "503:0.1,429:0.05,reset:0.02,latency:200ms",
      { status503: 0.1, status429: 0.05, reset: 0.02, latencyMs: 200 },
    ],
    ["503:10%", { status503: 0.1 }],
    ["reset:1,seed:7", { reset: 1, seed: 7 }],
    ["reset-after:5%,reset:0.01", { resetAfter: 0.05, reset: 0.01 }],
    ["latency:2s", { latencyMs: 2000 }],
    ["latency:150", { latencyMs: 150 }],
    ["", {}],
    ["off", {}],
  ])("reads %j", (spec, expected) => {
    expect(parseFaults(spec)).toEqual(expected);
  });

  it.each([
    ["503:1.5", /between 0 and 1/],
    ["503:0.6,429:0.6", /add up to/],
    ["503:0.6,reset-after:0.6", /add up to/],
    ["500:0.1", /unknown fault kind/],
    ["503", /expected kind:value/],
    ["503:abc", /invalid share/],
    ["latency:fast", /invalid duration/],
    ["seed:1.5", /invalid seed/],
  ])("rejects %j", (spec, message) => {
    expect(() => parseFaults(spec)).toThrow(message);
  });

  it("draws about the configured shares", () => {
    const random = seededRandom(1);
    const counts = { none: 0, "503": 0, "429": 0, reset: 0, "reset-after": 0 };
    for (let i = 0; i < 10_000; i++)
      counts[drawFault({ status503: 0.1, status429: 0.2, reset: 0.3, resetAfter: 0.1 }, random)]++;
    expect(counts["503"] / 10_000).toBeCloseTo(0.1, 1);
    expect(counts["429"] / 10_000).toBeCloseTo(0.2, 1);
    expect(counts.reset / 10_000).toBeCloseTo(0.3, 1);
    expect(counts["reset-after"] / 10_000).toBeCloseTo(0.1, 1);
    expect(drawFault({}, () => 0)).toBe("none");
  });
});

describe("store", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "emulator-store-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("rolls a failed write back completely", () => {
    const store = openStore(":memory:");
    try {
      const acct = store.registerAccount("a".repeat(64), true);
      const d = store.createDestination(acct.id, storedDestination());
      const before = store.snapshot();
      expect(() =>
        store.createSubscription(acct.id, {
          metadata: "",
          description: "",
          sources: ["domain_created.v0"],
          destinationIds: [d.id, "ed_000000000000000000000000001"],
        }),
      ).toThrow(ServiceError);
      const sub = store.createSubscription(acct.id, {
        metadata: "",
        description: "",
        sources: ["domain_created.v0"],
        destinationIds: [d.id],
      });
      const mid = store.snapshot();
      expect(mid.event_subscriptions).toHaveLength(1);
      expect(() =>
        store.updateSubscription(acct.id, sub.id, {
          description: "x",
          destinationIds: ["ed_000000000000000000000000001"],
        }),
      ).toThrow(expect.objectContaining({ code: 223 }));
      expect(() => store.deleteDestination(acct.id, d.id)).toThrow(expect.objectContaining({ code: 409 }));
      expect(store.snapshot()).toEqual(mid);
      expect(before.event_subscriptions).toHaveLength(0);
    } finally {
      store.close();
    }
  });

  it("finds the same account for the same key hash after reopening the file, and keeps ID order", () => {
    const file = path.join(dir, "a", "b", "store.db");
    const s1 = openStore(file);
    const acct = s1.registerAccount("b".repeat(64), false);
    const d1 = s1.createDestination(acct.id, storedDestination());
    s1.close();
    const s2 = openStore(file);
    try {
      const again = s2.registerAccount("b".repeat(64), true);
      expect(again).toEqual({ id: acct.id, abuseReportsAuthorized: true });
      const d2 = s2.createDestination(acct.id, storedDestination());
      expect(d2.id > d1.id).toBe(true);
      expect(s2.listDestinations(acct.id, { limit: 10 }).items.map((d) => d.id)).toEqual([d2.id, d1.id]);
    } finally {
      s2.close();
    }
  });
});

// Requests in flight at the same time on many connections. One emulator process handles them one
// after another (handlers are synchronous), so these check the outcome of each pairing, not an
// interleaving inside a handler.
describe("requests in flight at the same time", () => {
  it("a create naming a destination and that destination's delete: exactly one wins, no dangling link", async () => {
    const em = await startEmulator({
      apiKeys: ["k-race"],
      data: path.join(tmpdir(), `race-${process.pid}-${Date.now()}.db`),
    });
    try {
      const call = (m: string, p: string, b?: unknown) => apiRequest(em.url, "k-race", m, p, b);
      for (let round = 0; round < 15; round++) {
        const d = (await call("POST", "/event_destinations", destinationBody())).json().id;
        const [created, deleted] = await Promise.all([
          call("POST", "/event_subscriptions", subscriptionBody([d])),
          call("DELETE", `/event_destinations/${d}`),
        ]);
        // Exactly one of them wins.
        expect([created.status, deleted.status].sort()).toEqual(
          created.status === 201 ? [201, 409] : [204, 400],
        );
      }
      const snap = em.store.snapshot();
      const destIds = new Set(snap.event_destinations.map((d) => (d as { id: string }).id));
      for (const link of snap.subscription_destinations as { destination_id: string }[]) {
        expect(destIds.has(link.destination_id)).toBe(true);
      }
    } finally {
      await em.close();
      for (const ext of ["", "-wal", "-shm"]) rmSync(em.store.path + ext, { force: true });
    }
  });

  it("40 creates sent at once: 40 distinct subscriptions, all listed", async () => {
    const em = await startEmulator({ apiKeys: ["k-many"] });
    try {
      const call = (m: string, p: string, b?: unknown) => apiRequest(em.url, "k-many", m, p, b);
      const d = (await call("POST", "/event_destinations", destinationBody())).json().id;
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          call("POST", "/event_subscriptions", subscriptionBody([d], { description: `c${i}` })),
        ),
      );
      expect(results.every((r) => r.status === 201)).toBe(true);
      const ids = new Set(results.map((r) => r.json().id));
      expect(ids.size).toBe(40);
      const list = (await call("GET", "/event_subscriptions")).json().event_subscriptions;
      expect(new Set(list.map((s: { id: string }) => s.id))).toEqual(ids);
    } finally {
      await em.close();
    }
  });
});

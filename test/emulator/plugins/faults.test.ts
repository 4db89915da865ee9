/**
 * Fault injection (503, 429, connection reset, latency), run-time switching through the operator
 * endpoint, and the per-account rate limit.
 */
import {
  apiRequest,
  getRequestLog,
  rawRequest,
  setFaults,
  startEmulator,
  type RunningEmulator,
} from "../../helpers/emulator";
import { destinationBody, expectError, subscriptionBody } from "../../helpers/emulator-fixtures";

const KEY = "key-faults";

describe("fault injection", () => {
  let em: RunningEmulator;
  let destination: string;
  const call = (method: string, path: string, body?: unknown) => apiRequest(em.url, KEY, method, path, body);

  beforeAll(async () => {
    em = await startEmulator({ apiKeys: [KEY] });
    destination = (await call("POST", "/event_destinations", destinationBody())).json().id;
  });
  afterAll(() => em.close());
  afterEach(() => setFaults(em.url, em.adminKey, {}));

  /** Every kind of write the API has, each one valid. */
  const writes: [string, () => Promise<unknown>][] = [
    ["create subscription", () => call("POST", "/event_subscriptions", subscriptionBody([destination]))],
    ["create destination", () => call("POST", "/event_destinations", destinationBody())],
    ["create abuse report", () => call("POST", "/abuse_reports", { urls: ["https://x.example.org"] })],
    [
      "update destination",
      () => call("PATCH", `/event_destinations/${destination}`, { description: "changed" }),
    ],
  ];

  describe.each([
    ["503", { status503: 1 }, 503, 500],
    ["429", { status429: 1 }, 429, 226],
  ] as const)("answering %s", (_name, cfg, status, code) => {
    it.each(writes)("a faulted %s changes nothing and says when to retry", async (_w, write) => {
      await setFaults(em.url, em.adminKey, cfg);
      const before = em.store.snapshot();
      const res = (await write()) as Awaited<ReturnType<typeof call>>;
      expectError(res, status, code);
      expect(res.headers["retry-after"]).toBe("1");
      await setFaults(em.url, em.adminKey, {});
      expect(em.store.snapshot()).toEqual(before);
    });
  });

  it("a reset destroys the connection without a response and changes nothing", async () => {
    const listBefore = (await call("GET", "/event_subscriptions")).json();
    const before = em.store.snapshot();
    await setFaults(em.url, em.adminKey, { reset: 1 });
    for (const [, write] of writes) await expect(write()).rejects.toThrow(/socket hang up|ECONNRESET/);
    await setFaults(em.url, em.adminKey, {});
    expect(em.store.snapshot()).toEqual(before);
    expect((await call("GET", "/event_subscriptions")).json()).toEqual(listBefore);
  });

  it("logs faulted requests with their status, 0 for a reset", async () => {
    const since = (await getRequestLog(em.url, em.adminKey)).requests.at(-1)?.seq ?? 0;
    await setFaults(em.url, em.adminKey, { status503: 1 });
    await call("GET", "/event_subscriptions");
    await setFaults(em.url, em.adminKey, { status429: 1 });
    await call("GET", "/event_subscriptions");
    await setFaults(em.url, em.adminKey, { reset: 1 });
    await call("GET", "/event_subscriptions").catch(() => undefined);
    await setFaults(em.url, em.adminKey, {});
    const { requests } = await getRequestLog(em.url, em.adminKey, since);
    expect(requests.map((r) => [r.method, r.path, r.status])).toEqual([
      ["GET", "/event_subscriptions", 503],
      ["GET", "/event_subscriptions", 429],
      ["GET", "/event_subscriptions", 0],
    ]);
    expect(requests.map((r) => r.account_id)).toEqual([
      expect.stringMatching(/^acct_/),
      requests[0].account_id,
      requests[0].account_id,
    ]);
    expect(requests.map((r) => r.fault)).toEqual(["503", "429", "reset"]);
  });

  it("never applies to the operator endpoints", async () => {
    await setFaults(em.url, em.adminKey, { status503: 1 });
    const res = await rawRequest({
      method: "GET",
      url: `${em.url}/_operator/faults`,
      headers: { authorization: `Bearer ${em.adminKey}` },
    });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ status503: 1 });
  });

  it("switched off through the operator endpoint, everything works again", async () => {
    await setFaults(em.url, em.adminKey, { status503: 0.5, status429: 0.25, reset: 0.25 });
    expect(await setFaults(em.url, em.adminKey, {})).toEqual({});
    for (const [, write] of writes) {
      const res = (await write()) as Awaited<ReturnType<typeof call>>;
      expect([200, 201]).toContain(res.status);
    }
  });

  it("adds latency to every public request", async () => {
    await setFaults(em.url, em.adminKey, { latencyMs: 250 });
    const t0 = Date.now();
    const res = await call("GET", "/event_subscriptions");
    expect(res.status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(240);
  });

  it("with a seed, draws the same faults every time, and a mix of them", async () => {
    const run = async () => {
      await setFaults(em.url, em.adminKey, { status503: 0.3, status429: 0.3, seed: 42 });
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) statuses.push((await call("GET", "/event_subscriptions")).status);
      return statuses;
    };
    const first = await run();
    expect(await run()).toEqual(first);
    expect(new Set(first)).toEqual(new Set([200, 429, 503]));
  });

  it("applies faults given at start", async () => {
    const other = await startEmulator({ apiKeys: ["k-start-faults"], faults: { status503: 1 } });
    try {
      const res = await apiRequest(other.url, "k-start-faults", "GET", "/event_subscriptions");
      expectError(res, 503, 500);
    } finally {
      await other.close();
    }
  });

  it.each([
    ["a share above 1", { status503: 1.5 }, 215],
    ["shares adding up to more than 1", { status503: 0.6, status429: 0.6 }, 215],
    ["a negative latency", { latencyMs: -1 }, 215],
    ["a share that is a string", { reset: "0.1" }, 215],
    ["an unknown field", { status500: 0.1 }, 214],
  ])("PUT /_operator/faults rejects %s", async (_name, cfg, code) => {
    const res = await rawRequest({
      method: "PUT",
      url: `${em.url}/_operator/faults`,
      headers: { authorization: `Bearer ${em.adminKey}`, "content-type": "application/json" },
      body: JSON.stringify(cfg),
    });
    expectError(res, 400, code);
    expect(em.app.emulator.getFaults()).toEqual({});
  });
});

describe("rate limit", () => {
  let now = 1_800_000_000_000;
  let em: RunningEmulator;
  beforeAll(async () => {
    em = await startEmulator({
      apiKeys: ["rl-a", "rl-b"],
      rateLimit: { max: 3, windowMs: 60_000 },
      clock: () => now,
    });
  });
  afterAll(() => em.close());

  it("answers 429 / 226 with Retry-After in seconds past the limit, per account, over a rolling window", async () => {
    const get = (key: string) => apiRequest(em.url, key, "GET", "/event_subscriptions");
    expect((await get("rl-a")).status).toBe(200);
    now += 20_000;
    expect((await get("rl-a")).status).toBe(200);
    expect((await get("rl-a")).status).toBe(200);
    const limited = await get("rl-a");
    expectError(limited, 429, 226);
    expect(limited.headers["retry-after"]).toBe("40");
    // Another account has its own window.
    expect((await get("rl-b")).status).toBe(200);
    // The first request leaves the window after 60 s.
    now += 40_000;
    expect((await get("rl-a")).status).toBe(200);
    const again = await get("rl-a");
    expectError(again, 429, 226);
    expect(again.headers["retry-after"]).toBe("20");
  });

  it("is off by default", async () => {
    const open = await startEmulator({ apiKeys: ["rl-off"] });
    try {
      for (let i = 0; i < 200; i++) {
        expect((await apiRequest(open.url, "rl-off", "GET", "/event_subscriptions")).status).toBe(200);
      }
    } finally {
      await open.close();
    }
  });
});

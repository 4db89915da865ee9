/**
 * The emulator's one latency (packages/emulator/plugins/latency.ts): every answer of the public
 * API comes at least the round trip after its request, errors included, within the jitter's
 * spread; the operator endpoints are not delayed; out-of-range options are refused naming the
 * option. Set at start (`latencyMs`/`latencyJitterMs`, or the `faults` members of the same names)
 * and at run time (`PUT /_operator/faults`), it is one setting: never two delays added up.
 */
import { createApp, openStore } from "service-emulator";
import {
  apiRequest,
  operatorRequest,
  setFaults,
  startEmulator,
  type RunningEmulator,
} from "../../helpers/emulator";
import { expectError } from "../../helpers/emulator-fixtures";
import { LOAD_SLACK_MS } from "../../helpers/timing";

/** Milliseconds `fn` takes, with its result. */
async function timedMs<T>(fn: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const t0 = performance.now();
  const result = await fn();
  return { ms: performance.now() - t0, result };
}

/** Node's timers fire no sooner than asked, but the clocks may round a millisecond apart. */
const TIMER_SLACK_MS = 2;

describe("latency", () => {
  let em: RunningEmulator;
  afterEach(() => em?.close());

  it("delays every public answer, success and error alike, by at least latencyMs", async () => {
    em = await startEmulator({ apiKeys: ["lat"], latencyMs: 150 });
    for (let i = 0; i < 3; i++) {
      const ok = await timedMs(() => apiRequest(em.url, "lat", "GET", "/event_subscriptions"));
      expect(ok.result.status).toBe(200);
      expect(ok.ms).toBeGreaterThanOrEqual(150 - TIMER_SLACK_MS);
    }
    const unknownKey = await timedMs(() => apiRequest(em.url, "nobody", "GET", "/event_subscriptions"));
    expectError(unknownKey.result, 401, 203);
    expect(unknownKey.ms).toBeGreaterThanOrEqual(150 - TIMER_SLACK_MS);
    const unknownPath = await timedMs(() => apiRequest(em.url, "lat", "GET", "/nothing_here"));
    expect(unknownPath.result.status).toBe(404);
    expect(unknownPath.ms).toBeGreaterThanOrEqual(150 - TIMER_SLACK_MS);
  });

  it("holds concurrent requests side by side, not one after another", async () => {
    em = await startEmulator({ apiKeys: ["lat"], latencyMs: 1000 });
    const { ms, result } = await timedMs(() =>
      Promise.all(Array.from({ length: 10 }, () => apiRequest(em.url, "lat", "GET", "/event_subscriptions"))),
    );
    expect(result.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(ms).toBeGreaterThanOrEqual(1000 - TIMER_SLACK_MS);
    // Ten round trips in a row would take 10 s.
    expect(ms).toBeLessThan(1000 + LOAD_SLACK_MS);
  });

  it("draws each round trip within latencyMs ± latencyJitterMs", async () => {
    em = await startEmulator({ apiKeys: ["lat"], latencyMs: 100, latencyJitterMs: 100 });
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      times.push((await timedMs(() => apiRequest(em.url, "lat", "GET", "/event_subscriptions"))).ms);
    }
    // Uniform over 0..200 ms: 20 draws all above 80 ms, or all below 120 ms, happen about 4 times
    // in 100,000 runs; without jitter, every one takes at least 100 ms.
    expect(Math.min(...times)).toBeLessThan(80);
    expect(Math.max(...times)).toBeGreaterThanOrEqual(120);
  });

  it("does not delay the operator endpoints", async () => {
    em = await startEmulator({ apiKeys: ["lat"], adminKey: "lat-admin", latencyMs: 5000 });
    const { ms, result } = await timedMs(() =>
      operatorRequest(em.url, "lat-admin", "GET", "/_operator/faults"),
    );
    expect(result.status).toBe(200);
    expect(ms).toBeLessThan(5000);
  });

  /** Milliseconds of one `GET /event_subscriptions` with key `lat`, checked to answer 200. */
  async function roundTrip(): Promise<number> {
    const { ms, result } = await timedMs(() => apiRequest(em.url, "lat", "GET", "/event_subscriptions"));
    expect(result.status).toBe(200);
    return ms;
  }

  it("set at start, shows in GET /_operator/faults, and PUT /_operator/faults replaces it at run time", async () => {
    em = await startEmulator({
      apiKeys: ["lat"],
      adminKey: "lat-admin",
      latencyMs: 800,
      latencyJitterMs: 10,
    });
    const shown = await operatorRequest(em.url, "lat-admin", "GET", "/_operator/faults");
    expect(shown.json()).toEqual({ latencyMs: 800, latencyJitterMs: 10 });
    expect(await roundTrip()).toBeGreaterThanOrEqual(790 - TIMER_SLACK_MS);
    // The same latency set again at run time replaces it: one round trip, not two added up.
    await setFaults(em.url, em.adminKey, { latencyMs: 800 });
    const again = await roundTrip();
    expect(again).toBeGreaterThanOrEqual(800 - TIMER_SLACK_MS);
    expect(again).toBeLessThan(1600);
    await setFaults(em.url, em.adminKey, {});
    expect(await roundTrip()).toBeLessThan(800);
    await setFaults(em.url, em.adminKey, { latencyMs: 300, latencyJitterMs: 300 });
    const times: number[] = [];
    for (let i = 0; i < 20; i++) times.push(await roundTrip());
    // Uniform over 0..600 ms: 20 draws all above 240 ms or all below 360 ms happen about 4 times
    // in 100,000 runs.
    expect(Math.min(...times)).toBeLessThan(240);
    expect(Math.max(...times)).toBeGreaterThanOrEqual(360);
  });

  it("given as faults at start, is the same latency, and refuses a second spelling of it", async () => {
    em = await startEmulator({ apiKeys: ["lat"], adminKey: "lat-admin", faults: { latencyMs: 300 } });
    expect(await roundTrip()).toBeGreaterThanOrEqual(300 - TIMER_SLACK_MS);
    const store = openStore(":memory:");
    try {
      expect(() => createApp({ store, latencyMs: 100, faults: { latencyMs: 200 } })).toThrow(
        "latencyMs and faults.latencyMs are one setting, the emulator's latency: give one of them",
      );
      expect(() =>
        createApp({ store, latencyJitterMs: 10, faults: { latencyMs: 200, latencyJitterMs: 5 } }),
      ).toThrow("latencyJitterMs and faults.latencyJitterMs are one setting");
    } finally {
      store.close();
    }
  });

  it.each([
    [{ latencyMs: 600_001 }, "latencyMs must be a whole number of milliseconds from 0 to 600000, got 600001"],
    [{ latencyMs: 1.5 }, "latencyMs must be a whole number of milliseconds from 0 to 600000, got 1.5"],
    [{ latencyMs: -1 }, "latencyMs must be a whole number of milliseconds from 0 to 600000, got -1"],
    [
      { latencyMs: 100, latencyJitterMs: 101 },
      "latencyJitterMs must be a whole number of milliseconds from 0 to latencyMs (100), got 101",
    ],
    [
      { latencyJitterMs: 5 },
      "latencyJitterMs must be a whole number of milliseconds from 0 to latencyMs (0), got 5",
    ],
  ])("refuses %j naming the option and its range", (opts, message) => {
    const store = openStore(":memory:");
    try {
      expect(() => createApp({ store, ...opts })).toThrow(message);
    } finally {
      store.close();
    }
  });
});

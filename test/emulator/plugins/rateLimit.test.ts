/**
 * The rate limit's token bucket (packages/emulator/plugins/rateLimit.ts, `rateLimit.burst`): a
 * burst, then 429 / 226 with `Retry-After` and the service's error body, refilling at the rate
 * and recovering; one bucket per account; the client's retries getting every request through;
 * out-of-range options refused naming the option; the rolling window (no `burst`), and no limit
 * by default. The command line's flags are tested in cli.test.ts and here.
 */
import { ServiceClient } from "../../../client";
import { createApp, openStore } from "service-emulator";
import { main } from "../../../packages/emulator/cli";
import { capture } from "../../helpers/cli";
import { apiRequest, startEmulator, type RunningEmulator } from "../../helpers/emulator";
import { expectError } from "../../helpers/emulator-fixtures";
import type { RateLimitOptions } from "../../../packages/emulator/plugins/rateLimit";

/**
 * An emulator for the tests of a `describe`, started before them and closed after: the accounts
 * of `apiKeys`, the rate limit `rateLimit`, and a clock the tests move (`clock.now`, in
 * **milliseconds** since the epoch). `get(key)` lists subscriptions with one account's key.
 */
function withRateLimit(apiKeys: string[], rateLimit: RateLimitOptions) {
  const clock = { now: 1_800_000_000_000 };
  let em: RunningEmulator | undefined;
  beforeAll(async () => {
    em = await startEmulator({ apiKeys, rateLimit, clock: () => clock.now });
  });
  afterAll(() => em?.close());
  return { clock, get: (key: string) => apiRequest(em!.url, key, "GET", "/event_subscriptions") };
}

describe("rate limit with a burst (token bucket)", () => {
  // 2 requests per second, bursts of up to 4.
  const { clock, get } = withRateLimit(["tb-a", "tb-b"], { max: 2, windowMs: 1000, burst: 4 });

  it("passes the burst, then answers 429 / 226 with Retry-After, and refills at the rate", async () => {
    for (let i = 0; i < 4; i++) expect((await get("tb-a")).status).toBe(200);
    const limited = await get("tb-a");
    expectError(
      limited,
      429,
      226,
      "rate limited: 2 requests per 1 seconds, in bursts of at most 4; retry after 1 seconds",
    );
    expect(limited.headers["retry-after"]).toBe("1");
    // A refused request takes nothing: still limited at the same instant.
    expectError(await get("tb-a"), 429, 226);
    // Another account has its own bucket, full.
    for (let i = 0; i < 4; i++) expect((await get("tb-b")).status).toBe(200);
    expectError(await get("tb-b"), 429, 226);
    // Half a second later, one token (2 per second) for each.
    clock.now += 500;
    expect((await get("tb-a")).status).toBe(200);
    expectError(await get("tb-a"), 429, 226);
    // An idle minute fills the bucket to the burst, no further.
    clock.now += 60_000;
    for (let i = 0; i < 4; i++) expect((await get("tb-a")).status).toBe(200);
    expectError(await get("tb-a"), 429, 226);
  });

  it("counts Retry-After up to the next token, in whole seconds", async () => {
    const slow = await startEmulator({
      apiKeys: ["tb-slow"],
      // One request per 10 s, bursts of 2.
      rateLimit: { max: 1, windowMs: 10_000, burst: 2 },
      clock: () => clock.now,
    });
    try {
      const call = () => apiRequest(slow.url, "tb-slow", "GET", "/event_subscriptions");
      expect((await call()).status).toBe(200);
      expect((await call()).status).toBe(200);
      expect((await call()).headers["retry-after"]).toBe("10");
      clock.now += 4_000;
      expect((await call()).headers["retry-after"]).toBe("6");
      clock.now += 6_000;
      expect((await call()).status).toBe(200);
    } finally {
      await slow.close();
    }
  });
});

describe("rate limit over a rolling window (no burst)", () => {
  const { clock, get } = withRateLimit(["rl-a", "rl-b"], { max: 3, windowMs: 60_000 });

  it("answers 429 / 226 with Retry-After in seconds past the limit, per account, over a rolling window", async () => {
    expect((await get("rl-a")).status).toBe(200);
    clock.now += 20_000;
    expect((await get("rl-a")).status).toBe(200);
    expect((await get("rl-a")).status).toBe(200);
    const limited = await get("rl-a");
    expectError(limited, 429, 226);
    expect(limited.headers["retry-after"]).toBe("40");
    // Another account has its own window.
    expect((await get("rl-b")).status).toBe(200);
    // The first request leaves the window after 60 s.
    clock.now += 40_000;
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

describe("rate limit against the client's retries", () => {
  it("gets every request of a burst larger than the limit through, with 429s on the way", async () => {
    let limited = 0;
    const em = await startEmulator({
      apiKeys: ["tb-client"],
      rateLimit: { max: 10, windowMs: 1000, burst: 5 },
      onApp: (app) => {
        app.addHook("onResponse", async (_request, reply) => {
          if (reply.statusCode === 429) limited += 1;
        });
      },
    });
    const client = new ServiceClient({ apiKey: "tb-client", baseUrl: em.url });
    try {
      // One GET each (an empty first page).
      const listAll = async () => {
        const got = [];
        for await (const sub of client.eventSubscriptions.list({ limit: 1 })) got.push(sub);
        return got;
      };
      const results = await Promise.all(Array.from({ length: 15 }, listAll));
      expect(results).toEqual(Array(15).fill([]));
      // 5 pass at once; the others were refused (those sent before the first 429 came back) or
      // paced by what it taught the client (client/pacer.ts), and waited: no more 429s than requests.
      expect(limited).toBeGreaterThan(0);
      expect(limited).toBeLessThanOrEqual(15);
    } finally {
      await client.close();
      await em.close();
    }
  });
});

describe("rate limit options", () => {
  it.each([
    [{ max: 0, windowMs: 1000 }, "rateLimit.max must be a whole number of requests from 1 to 1000000, got 0"],
    [
      { max: 10, windowMs: 86_400_001 },
      "rateLimit.windowMs must be a whole number of milliseconds from 1 to 86400000, got 86400001",
    ],
    [
      { max: 10, windowMs: 1000, burst: 0 },
      "rateLimit.burst must be a whole number of requests from 1 to 1000000, got 0",
    ],
    [
      { max: 10, windowMs: 1000, burst: 2.5 },
      "rateLimit.burst must be a whole number of requests from 1 to 1000000, got 2.5",
    ],
  ])("createApp refuses %j naming the member and its range", (rateLimit, message) => {
    const store = openStore(":memory:");
    try {
      expect(() => createApp({ store, rateLimit })).toThrow(message);
    } finally {
      store.close();
    }
  });
});

describe("service-emulator --rate-limit-burst, --latency-ms, --latency-jitter-ms", () => {
  it("starts with a token bucket and a latency", async () => {
    const run = capture();
    const started = await main(
      [
        "node",
        "service-emulator",
        ...["--port", "0", "--data", ":memory:", "--api-key", "flags"],
        ...[
          "--rate-limit",
          "1/60s",
          "--rate-limit-burst",
          "3",
          "--latency-ms",
          "100",
          "--latency-jitter-ms",
          "10",
        ],
      ],
      run.cli,
    );
    if (typeof started === "number") throw new Error(`did not start: ${run.out.stderr}`);
    try {
      const t0 = performance.now();
      for (let i = 0; i < 3; i++)
        expect((await apiRequest(started.url, "flags", "GET", "/event_subscriptions")).status).toBe(200);
      // Three round trips of at least 90 ms each.
      expect(performance.now() - t0).toBeGreaterThanOrEqual(3 * 90 - 2);
      const limited = await apiRequest(started.url, "flags", "GET", "/event_subscriptions");
      expectError(limited, 429, 226);
      expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(59);
    } finally {
      await started.close();
    }
  });

  it.each([
    [
      ["--latency-ms", "600001"],
      "option '--latency-ms <ms>' argument '600001' is invalid",
      "from 0 to 600000",
    ],
    [["--latency-ms", "fast"], "option '--latency-ms <ms>' argument 'fast' is invalid", "from 0 to 600000"],
    [
      ["--latency-jitter-ms", "1.5"],
      "option '--latency-jitter-ms <ms>' argument '1.5' is invalid",
      "from 0 to 600000",
    ],
    [
      ["--latency-ms", "100", "--latency-jitter-ms", "150"],
      "--latency-jitter-ms must be at most --latency-ms (100), got 150",
      "",
    ],
    [
      ["--rate-limit", "20/1s", "--rate-limit-burst", "0"],
      "option '--rate-limit-burst <n>' argument '0' is invalid",
      "from 1 to 1000000",
    ],
    [["--rate-limit-burst", "40"], "--rate-limit-burst needs --rate-limit", ""],
    [
      ["--latency-ms", "100", "--faults", "503:0.1,latency:200ms"],
      "--latency-ms and --faults latency: are one setting, the emulator's latency: give one of them",
      "",
    ],
  ])("%j exits 1 naming the flag and its range, without starting", async (args, message, range) => {
    const run = capture();
    expect(
      await main(["node", "service-emulator", "--port", "0", "--data", ":memory:", ...args], run.cli),
    ).toBe(1);
    expect(run.out.stdout).toBe("");
    expect(run.out.stderr).toContain(message);
    expect(run.out.stderr).toContain(range);
  });
});

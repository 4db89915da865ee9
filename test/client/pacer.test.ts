/** The client's pacer: the token bucket, the rate learned from 429s, and the client paced against the emulator's limit. */
import {
  freshState,
  LocalPacer,
  observeAnswer,
  paceRate,
  ServiceClient,
  ServiceError,
  takeToken,
  type RequestLogEntry,
} from "../../client";
import { randomBytes } from "node:crypto";
import { startEmulator, type RunningEmulator } from "../helpers/emulator";

/** A well-formed API key of a fresh account. */
const key = () => `key_${randomBytes(24).toString("base64url")}`;

describe("takeToken and observeAnswer", () => {
  test("a ceiling of 2 per second with burst 1: one request now, the next after 500 ms", () => {
    const state = freshState();
    const settings = { maxRequestsPerSecond: 2, burst: 1 };
    expect(takeToken(state, settings, 10_000)).toBe(0);
    expect(takeToken(state, settings, 10_000)).toBe(500);
    expect(takeToken(state, settings, 10_300)).toBe(200);
    expect(takeToken(state, settings, 10_500)).toBe(0);
  });

  test("waiters that come back late keep the rate: 20 a second with each one 20 ms late is still 20 a second; an idle bucket still holds one", () => {
    const state = freshState();
    const settings = { maxRequestsPerSecond: 20, burst: 1 };
    let t = 1_000;
    const sent: number[] = [];
    while (sent.length < 201) {
      const wait = takeToken(state, settings, t);
      if (wait === 0) sent.push(t);
      else t += wait + 20;
    }
    // 200 intervals at 20 a second: 10 s (a bucket that lost each lateness took 200 × 70 ms = 14 s).
    expect(sent[200] - sent[0]).toBeLessThanOrEqual(10_000 + 70);
    expect(sent[200] - sent[0]).toBeGreaterThanOrEqual(10_000 - 500);
    // Idle for a minute: one request at once, the next 50 ms later, as burst 1 says.
    t += 60_000;
    expect(takeToken(state, settings, t)).toBe(0);
    expect(takeToken(state, settings, t)).toBe(50);
  });

  test("a burst of 3 lets an idle client send 3 at once, then one per 1/rate", () => {
    const state = freshState();
    const settings = { maxRequestsPerSecond: 10, burst: 3 };
    for (let i = 0; i < 3; i++) expect(takeToken(state, settings, 0 + 1)).toBe(0);
    expect(takeToken(state, settings, 1)).toBe(100);
  });

  test("without a ceiling nothing waits until a 429; then all wait out its Retry-After and a rate estimated from the answers", () => {
    const state = freshState();
    const settings = { burst: 1 };
    // 120 answers over 3 seconds, then a 429 asking for 57 s: the window is 3 + 57 = 60 s, the limit 120 in it.
    for (let i = 0; i < 120; i++) {
      expect(takeToken(state, settings, 100_000 + i * 25)).toBe(0);
      observeAnswer(state, settings, { status: 201 }, 100_000 + i * 25);
    }
    observeAnswer(state, settings, { status: 429, retryAfterSeconds: 57 }, 103_000);
    expect(state.limit).toBeCloseTo(2, 9);
    expect(state.rate).toBeCloseTo(0.9 * 2, 9);
    expect(takeToken(state, settings, 103_001)).toBe(56_999);
    // The 429s of requests already sent when the pause began cut nothing more (the pause ends by the last).
    observeAnswer(state, settings, { status: 429, retryAfterSeconds: 57 }, 103_050);
    expect(state.rate).toBeCloseTo(0.9 * 2, 9);
    // After the pause: one at once, the next at the learned rate.
    expect(takeToken(state, settings, 160_000)).toBe(50);
    expect(takeToken(state, settings, 160_050)).toBe(0);
    expect(takeToken(state, settings, 160_050)).toBe(Math.ceil(1000 / state.rate!));
  });

  test("seconds without answers before the sending began do not lower the first estimate", () => {
    const state = freshState();
    const settings = { burst: 1 };
    // One answer, 20 idle seconds, then 200 answers over 8 s and a 429 asking for 1 s: 200 ÷ 9.
    observeAnswer(state, settings, { status: 201 }, 0);
    for (let i = 0; i < 200; i++) observeAnswer(state, settings, { status: 201 }, 20_000 + i * 40);
    observeAnswer(state, settings, { status: 429, retryAfterSeconds: 1 }, 28_000);
    expect(state.limit).toBeCloseTo(200 / 9, 9);
  });

  test("a 429 after the pause cuts the learned rate by 0.8 and lowers the limit to the rate that drew it; answers raise the rate 2 % a second up to 0.95 of the limit", () => {
    const state = freshState();
    const settings = { burst: 1 };
    // 100 answers over 9 s and a 429 asking for 1 s: a limit of 10 per second, a rate of 9.
    for (let i = 0; i < 100; i++) observeAnswer(state, settings, { status: 200 }, i * 90);
    observeAnswer(state, settings, { status: 429, retryAfterSeconds: 1 }, 9_000);
    expect(state.limit).toBeCloseTo(10, 9);
    expect(state.rate).toBeCloseTo(9, 9);
    observeAnswer(state, settings, { status: 429, retryAfterSeconds: 1 }, 10_500);
    expect(state.limit).toBeCloseTo(9, 9);
    expect(state.rate).toBeCloseTo(7.2, 9);
    // Answers at the pace raise it 2 % for each second they span: 5 s of them, about 10 %…
    let t = 12_000;
    for (let i = 0; i < 36; i++) observeAnswer(state, settings, { status: 200 }, (t += 1000 / 7.2));
    expect(state.rate! / 7.2).toBeGreaterThan(1.09);
    expect(state.rate! / 7.2).toBeLessThan(1.12);
    // …and an idle minute counts as two intervals only…
    const before = state.rate!;
    observeAnswer(state, settings, { status: 200 }, (t += 60_000));
    expect(state.rate).toBeCloseTo(before * (1 + (0.02 * 2) / before), 9);
    // …and a minute more of answers stops at 0.95 × the limit the last 429 came at.
    for (let i = 0; i < 600; i++) observeAnswer(state, settings, { status: 200 }, (t += 100));
    expect(state.rate).toBeCloseTo(0.95 * 9, 9);
  });

  test("the ceiling caps the learned rate, and a 429 under the ceiling still teaches a lower one", () => {
    const state = freshState();
    const settings = { maxRequestsPerSecond: 5, burst: 1 };
    expect(paceRate(state, settings)).toBe(5);
    for (let t = 0; t < 10_000; t += 100) observeAnswer(state, settings, { status: 200 }, t);
    observeAnswer(state, settings, { status: 429, retryAfterSeconds: 1 }, 10_000);
    expect(paceRate(state, settings)).toBeCloseTo(0.9 * 5, 9);
  });
});

describe("ServiceClient pace settings", () => {
  test.each([
    [
      { maxRequestsPerSecond: 0 },
      "maxRequestsPerSecond must be a number of requests per second above 0 up to 10000, got 0",
    ],
    [{ requestBurst: 1.5 }, "requestBurst must be a whole number of requests from 1 up to 10000, got 1.5"],
  ])("%j is refused naming the option and its range", (options, message) => {
    const make = () => new ServiceClient({ apiKey: "k", baseUrl: "http://127.0.0.1:1", ...options });
    expect(make).toThrow(ServiceError);
    expect(make).toThrow(message);
  });

  test("SERVICE_MAX_REQUESTS_PER_SECOND is read when the option is not given, and named when malformed", () => {
    process.env.SERVICE_MAX_REQUESTS_PER_SECOND = "fast";
    try {
      expect(() => new ServiceClient({ apiKey: "k", baseUrl: "http://127.0.0.1:1" })).toThrow(
        "SERVICE_MAX_REQUESTS_PER_SECOND must be a number of requests per second above 0",
      );
    } finally {
      delete process.env.SERVICE_MAX_REQUESTS_PER_SECOND;
    }
  });
});

describe("a client against the emulator's rate limit (20 per second, bursts of 5)", () => {
  let em: RunningEmulator;
  beforeAll(async () => {
    em = await startEmulator({ apiKeys: [key(), key()], rateLimit: { max: 20, windowMs: 1000, burst: 5 } });
  });
  afterAll(() => em.close());

  /** Sends `n` listings, 10 at a time, then closes the client; returns the seconds taken. */
  async function run(client: ServiceClient, n: number): Promise<number> {
    const started = Date.now();
    const queue = Array.from({ length: n }, (_, i) => i);
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (queue.shift() !== undefined) {
          for await (const page of client.eventSubscriptions.pages({ limit: 1 })) void page;
        }
      }),
    );
    await client.close();
    return (Date.now() - started) / 1000;
  }

  function logged(statuses: number[]) {
    return (_line: string, entry: RequestLogEntry) => {
      if (entry.kind === "attempt" && entry.status !== undefined) statuses.push(entry.status);
    };
  }

  test("with a ceiling at the limit: 60 requests, no 429, in about 60 ÷ 20 seconds", async () => {
    const statuses: number[] = [];
    const client = new ServiceClient({
      apiKey: em.apiKeys[0],
      baseUrl: em.url,
      maxRequestsPerSecond: 20,
      logger: logged(statuses),
    });
    const seconds = await run(client, 60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(0);
    expect(statuses).toHaveLength(60);
    expect(seconds).toBeGreaterThanOrEqual(2.9);
  });

  test("without a ceiling the first 429s teach the rest: 80 requests, under 15 answers of 429", async () => {
    const statuses: number[] = [];
    const client = new ServiceClient({ apiKey: em.apiKeys[1], baseUrl: em.url, logger: logged(statuses) });
    const seconds = await run(client, 80);
    const refused = statuses.filter((s) => s === 429).length;
    expect(statuses.length - refused).toBe(80);
    expect(seconds).toBeLessThan(20);
    expect(refused).toBeGreaterThan(0);
    expect(refused).toBeLessThan(15);
  });

  test("LocalPacer serves waiting requests first come, first served", async () => {
    const pacer = new LocalPacer({ maxRequestsPerSecond: 50, burst: 1 });
    const order: number[] = [];
    await Promise.all([0, 1, 2, 3].map((i) => pacer.acquire().then(() => order.push(i))));
    expect(order).toEqual([0, 1, 2, 3]);
  });
});

describe("the edges of the bucket and of the pause", () => {
  test("with no rate at all every request goes at once, whatever the clock says, and the bucket is never counted", () => {
    const state = freshState();
    for (const now of [5_000, 5_000, 5_000, 4_000]) expect(takeToken(state, { burst: 1 }, now)).toBe(0);
    expect(state).toEqual(freshState());
  });

  test("a waiter that comes back very late finds one token more than a full bucket, not more", () => {
    const state = freshState();
    const settings = { maxRequestsPerSecond: 10, burst: 1 };
    expect(takeToken(state, settings, 1_000)).toBe(0);
    expect(takeToken(state, settings, 1_000)).toBe(100);
    // 900 ms late: ten tokens accrued, but a bucket of 1 holds 1 + 10 × 0.1 = 2.
    expect(takeToken(state, settings, 2_000)).toBe(0);
    expect(takeToken(state, settings, 2_000)).toBe(0);
    expect(takeToken(state, settings, 2_000)).toBe(100);
    // With a burst of 3 (over the lateness of 1 + 10 × 0.1), the burst is the most it finds.
    const burst3 = { maxRequestsPerSecond: 10, burst: 3 };
    const other = freshState();
    const sentAt = (now: number) => {
      let n = 0;
      while (takeToken(other, burst3, now) === 0) n++;
      return n;
    };
    expect(sentAt(1_000)).toBe(3);
    expect(sentAt(2_000)).toBe(3);
  });

  test("answers older than the last 60 seconds (those of exactly 60 seconds ago too) are forgotten: the first 429 estimates from the rest", () => {
    const state = freshState();
    for (let i = 0; i < 61; i++) observeAnswer(state, { burst: 1 }, { status: 200 }, 40_000);
    for (let i = 0; i < 30; i++) observeAnswer(state, { burst: 1 }, { status: 200 }, 41_000);
    expect(state.answered).toEqual({ 40: 61, 41: 30 });
    observeAnswer(state, { burst: 1 }, { status: 429, retryAfterSeconds: 0 }, 100_500);
    expect(state.answered).toEqual({ 41: 30 });
    // 30 answers over the 59 s from second 41 to 100 (the 61 of second 40 would make it 91 over 60).
    expect(state.limit).toBeCloseTo(30 / 59, 9);
  });

  test("answers with no 429 yet teach no rate", () => {
    const state = freshState();
    for (let t = 0; t < 5_000; t += 100) observeAnswer(state, { burst: 1 }, { status: 200 }, t);
    expect(state.rate).toBeNull();
    expect(state.limit).toBeNull();
  });

  test("a 429 at the very end of the pause cuts again; an answer then raises nothing, even when a 429 in the pause moved its end", () => {
    const state = freshState();
    const settings = { burst: 1 };
    for (let t = 0; t < 10_000; t += 100) observeAnswer(state, settings, { status: 200 }, t);
    observeAnswer(state, settings, { status: 429, retryAfterSeconds: 1 }, 10_000);
    const first = state.rate!;
    observeAnswer(state, settings, { status: 429, retryAfterSeconds: 1 }, 11_000);
    expect(state.rate).toBeCloseTo(first * 0.8, 9);
    const cut = state.rate;
    observeAnswer(state, settings, { status: 429, retryAfterSeconds: 1 }, 11_500);
    expect(state.pausedUntil).toBe(12_500);
    expect(state.rate).toBe(cut);
    observeAnswer(state, settings, { status: 200 }, 12_500);
    expect(state.rate).toBe(cut);
  });

  test("after a 429 the bucket holds one token, whatever the burst", () => {
    const state = freshState();
    const settings = { maxRequestsPerSecond: 10, burst: 5 };
    observeAnswer(state, settings, { status: 429, retryAfterSeconds: 1 }, 1_000);
    expect(takeToken(state, settings, 2_000)).toBe(0);
    expect(takeToken(state, settings, 2_000)).toBeGreaterThan(0);
  });
});

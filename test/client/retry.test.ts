/** The retry policy (pure decisions) and the retry loop with a fake clock. */
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIResponseValidationError,
  DEFAULT_RETRY_POLICY,
  backoffDelay,
  makeAPIError,
  retryDelay,
  type RetryPolicy,
} from "../../client";
import { isLostAnswer, type RetryClock, withRetries } from "../../client/retry";

const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY };
const status = (s: number, retryAfter?: string) =>
  makeAPIError({ status: s, method: "X", path: "/", bodyText: "", retryAfter });
const reset = () => new APIConnectionError("reset", { request: "X /" });
const timeout = () => new APIConnectionTimeoutError("timeout", { request: "X /" });
const refused = () => new APIConnectionError("refused", { request: "X /", requestNotSent: true });

type Case = [string, () => unknown, boolean, boolean];
// failure, error, retried for GET/PATCH/DELETE, retried for POST without idempotency key
const CASES: Case[] = [
  ["429 with Retry-After", () => status(429, "2"), true, true],
  ["429 without Retry-After", () => status(429), true, true],
  ["503 with Retry-After", () => status(503, "1"), true, true],
  ["503", () => status(503), true, false],
  ["502", () => status(502), true, false],
  ["504", () => status(504), true, false],
  ["500", () => status(500), false, false],
  ["400", () => status(400), false, false],
  ["404", () => status(404), false, false],
  ["409", () => status(409), false, false],
  ["connection reset", reset, true, false],
  ["timeout", timeout, true, false],
  ["connection refused (not sent)", refused, true, true],
  ["invalid response", () => new APIResponseValidationError("x", { status: 200, body: 1 }), false, false],
  ["a bug", () => new TypeError("x"), false, false],
];

describe.each(CASES)("%s", (_name, make, idempotent, post) => {
  test.each(["GET", "PATCH", "DELETE"])(`%s retried: ${idempotent}`, (method) => {
    expect(retryDelay(make(), { method }, 0, policy) !== undefined).toBe(idempotent);
  });
  test(`POST retried: ${post}`, () => {
    expect(retryDelay(make(), { method: "POST" }, 0, policy) !== undefined).toBe(post);
  });
  test(`POST with an idempotency key retried like PATCH: ${idempotent}`, () => {
    expect(retryDelay(make(), { method: "POST", idempotencyKey: true }, 0, policy) !== undefined).toBe(
      idempotent,
    );
  });
});

// failure, its answer was lost, error (the request may have taken effect: maybeApplied)
const LOST: [string, boolean, () => unknown][] = [
  ["500 (the service may have failed after committing)", true, () => status(500)],
  ["502", true, () => status(502)],
  ["504", true, () => status(504)],
  ["503 without Retry-After", true, () => status(503)],
  ["503 with Retry-After", false, () => status(503, "1")],
  ["429", false, () => status(429, "1")],
  ["400", false, () => status(400)],
  ["409", false, () => status(409)],
  ["connection reset (or a body cut mid-way)", true, reset],
  ["timeout", true, timeout],
  ["connection refused (not sent)", false, refused],
  ["a bug", false, () => new TypeError("x")],
];
test.each(LOST)("%s: a lost answer: %s", (_name, lost, make) => {
  expect(isLostAnswer(make())).toBe(lost);
});

test("Retry-After is honoured and capped at 30 s; a 429 adds the backoff's jitter on top", () => {
  const lowest = () => 0;
  const highest = () => 0.999999;
  expect(retryDelay(status(429, "2"), { method: "GET" }, 0, policy, lowest)).toBe(2000);
  expect(retryDelay(status(429, "2"), { method: "GET" }, 0, policy, highest)).toBe(2000 + 199);
  expect(retryDelay(status(429, "2"), { method: "GET" }, 3, policy, highest)).toBe(2000 + 1599);
  expect(retryDelay(status(429, "3600"), { method: "GET" }, 0, policy, lowest)).toBe(30_000);
  expect(retryDelay(status(429), { method: "POST" }, 2, policy, highest)).toBe(799);
  expect(retryDelay(status(503, "0"), { method: "POST" }, 0, policy)).toBe(0);
  expect(retryDelay(status(503, "2"), { method: "POST" }, 0, policy, highest)).toBe(2000);
});

test("429s are retried past maxRetries, as long as the budget lasts", async () => {
  const clock = fakeClock();
  const attempt = failing(() => status(429, "1"));
  const err = await withRetries(
    { method: "DELETE" },
    { ...policy, maxRetries: 2, budgetMs: 10_000 },
    1000,
    attempt,
    clock,
  ).catch((e: unknown) => e);
  expect(err).toMatchObject({ status: 429 });
  // Each wait is 1 s + the backoff at random 0.5 (half of 200 ms · 2^retry, at most 5 s): 1,100,
  // 1,200, 1,400, 1,800 and 2,600 ms; the sixth (1 s + 2,500 ms) would end after the 10 s budget.
  expect(clock.sleeps).toEqual([1100, 1200, 1400, 1800, 2600]);
  expect(attempt.calls).toBe(6);
});

test("full-jitter exponential backoff: within [0, min(5 s, 200 ms · 2^n))", () => {
  for (let n = 0; n < 10; n++) {
    const ceiling = Math.min(5000, 200 * 2 ** n);
    expect(backoffDelay(n, policy, () => 0)).toBe(0);
    expect(backoffDelay(n, policy, () => 0.999999)).toBe(ceiling - 1);
  }
});

/** A fake clock: sleeping advances time instantly. */
function fakeClock(): RetryClock & { t: number; sleeps: number[] } {
  const clock = {
    t: 0,
    sleeps: [] as number[],
    now: () => clock.t,
    sleep: async (ms: number) => {
      clock.sleeps.push(ms);
      clock.t += ms;
    },
    random: () => 0.5,
  };
  return clock;
}

/**
 * An attempt of the retry loop that always throws `make()`, after `each` (given the attempt's
 * timeout, e.g. to spend time on the fake clock); `calls` counts the attempts made.
 */
function failing(make: () => unknown, each: (timeoutMs: number) => void = () => {}) {
  const attempt = Object.assign(
    async (timeoutMs: number): Promise<never> => {
      attempt.calls++;
      each(timeoutMs);
      throw make();
    },
    { calls: 0 },
  );
  return attempt;
}

test("stops after maxRetries and reports the attempts", async () => {
  const clock = fakeClock();
  const attempt = failing(() => status(503));
  const err = await withRetries({ method: "GET" }, { ...policy, maxRetries: 3 }, 1000, attempt, clock).catch(
    (e: unknown) => e,
  );
  expect(attempt.calls).toBe(4);
  expect((err as { attempts: number }).attempts).toBe(4);
  expect(clock.sleeps).toEqual([100, 200, 400]);
});

test("the budget bounds the total time, even with many retries allowed", async () => {
  const clock = fakeClock();
  const attempt = failing(
    () => status(503),
    () => (clock.t += 10),
  ); // each attempt takes 10 ms
  const budget = { ...policy, maxRetries: 1_000_000, budgetMs: 60_000 };
  await expect(withRetries({ method: "GET" }, budget, 30_000, attempt, clock)).rejects.toMatchObject({
    status: 503,
  });
  expect(clock.t).toBeLessThanOrEqual(60_000);
  expect(attempt.calls).toBeLessThan(40);
});

test("retry timeouts are cut to what is left of the budget", async () => {
  const clock = fakeClock();
  const timeouts: number[] = [];
  const attempt = failing(timeout, (ms) => {
    timeouts.push(ms);
    clock.t += ms; // each attempt times out
  });
  const budget = { ...policy, maxRetries: 10, budgetMs: 5000 };
  await expect(withRetries({ method: "GET" }, budget, 3000, attempt, clock)).rejects.toBeInstanceOf(
    APIConnectionTimeoutError,
  );
  expect(timeouts[0]).toBe(3000);
  expect(timeouts[1]).toBeLessThanOrEqual(5000 - 3000);
  expect(clock.t).toBeLessThanOrEqual(5000);
});

test("a Retry-After longer than the rest of the budget is not waited for", async () => {
  const clock = fakeClock();
  const attempt = failing(() => status(429, "20"));
  await expect(
    withRetries({ method: "POST" }, { ...policy, budgetMs: 10_000 }, 1000, attempt, clock),
  ).rejects.toMatchObject({ status: 429, retryAfterSeconds: 20 });
  expect(attempt.calls).toBe(1);
  expect(clock.sleeps).toEqual([]);
});

test("POST after a reset: one attempt only", async () => {
  const attempt = failing(reset);
  await expect(withRetries({ method: "POST" }, policy, 1000, attempt, fakeClock())).rejects.toBeInstanceOf(
    APIConnectionError,
  );
  expect(attempt.calls).toBe(1);
});

test("success after failures returns the value", async () => {
  let calls = 0;
  const value = await withRetries(
    { method: "PATCH" },
    policy,
    1000,
    async () => {
      if (++calls < 3) throw reset();
      return "ok";
    },
    fakeClock(),
  );
  expect(value).toBe("ok");
});

test("no retry whose wait would end exactly at the budget, nor after a wait that woke at its end", async () => {
  const exact = fakeClock();
  const once = failing(() => status(429, "1"));
  const budget = { ...policy, maxRetries: 5, budgetMs: 1100 }; // the first wait: 1 s + 100 ms of backoff
  await expect(withRetries({ method: "GET" }, budget, 1000, once, exact)).rejects.toMatchObject({
    status: 429,
  });
  expect([once.calls, exact.sleeps]).toEqual([1, []]);

  const late = fakeClock();
  late.sleep = async (ms: number) => {
    late.sleeps.push(ms);
    late.t += ms + 100; // woke 100 ms late: the budget of 1,200 ms is spent
  };
  const afterWait = failing(() => status(429, "1"));
  await expect(
    withRetries({ method: "GET" }, { ...budget, budgetMs: 1200 }, 1000, afterWait, late),
  ).rejects.toMatchObject({ status: 429 });
  expect([afterWait.calls, late.sleeps]).toEqual([1, [1100]]);
});

test("Retry-After sets the delay of a 503 only: a 502 with one waits the backoff, a 500 with one is not retried", () => {
  const highest = () => 0.999999;
  expect(retryDelay(status(502, "5"), { method: "GET" }, 0, policy, highest)).toBe(199);
  expect(retryDelay(status(500, "5"), { method: "GET" }, 0, policy)).toBeUndefined();
});

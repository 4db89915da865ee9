/**
 * Rate limit plugin (`onRequest`, after authentication): per account, either at most `max` public
 * requests in any rolling window of `windowMs` milliseconds, or, with a `burst`, a token bucket
 * that refills `max` requests per `windowMs` and holds at most `burst`; past the limit, 429 / 226
 * with `Retry-After` in whole seconds (at least 1).
 *
 * Written here rather than taken from `@fastify/rate-limit`, because the service's behaviour
 * needs what that plugin's stores do not do (test/emulator/plugins/faults.test.ts, "answers
 * 429 / 226 … over a rolling window"):
 * - the window is rolling: a request counts until `windowMs` after it was made, so when the
 *   oldest leaves, one more request passes and the next is limited with `Retry-After` counting
 *   to the next-oldest (the plugin's stores count per fixed window and pass every request again
 *   once that window ends);
 * - time is the app's clock (`app.clock`), which the tests set (the plugin reads `Date.now()`);
 * - a refused request does not count, and the check runs between authentication and
 *   `Service-Version` on every public request, unknown paths included (the plugin's hooks are
 *   route hooks, run after every app-wide `onRequest` hook, and not on the not-found handler).
 *
 * The token bucket (`burst` set) is the other shape public APIs limit with: an account that was
 * idle may send `burst` requests at once, and then `max` per `windowMs`, evenly spread (one every
 * `windowMs / max` ms); `Retry-After` is the wait for the next token, rounded up to a second.
 * Each account's bucket starts full.
 *
 * @packageDocumentation
 */
import fp from "fastify-plugin";
import { ErrorReply } from "../errorReply";

/** Most requests per window, and the largest burst, the rate limit options accept: 1,000,000. */
export const RATE_LIMIT_MAX = 1_000_000;

/** Longest window the rate limit options accept: 86,400,000 ms (a day). */
export const RATE_LIMIT_WINDOW_MAX_MS = 86_400_000;

/**
 * Options of the rate limit (`rateLimit` of `createApp` and `startEmulator`): at most `max` requests per rolling `windowMs`
 * **milliseconds**; with `burst`, a token bucket refilled with `max` per `windowMs` that holds
 * at most `burst` requests.
 */
export interface RateLimitOptions {
  /** Requests per window: a whole number from 1 to {@link RATE_LIMIT_MAX}. */
  max: number;
  /** The window in **milliseconds**: a whole number from 1 to {@link RATE_LIMIT_WINDOW_MAX_MS}. */
  windowMs: number;
  /**
   * Requests an idle account may send at once (token bucket); a whole number from 1 to
   * {@link RATE_LIMIT_MAX}. Absent: the rolling window.
   */
  burst?: number;
}

/**
 * Checks the rate limit options; `prefix` names them in the error (`rateLimit.` for `createApp`).
 *
 * @throws Error naming the member and its range when one is not a whole number within it.
 */
export function checkRateLimit(opts: RateLimitOptions, prefix = "rateLimit."): RateLimitOptions {
  const ranges: [keyof RateLimitOptions, number, string][] = [
    ["max", RATE_LIMIT_MAX, "requests"],
    ["windowMs", RATE_LIMIT_WINDOW_MAX_MS, "milliseconds"],
    ["burst", RATE_LIMIT_MAX, "requests"],
  ];
  for (const [name, most, unit] of ranges) {
    const value = opts[name];
    if (name === "burst" && value === undefined) continue;
    if (!Number.isSafeInteger(value) || (value as number) < 1 || (value as number) > most)
      throw new Error(
        `${prefix}${name} must be a whole number of ${unit} from 1 to ${most}, got ${String(value)}`,
      );
  }
  return opts.burst === undefined
    ? { max: opts.max, windowMs: opts.windowMs }
    : { max: opts.max, windowMs: opts.windowMs, burst: opts.burst };
}

/**
 * One account's state: a rolling window (times in ms of its requests within the window, oldest
 * first), or a token bucket (tokens left at time `at`).
 */
interface Limiter {
  /** `0` when the request may pass (and counts it), else the seconds to wait for `Retry-After`. */
  take(now: number): number;
}

/** The rolling window: at most `max` requests in any `windowMs`. */
function rollingWindow(max: number, windowMs: number): Limiter {
  const q: number[] = [];
  return {
    take(now) {
      while (q.length > 0 && q[0] <= now - windowMs) q.shift();
      if (q.length >= max) return Math.max(1, Math.ceil((q[0] + windowMs - now) / 1000));
      q.push(now);
      return 0;
    },
  };
}

/** The token bucket: `burst` tokens at most, `max` per `windowMs` added evenly; starts full. */
function tokenBucket(max: number, windowMs: number, burst: number): Limiter {
  const perMs = max / windowMs;
  let tokens = burst;
  let at: number | undefined;
  return {
    take(now) {
      if (at !== undefined) tokens = Math.min(burst, tokens + Math.max(0, now - at) * perMs);
      at = now;
      if (tokens >= 1) {
        tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - tokens) / perMs / 1000));
    },
  };
}

/** The limit's wording in the 429's message. */
function describeLimit({ max, windowMs, burst }: RateLimitOptions): string {
  const per = `${max} requests per ${windowMs / 1000} seconds`;
  return burst === undefined ? `at most ${per}` : `${per}, in bursts of at most ${burst}`;
}

/**
 * The per-account rate limit (see the module comment).
 *
 * @throws Error from {@link checkRateLimit} when the options are out of range.
 */
export const rateLimitPlugin = fp<RateLimitOptions>(
  (app, opts, done) => {
    const limit = checkRateLimit(opts);
    const { max, windowMs, burst } = limit;
    const described = describeLimit(limit);
    const limiters = new Map<string, Limiter>();
    app.addHook("onRequest", (request, _reply, next) => {
      const account = request.account;
      if (account === null) {
        next();
        return;
      }
      let limiter = limiters.get(account.id);
      if (!limiter) {
        limiter = burst === undefined ? rollingWindow(max, windowMs) : tokenBucket(max, windowMs, burst);
        limiters.set(account.id, limiter);
      }
      const retryAfterSeconds = limiter.take(app.clock());
      if (retryAfterSeconds > 0) {
        next(
          new ErrorReply(226, `rate limited: ${described}; retry after ${retryAfterSeconds} seconds`, {
            retryAfterSeconds,
          }),
        );
        return;
      }
      next();
    });
    app.addHook("onClose", (_instance, next) => {
      limiters.clear();
      next();
    });
    done();
  },
  { name: "rate-limit", dependencies: ["authentication"] },
);

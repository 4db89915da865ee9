/**
 * The retry policy of the client, in one place.
 *
 * What is retried (the service reference has no rule; these are ours, see README § Client):
 *
 * | failure                                   | GET / PATCH / DELETE | POST (no idempotency key) |
 * |-------------------------------------------|----------------------|---------------------------|
 * | 429 (waits `Retry-After` + jitter)        | retried              | retried                   |
 * | 503 with `Retry-After`                    | retried              | retried                   |
 * | 502, 503, 504                             | retried              | **not** retried           |
 * | connection could not be opened            | retried              | retried                   |
 * | connection reset, timeout, socket closed  | retried              | **not** retried           |
 * | any other status, invalid response        | not retried          | not retried               |
 * | TLS certificate rejected                  | not retried          | not retried               |
 *
 * A POST creates a resource. It is retried only when the request provably did not reach the
 * handler: a 429 (rate limiting happens before the handler), a 503 that carries `Retry-After`
 * (the service refusing work), or a connection that never opened. After a reset or a timeout the
 * first POST may have created the resource, and a second one would create a duplicate, so the
 * error is thrown instead. A POST that carries an `Idempotency-Key` (client option
 * `idempotencyKeys`, or `idempotencyKey` per call) is retried like a PATCH, because a server
 * that honours the key answers the retry with the first result.
 *
 * Delays: full-jitter exponential backoff, random in `[0, min(maxDelayMs, baseDelayMs · 2^retry))`;
 * a 503 with `Retry-After` waits that (capped at {@link RetryPolicy.maxRetryAfterMs}) instead, and a
 * 429 waits its `Retry-After` (capped likewise; 0 without one) plus the backoff, so that requests a
 * rate limit refused at one instant come back spread out instead of together.
 * Bounds: at most `maxRetries` retries (429s not counted: the rate limit turned them away before
 * the handler, and only the budget bounds them), and no retry whose delay would end after `budgetMs`
 * (counted from the start of the first attempt); a retry's own timeout is cut to what is left of
 * the budget, so a call never takes much longer than `max(timeoutMs, budgetMs)`.
 *
 * @packageDocumentation
 */
import { APICertificateError, APIConnectionError, APIError } from "./errors";

/** Bounds and delays of the retry loop. All durations in **milliseconds**. */
export interface RetryPolicy {
  /** Most retries after the first attempt (so at most `maxRetries + 1` attempts), 429s not counted. Default 4. */
  maxRetries: number;
  /** Total time budget of a call, retries and delays included, in ms. Default 60 000. */
  budgetMs: number;
  /** Base of the exponential backoff, in ms. Default 200. */
  baseDelayMs: number;
  /** Cap of one backoff delay, in ms. Default 5 000. */
  maxDelayMs: number;
  /** Cap of a delay taken from `Retry-After`, in ms. Default 30 000. */
  maxRetryAfterMs: number;
}

/** Defaults of {@link RetryPolicy}. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 4,
  budgetMs: 60_000,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 30_000,
});

/** What the policy needs to know about a request. */
export interface RetryRequest {
  /** HTTP method, upper case. */
  method: string;
  /**
   * True when the request carries an `Idempotency-Key` header that the server is trusted to
   * honour (always with `idempotencyKeys: true`; with `"auto"`, once the server has echoed a
   * key). Read at each retry decision.
   */
  idempotencyKey?: boolean;
}

/** True when sending the request twice has the effect of sending it once (GET, PATCH, DELETE, keyed POST). */
export function isReplayable(req: RetryRequest): boolean {
  return req.method !== "POST" || req.idempotencyKey === true;
}

/**
 * True when `error` means the request reached the service but its answer was lost, so it may
 * have taken effect: a connection error after sending (reset, timeout, a body cut mid-way), a
 * 500 (the service failed somewhere, possibly after committing the request's changes), or a
 * 502, 504, or 503 without `Retry-After` (a gateway that may have passed the request on). A 503
 * with `Retry-After`, a 429 and every other status are the service's own answer.
 */
export function isLostAnswer(error: unknown): boolean {
  if (error instanceof APIConnectionError) return !error.requestNotSent;
  if (error instanceof APIError) {
    return (
      error.status === 500 ||
      error.status === 502 ||
      error.status === 504 ||
      (error.status === 503 && error.retryAfterSeconds === undefined)
    );
  }
  return false;
}

/** Full-jitter exponential backoff delay of retry number `retry` (0-based), in ms. */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/**
 * Pure decision: the delay in ms before retrying after `error`, or `undefined` when the error
 * must be thrown. Ignores `maxRetries` and the budget (see `withRetries`).
 */
export function retryDelay(
  error: unknown,
  req: RetryRequest,
  retry: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number | undefined {
  const replayable = isReplayable(req);
  const backoff = () => backoffDelay(retry, policy, random);
  if (error instanceof APIError) {
    const retryAfterMs =
      error.retryAfterSeconds === undefined
        ? undefined
        : Math.min(policy.maxRetryAfterMs, Math.ceil(error.retryAfterSeconds * 1000));
    // Refused together, retried apart: the jitter on top of Retry-After spreads the requests a
    // rate limit turned away at one instant, so they do not all meet the limit again at the next.
    if (error.status === 429) return (retryAfterMs ?? 0) + backoff();
    if (error.status === 503 && retryAfterMs !== undefined) return retryAfterMs;
    if (replayable && (error.status === 502 || error.status === 503 || error.status === 504))
      return backoff();
    return undefined;
  }
  // A certificate the client does not trust stays untrusted: trying again only delays the error.
  if (error instanceof APICertificateError) return undefined;
  if (error instanceof APIConnectionError && (replayable || error.requestNotSent)) return backoff();
  return undefined;
}

/** Time source of the retry loop; tests pass a fake one. */
export interface RetryClock {
  /** Current time in ms. */
  now(): number;
  /** Resolves after `ms` milliseconds. */
  sleep(ms: number): Promise<void>;
  /** Uniform random number in [0, 1). */
  random(): number;
}

/** The real clock: `Date.now`, `setTimeout`, `Math.random`. */
export const realClock: RetryClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: () => Math.random(),
};

/**
 * Runs `attempt` until it succeeds, the policy says stop, `maxRetries` retries were made, or the
 * budget is spent; then throws the last error, with its `attempts` count set, and
 * `maybeApplied` set when any attempt's answer was lost ({@link isLostAnswer}). `attempt`
 * receives the timeout of this attempt in ms (`timeoutMs`, cut to the rest of the budget on
 * retries). `onRetry`, when given, is told of each retry before its wait: the number of the
 * attempt to come and the wait in ms.
 */
export async function withRetries<T>(
  req: RetryRequest,
  policy: RetryPolicy,
  timeoutMs: number,
  attempt: (timeoutMs: number, attemptNumber: number) => Promise<T>,
  clock: RetryClock = realClock,
  onRetry?: (nextAttempt: number, delayMs: number) => void,
): Promise<T> {
  const start = clock.now();
  let attemptTimeout = timeoutMs;
  let lost = false;
  for (let n = 1; ; n++) {
    try {
      return await attempt(attemptTimeout, n);
    } catch (error) {
      lost ||= isLostAnswer(error);
      if (error instanceof APIError || error instanceof APIConnectionError) {
        error.attempts = n;
        error.maybeApplied = lost;
      }
      const retry = n - 1;
      // A 429 was turned away before the handler: only the budget bounds its retries.
      const rateLimited = error instanceof APIError && error.status === 429;
      if (retry >= policy.maxRetries && !rateLimited) throw error;
      const delay = retryDelay(error, req, retry, policy, clock.random);
      if (delay === undefined || clock.now() - start + delay >= policy.budgetMs) throw error;
      onRetry?.(n + 1, delay);
      await clock.sleep(delay);
      attemptTimeout = Math.min(timeoutMs, policy.budgetMs - (clock.now() - start));
      if (attemptTimeout <= 0) throw error;
    }
  }
}

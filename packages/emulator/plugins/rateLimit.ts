/**
 * Rate limit plugin (`onRequest`, after authentication): at most `max` public requests per
 * account in any rolling window of `windowMs` milliseconds, else 429 / 226 with `Retry-After`.
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
 * @packageDocumentation
 */
import fp from "fastify-plugin";
import { ErrorReply } from "../errorReply";

/** Options of {@link rateLimitPlugin}: at most `max` requests per rolling `windowMs` **milliseconds**. */
export interface RateLimitOptions {
  max: number;
  windowMs: number;
}

/** The per-account rate limit (see the module comment). */
export const rateLimitPlugin = fp<RateLimitOptions>(
  (app, { max, windowMs }, done) => {
    /** Times (ms) of each account's requests within the window, oldest first. */
    const windows = new Map<string, number[]>();
    app.addHook("onRequest", (request, _reply, next) => {
      const account = request.account;
      if (account === null) {
        next();
        return;
      }
      const now = app.clock();
      let q = windows.get(account.id);
      if (!q) windows.set(account.id, (q = []));
      while (q.length > 0 && q[0] <= now - windowMs) q.shift();
      if (q.length >= max) {
        const retryAfterSeconds = Math.max(1, Math.ceil((q[0] + windowMs - now) / 1000));
        next(
          new ErrorReply(
            226,
            `rate limited: at most ${max} requests per ${windowMs / 1000} seconds; retry after ${retryAfterSeconds} seconds`,
            { retryAfterSeconds },
          ),
        );
        return;
      }
      q.push(now);
      next();
    });
    app.addHook("onClose", (_instance, next) => {
      windows.clear();
      next();
    });
    done();
  },
  { name: "rate-limit", dependencies: ["authentication"] },
);

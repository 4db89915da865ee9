/**
 * What a create whose answer was lost has to go on, for the create-once protocol (createOnce.ts),
 * a placeholder's settlement (placeholderSettlement.ts, pendingCreate.ts), the timeouts
 * (timeouts.ts) and `service-recover` (gitops/recovery.ts): when a failed request may have taken
 * effect, and how far back a lookup of what it made reaches.
 *
 * @packageDocumentation
 */
import { APIConnectionError, APIError } from "../../../client/errors";
import { isLostAnswer } from "../../../client/retry";

/**
 * How far before the first attempt the lookup reaches, in **milliseconds**, when the service's
 * clock is not known yet (no response carried a `Date`): room for clock skew between this
 * machine and the service, and for `created_at`'s whole seconds.
 */
export const CLOCK_SKEW_MS = 30_000;

/**
 * How far before the first attempt the lookup reaches, in **milliseconds**, in the service's own
 * time (`CreateOnceSpec.serviceNow`). The client's estimate is already a lower bound of the
 * service's time (the least offset of recent 2xx answers: client/serviceClock.ts), so the margin
 * covers `created_at`'s whole seconds (1 s), the clocks' drift between answers (well under 0.1 s),
 * and about 0.9 s more for a replica of the service no recent answer came from. Resources made earlier, by an earlier
 * `up` of the stack above all, are then out of the window, even while the engine has not yet
 * shown this provider that the stack holds them.
 */
export const SERVICE_CLOCK_MARGIN_MS = 2_000;

/**
 * How many times a lookup lists the kind before it gives up (each listing's pages retried by the
 * client, and a pause between listings: `RELIST_PAUSE_MS`, lookup.ts).
 */
export const LISTINGS = 5;

/** `what` after its indefinite article: "an event subscription", "a thing". */
export function withArticle(what: string): string {
  return `${/^[aeiou]/i.test(what) ? "an" : "a"} ${what}`;
}

/** An error's message (or the thrown value as text). */
export function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * True when a create that failed with `err` may nevertheless have taken effect: the client's
 * `maybeApplied` (an earlier attempt's answer was lost: e.g. a reset retried with an
 * `Idempotency-Key`, whatever the last attempt answered), or the error itself is a lost answer
 * (`isLostAnswer`: a reset or timeout after sending, a 500, 502, 504 or 503 without `Retry-After`).
 */
export function maybeApplied(err: unknown): boolean {
  if (err instanceof APIError || err instanceof APIConnectionError)
    return err.maybeApplied || isLostAnswer(err);
  return false;
}

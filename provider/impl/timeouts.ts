/**
 * `customTimeouts` for create, update and delete. The engine hands a resource's timeouts to its
 * provider and leaves them to it: the native door receives them in each request (seconds), the
 * dynamic door from the options its resource classes forward (`__resourceOptions`, see
 * resourceOptions.ts; Pulumi's duration strings such as `"2s"` or `"1m30s"`).
 *
 * An operation with a timeout runs under a client deadline (client/deadline.ts): every request
 * of it, retries, waits and a lost create's lookup included, ends by the timeout, and none is
 * sent after it. The operation then fails within {@link TIMEOUT_MARGIN_MS} of the timeout with an
 * error that names it. What that leaves behind:
 * - a delete that timed out is still in the state, so the next `destroy` or `up` deletes it again
 *   (a delete already done counts as done);
 * - an update that timed out may or may not have been applied: the next `up` compares again and
 *   sends what still differs;
 * - a create that timed out after its request may have reached the service may still be made by
 *   it. Such a create of an event subscription or destination fails as Pulumi's "initialization
 *   failed": the stack keeps the resource under a placeholder ID (`pending-create-<uuid>`) with a
 *   marker of when the create was sent, and the next `up` replaces the placeholder by the resource
 *   the service made (found as a lost create is: identical values, unclaimed, made since the
 *   send) or, when there is none, by a new one (see pendingCreate.ts). The error says so.
 *   Abuse reports cannot be listed, so theirs says the report may still be filed, to be found with
 *   `service-drift generate` and taken with `adoptId` or `pulumi import`.
 *
 * @packageDocumentation
 */
import { withDeadline } from "../../client/deadline";
import { maybeApplied } from "./create/lostAnswer";
import { RESOURCE_OPTIONS_INPUT, carryOptions } from "./resourceOptions";

/** How long after its timeout an operation may still take to fail, in **milliseconds**. */
export const TIMEOUT_MARGIN_MS = 1_000;

/** The operations `customTimeouts` covers. */
export type TimedOperation = "create" | "update" | "delete";

/** Units of Pulumi's (Go's) duration strings, in milliseconds. */
const UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Milliseconds of a duration string as Pulumi's `customTimeouts` take it (Go's
 * `time.ParseDuration`: `"2s"`, `"1m30s"`, `"1.5h"`, `"500ms"`), or `undefined` when `value` is
 * not one (the engine refuses such a string before any provider sees it).
 */
export function durationMs(value: unknown): number | undefined {
  if (typeof value !== "string" || !/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(value)) return undefined;
  let total = 0;
  for (const [, n, , unit] of value.matchAll(/(\d+(\.\d+)?)(ns|us|µs|ms|s|m|h)/g))
    total += Number(n) * UNITS[unit];
  return total;
}

/**
 * The dynamic door's timeout of `operation`, in **milliseconds**, from the forwarded options in
 * `props` (inputs, or the state's outputs for a delete), or `undefined` when none is set.
 */
export function forwardedTimeoutMs(props: unknown, operation: TimedOperation): number | undefined {
  const forwarded = (props as Record<string, unknown> | undefined)?.[RESOURCE_OPTIONS_INPUT];
  const timeouts = (forwarded as { customTimeouts?: Record<string, unknown> } | undefined)?.customTimeouts;
  const ms = durationMs(timeouts?.[operation]);
  return ms !== undefined && ms > 0 ? ms : undefined;
}

/**
 * The error of an operation that did not finish within its timeout ({@link withTimeout}): its
 * message names the timeout; `mayHaveBeenMade` is true for a create whose request may have
 * reached the service (it may still make the resource), and `headline` is the start of the message
 * (what did not finish within which timeout), for a caller that says the rest (pendingCreate.ts).
 */
export class OperationTimeoutError extends Error {
  constructor(
    /** The operation that timed out. */
    readonly operation: TimedOperation,
    /** `<operation> of <what> did not finish within <timeout>`: the message is this, `: <cause>.` and the advice. */
    readonly headline: string,
    /** True for a create that the service may still make. */
    readonly mayHaveBeenMade: boolean,
    advice: string,
    cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`${headline}: ${reason}.${advice}`, { cause });
    this.name = "OperationTimeoutError";
  }
}

/** `ms` for a person: `2 s`, `1.5 s`, `250 ms`. */
function seconds(ms: number): string {
  return ms >= 1_000 ? `${Number((ms / 1_000).toFixed(3))} s` : `${Math.round(ms)} ms`;
}

/**
 * Runs the `operation` of `what` (e.g. `event subscription esb_…`) within `timeoutMs`
 * **milliseconds**, or without a limit when it is `undefined` or 0.
 * @throws {@link OperationTimeoutError} naming the timeout (`customTimeouts.<operation>`), with the
 *   operation's own error as its cause, when the timeout passes first; the operation's own error
 *   otherwise.
 */
export async function withTimeout<T>(
  operation: TimedOperation,
  what: string,
  timeoutMs: number | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  if (!timeoutMs || timeoutMs <= 0) return fn();
  const label = `the ${operation} timeout of ${seconds(timeoutMs)} (customTimeouts.${operation})`;
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  // Work that is not a request (a lookup waiting for a sibling's create) is cut off here.
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("no answer")), timeoutMs + TIMEOUT_MARGIN_MS / 2);
  });
  try {
    return await Promise.race([withDeadline(timeoutMs, label, fn), expired]);
  } catch (err) {
    if (Date.now() - started < timeoutMs) throw err;
    const noAnswer = err instanceof Error && err.message === "no answer";
    const mayHaveBeenMade = operation === "create" && (maybeApplied(err) || noAnswer);
    const after = mayHaveBeenMade
      ? " The service may still make it: find it with `service-drift generate` (which lists the account's resources) and take it with `adoptId` or `pulumi import` rather than letting the next `up` create another."
      : operation === "delete"
        ? " It stays in the stack: the next `pulumi destroy` (or `up`) deletes it again."
        : "";
    throw new OperationTimeoutError(
      operation,
      `${operation} of ${what} did not finish within ${label}`,
      mayHaveBeenMade,
      after,
      err,
    );
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs a resource's create, update or delete (`fn`) under its `customTimeouts`: `timeoutMs` (the
 * native door's, in **milliseconds**) or else the dynamic door's forwarded one in `props` (the
 * inputs; the state's outputs for a delete). A result with outputs (create, update) carries the
 * forwarded options of `props` into them (see `carryOptions`), for a later delete.
 * @throws as {@link withTimeout}.
 */
export async function timed<T>(
  operation: TimedOperation,
  what: string,
  props: unknown,
  timeoutMs: number | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  const limitMs = timeoutMs ?? forwardedTimeoutMs(props, operation);
  return withTimeout(operation, what, limitMs, async () => {
    const result = await fn();
    return result && typeof result === "object" && "outs" in result ? carryOptions(result, props) : result;
  });
}

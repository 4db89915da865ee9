/**
 * Deadlines over whole operations: every request the client makes inside {@link withDeadline}
 * ends by the deadline, retries and their waits included, however many calls the operation
 * makes (a create, the lookup after a lost answer, the pages of a listing). The deadline
 * travels with the asynchronous context (`AsyncLocalStorage`), so the calls need no extra
 * argument: the provider wraps an operation once, for a resource's `customTimeouts`.
 *
 * @packageDocumentation
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** A point in time by which every request must have ended, and how errors name it. */
export interface Deadline {
  /** The deadline, in **milliseconds** since the epoch (`Date.now()`'s clock). */
  at: number;
  /** What set it, for error messages, e.g. `the create timeout of 2 s (customTimeouts.create)`. */
  label: string;
}

const current = new AsyncLocalStorage<Deadline>();

/**
 * Runs `fn` with a deadline `timeoutMs` **milliseconds** from now: requests it makes through a
 * `ServiceClient` are cut to the time left, and none is sent once it has passed (an
 * `APIConnectionTimeoutError` with `requestNotSent` saying so). An inner deadline later than an
 * outer one does not extend it.
 * @returns what `fn` returns; its errors pass unchanged.
 */
export function withDeadline<T>(timeoutMs: number, label: string, fn: () => Promise<T>): Promise<T> {
  const at = Date.now() + timeoutMs;
  const outer = current.getStore();
  const deadline = outer && outer.at <= at ? outer : { at, label };
  return current.run(deadline, fn);
}

/** The deadline of the operation this call belongs to, if any. */
export function currentDeadline(): Deadline | undefined {
  return current.getStore();
}

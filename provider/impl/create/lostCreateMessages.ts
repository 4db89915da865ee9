/**
 * The warnings and errors of a create whose answer was lost (createOnce.ts), each from the facts
 * of that create ({@link LostCreateFacts}). Every one opens with the kind and the last error, and
 * says what the provider did or what to do next; none holds a secret (a request's values are
 * never quoted, only IDs and times).
 *
 * @packageDocumentation
 */
import { describe, withArticle } from "./lostAnswer";

/** What the messages say of one lost create. */
export interface LostCreateFacts {
  /** Kind in words, e.g. `event subscription`. */
  readonly what: string;
  /** The last error, once an attempt may have made the resource. */
  readonly lost: unknown;
  /** Set when an answer named an ID another resource holds. */
  readonly conflict: boolean;
  /** The start of the window the last lookup listed, in **milliseconds** since the Unix epoch. */
  readonly lookedSince: number;
}

/** A resource of the kind, as the messages name it. */
interface Named {
  id: string;
}

/** The opening of every message about a lost create: `<what>: the create failed and may have been made (<its last error>)`. */
export function mayHaveBeenMade(c: LostCreateFacts): string {
  return `${c.what}: the create failed and may have been made (${describe(c.lost)})`;
}

/** The warning before the create is sent once more with the same idempotency key. */
export function sameKeyWarning(c: LostCreateFacts): string {
  return `${mayHaveBeenMade(c)}; sending it again with the same Idempotency-Key, which the service honours`;
}

/**
 * The error of a kind that cannot be listed (abuse reports), once the idempotency key could not
 * settle the create: after an answer naming an ID held elsewhere, run `up` again; else the
 * resource may or may not have been made, and the service should be asked.
 */
export function cannotBeListedError(c: LostCreateFacts): Error {
  const { what } = c;
  return new Error(
    c.conflict
      ? `${what}: ${describe(c.lost)}, so it was not taken for this resource. ${what}s cannot be listed, so the ` +
          `provider cannot look for a twin: run pulumi up again to create it.`
      : `${what}: the create failed after reaching the service (${describe(c.lost)}), so it may or may not have been made. ` +
          `${what}s cannot be listed, so the provider cannot look for it, and the service has not shown that it honours Idempotency-Key, ` +
          `so sending it again could make a second one. Check with the service before running pulumi up again.`,
  );
}

/** The warning of an adoption: `adopted`, among `found` (one match, or several twins of this deployment). */
export function adoptedWarning(c: LostCreateFacts, found: Named[], adopted: Named): string {
  const { what } = c;
  const which =
    found.length === 1
      ? `exactly one ${what} with these values made since it started that no other resource of this deployment holds`
      : `${found.length} ${what}s with these values made since it started that no other resource of this deployment holds, ` +
        `no more than the creates of these values whose answers were lost`;
  return `${mayHaveBeenMade(c)}; the service holds ${which}, ${adopted.id}: adopted it`;
}

/** The error when a waiting twin differs only in a write-only secret: names `found`, adopted by no one. */
export function writeOnlySecretError(c: LostCreateFacts, found: Named[]): Error {
  const them = found.length === 1 ? "it" : "them";
  return new Error(
    `${mayHaveBeenMade(c)}, and the service holds ` +
      `${found.map((f) => f.id).join(", ")} with these values, but another create of this deployment whose request differs ` +
      `only in what the service does not return (a write-only secret) lost its answer too: the provider cannot tell whose ` +
      `it is, so no resource of this deployment adopts ${them}. Delete ${them} (or adopt with adoptId) and run pulumi up again.`,
  );
}

/** The error when more resources match than creates of those values wait: names every one of `found`. */
export function severalMatchesError(c: LostCreateFacts, found: Named[]): Error {
  return new Error(
    `${mayHaveBeenMade(c)}, and ${found.length} ${c.what}s made since ` +
      `${new Date(c.lookedSince).toISOString()} have exactly these values: ${found.map((f) => f.id).join(", ")}. ` +
      `The provider cannot tell which one (if any) this create made, so it adopts none. Delete the extra ones ` +
      `(or adopt one with adoptId) and run pulumi up again.`,
  );
}

/** The warning when the lookup found none: the create did not happen and is sent once more. */
export function noneWarning(c: LostCreateFacts): string {
  return `${mayHaveBeenMade(c)}, but the service holds no such ${c.what}: sending it again`;
}

/** The error when the create failed twice and the lookup found none either time: nothing was created. */
export function nothingCreatedError(c: LostCreateFacts): Error {
  const { what } = c;
  return new Error(
    `${what}: the create failed twice (last: ${describe(c.lost)}), and the service holds no ${what} ` +
      `with these values made since ${new Date(c.lookedSince).toISOString()}: nothing was created. Run pulumi up again.`,
  );
}

/** The error of a lookup whose listing failed `listings` times: what to look for, made since `sinceMs`. */
export function lookupFailedError(
  c: LostCreateFacts,
  listings: number,
  err: unknown,
  sinceMs: number,
): Error {
  return new Error(
    `${mayHaveBeenMade(c)}, and looking for it failed ${listings} times (last: ${describe(err)}). Before running ` +
      `pulumi up again, look for ${withArticle(c.what)} with these values made since ` +
      `${new Date(sinceMs).toISOString()}: if there is one, delete it or adopt it with adoptId.`,
  );
}

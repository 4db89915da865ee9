/**
 * The create-once protocol: one logical create, whose `POST` may reach the service and lose its
 * answer (a reset, a timeout, a 500 or a gateway's 502/504), never leaves a duplicate or an
 * orphan behind, nor gives one ID to two resources when creates run side by side. Its steps, in
 * {@link createOnce}:
 *
 * 1. **Recover** (the spec's `recover`, e.g. recovery adoption under `SERVICE_ADOPT_FROM`,
 *    recoveryAdoption.ts): what an interrupted deployment made, taken before anything is sent.
 * 2. **Send** under one `Idempotency-Key` per logical create, reused by every attempt (the client
 *    retries a reset on its own once the server has shown it honours keys).
 * 3. **Lost answer**: a failure that surely made nothing (validation, 4xx, refusals) is thrown as
 *    it is; one that may have made it (`maybeApplied`, lostAnswer.ts) is sent once more under the
 *    same key when the server honours keys, else
 * 4. **looked for**: alone among its kind's creates, the kind is listed newest first back to the
 *    first attempt (in the service's time less {@link SERVICE_CLOCK_MARGIN_MS}, else this
 *    machine's less {@link CLOCK_SKEW_MS}), keeping the resources with exactly the request's
 *    values that no resource of the deployment holds, and
 * 5. **claimed and adopted** in the same step: one match (or no more matches than the lost
 *    creates of those values waiting) is adopted; a waiting twin that differs only in a write-only
 *    secret, or more matches, fail with an error naming them; none means nothing was made, so
 * 6. **send again** (same key) and, if that is lost too, look once more.
 *
 * Kinds without a list (abuse reports) rely on the key alone. The protocol calls its services
 * through their interfaces (createOnceSpec.ts): the claim store ({@link ClaimStore}: IDs held by
 * the deployment, and a readers-writer gate per kind, in one process or across the deployment's
 * processes: claims.ts, kindGate.ts, claimsFolder.ts), the lookup (`Lookup`: lookup.ts) and the
 * spec's own steps (send, recover). Its messages are in
 * lostCreateMessages.ts. The design, its rules for creates side by side and its limits are in
 * docs/reliability.md ("Design of ambiguous creates").
 *
 * @packageDocumentation
 */
import { randomUUID } from "node:crypto";
import { monotonicNowMs } from "../../../client/serviceClock";
import { processClaims } from "./claims";
import { CLOCK_SKEW_MS, SERVICE_CLOCK_MARGIN_MS, maybeApplied } from "./lostAnswer";
import type { CreateOnceSpec, LookingCreate, Lookup } from "./createOnceSpec";
import { listingLookup } from "./lookup";
import * as say from "./lostCreateMessages";

export { ClaimRegistry, claimId, processClaims } from "./claims";
export { CLOCK_SKEW_MS, LISTINGS, SERVICE_CLOCK_MARGIN_MS, maybeApplied, withArticle } from "./lostAnswer";
export type { ClaimStore, CreateOnceSpec, Lookup } from "./createOnceSpec";

/**
 * Creates one resource and never leaves a duplicate or an orphan behind a create whose outcome
 * is unknown, nor gives one ID to two resources when creates run side by side (the steps are in
 * the module comment; docs/reliability.md, "Design of ambiguous creates").
 *
 * @returns the created resource, or the one an earlier attempt (or an identical create of this
 *   deployment, or an interrupted deployment) had made, claimed in the store for this create alone.
 * @throws the create's own error when it surely made nothing (validation, 4xx, a refusal on the
 *   first and only attempt…); an Error naming the IDs when more resources match than creates of
 *   those values are waiting; an Error saying nothing was created when two creates failed and no
 *   match exists; for kinds without a list, an Error saying the outcome is unknown.
 */
export async function createOnce<T extends { id: string; createdAt: string }>(
  spec: CreateOnceSpec<T>,
): Promise<T> {
  const c = logicalCreate(spec);
  try {
    // 1. Recover (recovery adoption, SERVICE_ADOPT_FROM): what an interrupted deployment made.
    const recovered = await spec.recover?.(c.store);
    if (recovered) return recovered;
    let sameKeySent = false;
    for (let lookups = 0; ;) {
      // 2. The create, with the idempotency key of this logical create.
      const sent = await sendCreate(c);
      if (sent) return sent.ok;
      // 3. Its answer was lost: sent once more with the same key, if the service is known to honour
      // keys (once, before any lookup).
      if (lookups === 0 && !sameKeySent && spec.keysHonoured() === true && !c.conflict) {
        sameKeySent = true;
        await spec.warn?.(say.sameKeyWarning(c));
        continue;
      }
      // 4. Otherwise the lookup; a kind that cannot be listed relies on the idempotency key alone.
      if (!spec.list || !spec.matches) throw say.cannotBeListedError(c);
      const outcome = await c.finder.lookup(c, spec.list, spec.matches);
      lookups++;
      // 5. One match, or several but no more than the lost creates of those values waiting: adopted.
      if (outcome.adopted) {
        await spec.warn?.(say.adoptedWarning(c, outcome.found, outcome.adopted));
        return outcome.adopted;
      }
      // A twin of this deployment that differs only in a write-only secret lost its answer too.
      if (outcome.unlike) throw say.writeOnlySecretError(c, outcome.found);
      // Several, more than such creates: which one (if any) is this create's cannot be told.
      if (outcome.found.length > 1) throw say.severalMatchesError(c, outcome.found);
      // 6. None: the create did not happen. Sent once more and, if that is lost too, looked for again.
      if (lookups === 2) throw say.nothingCreatedError(c);
      await spec.warn?.(say.noneWarning(c));
    }
  } finally {
    c.gate.waiting.delete(c.me);
  }
}

/**
 * One logical create of {@link createOnce}: what its steps share, from the first send to the
 * end. `T` is the kind's resource as the service returns it.
 */
interface LogicalCreate<T extends { id: string; createdAt: string }> extends LookingCreate {
  readonly spec: CreateOnceSpec<T>;
  /**
   * The `Idempotency-Key` every send uses (a UUID): one per logical create, replaced only when an
   * answer named an ID another resource holds.
   */
  key: string;
  /** The last error, once an attempt may have made the resource (until then, `undefined`). */
  lost: unknown;
  /** Set when an answer named an ID another resource holds: the key is spent, the same-key send too. */
  conflict: boolean;
  /** The lookup (`spec.finder`, default `listingLookup`, lookup.ts). */
  readonly finder: Lookup;
}

/**
 * Starts one logical create of `spec`: its kind's gate, its idempotency key (`spec.idempotencyKey`, else a new one), and its start,
 * read from `spec.now` (**milliseconds**) now, from which its lookup window is taken.
 */
function logicalCreate<T extends { id: string; createdAt: string }>(
  spec: CreateOnceSpec<T>,
): LogicalCreate<T> {
  const store = spec.registry ?? processClaims;
  const now = spec.now ?? monotonicNowMs;
  const startedMs = now();
  return {
    spec,
    what: spec.what,
    store,
    gate: store.gate(spec.what),
    key: spec.idempotencyKey ?? randomUUID(),
    since: () => {
      const serviceStartedMs = spec.serviceNow?.(startedMs);
      return serviceStartedMs === undefined
        ? startedMs - CLOCK_SKEW_MS
        : serviceStartedMs - SERVICE_CLOCK_MARGIN_MS;
    },
    lookedSince: Number.NaN,
    lost: undefined,
    conflict: false,
    finder: spec.finder ?? listingLookup,
    me: {
      matches: (live: unknown) => spec.matches?.(live as T) ?? false,
      fingerprint: spec.fingerprint,
      matchKey: spec.matchKey,
    },
  };
}

/**
 * Sends the create once, under `c.key`, as one of its kind's creates side by side (never while a
 * lookup runs). An answer is claimed at once (nothing awaits between the answer and the claim);
 * a lost answer, or one naming an ID another resource holds, counts the create as lost: waiting
 * to look. The send is let go only once the create is settled (claimed, or counted as waiting),
 * so that a lookup beside it never runs in between.
 *
 * @returns `{ ok }` with the resource claimed for this create, or `undefined` when it is lost.
 * @throws the create's own error when no attempt so far may have made the resource (`maybeApplied`
 *   false and nothing lost before).
 */
async function sendCreate<T extends { id: string; createdAt: string }>(
  c: LogicalCreate<T>,
): Promise<{ ok: T } | undefined> {
  await c.gate.enterSend();
  try {
    let made: T;
    try {
      made = await c.spec.create(c.key);
    } catch (err) {
      if (c.lost === undefined && !maybeApplied(err)) throw err;
      countAsLost(c, err);
      return undefined;
    }
    // From the answer to the claim, nothing awaits: no lookup can take the ID in between.
    if (c.store.tryClaim(made.id)) {
      c.gate.waiting.delete(c.me);
      return { ok: made };
    }
    leaveIdWithItsHolder(c, made.id);
    return undefined;
  } finally {
    c.gate.leaveSend();
  }
}

/** The create's answer was lost (`err`): it may have been made; the create waits to look. */
function countAsLost<T extends { id: string; createdAt: string }>(c: LogicalCreate<T>, err: unknown): void {
  c.lost = err;
  c.gate.waiting.add(c.me);
}

/**
 * The answer named `id`, which another resource of this deployment already holds: the ID stays
 * with its holder and the create counts as lost. It waits to look for an unclaimed twin, and any
 * later send goes under a new idempotency key (the old one would get the same answer again).
 */
function leaveIdWithItsHolder<T extends { id: string; createdAt: string }>(
  c: LogicalCreate<T>,
  id: string,
): void {
  c.lost = new Error(
    `the service answered with ${id}, which another resource of this deployment already holds`,
  );
  c.conflict = true;
  c.key = randomUUID();
  c.gate.waiting.add(c.me);
}

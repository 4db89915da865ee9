/**
 * Ambiguous creates: a `POST` whose request reached the service but whose answer
 * was lost (connection reset, timeout, a gateway's 502/504) may or may not have created the
 * resource. Sending it again could make a duplicate; giving up could leave an orphan that no
 * stack knows about. {@link createOnce} resolves it:
 *
 * 1. Every logical create gets one `Idempotency-Key` (a UUID), reused by every attempt. The
 *    client (`idempotencyKeys: "auto"`) already retries such a POST after a reset once the
 *    server has shown that it honours keys (it echoes the key); the server then answers the
 *    retry with the first result.
 * 2. When the create still fails and may have been made — an attempt's answer was lost (the
 *    client's `maybeApplied`, set even when the last attempt was, say, a 429) — and the server is
 *    known to honour keys, one more attempt with the same key settles it. A create that fails
 *    without a lost answer (validation, 4xx, 429s or 503s with `Retry-After` all along) made
 *    nothing, and its error is thrown as it is.
 * 3. Otherwise (a server that ignores the key, or one not heard from yet) the provider looks for
 *    the resource it made: it lists the resources newest first, back to {@link CLOCK_SKEW_MS}
 *    before the first attempt, and keeps those whose fields equal the request exactly. One
 *    match: adopt it. None: the create did not happen; send it once more (same key) and, if that
 *    fails the same way, look again. Several: fail with an error naming them, since the provider
 *    cannot tell which one (if any) is its own.
 *
 * Kinds without a list (abuse reports) rely on the key alone: step 2 when the server honours
 * keys, else an error that says the report may or may not have been filed.
 *
 * **Parallel creates.** The engine runs creates side by side in one provider process, so several
 * creates of identical values can be in flight while another one looks. Four rules keep every
 * resource made held by exactly one resource of the deployment (see {@link ClaimRegistry}):
 *
 * - **A lookup runs alone.** For each kind, creates are sent side by side, but a lookup waits
 *   until no create of that kind is in flight, and no create of that kind is sent while it runs.
 *   So when it looks, every create beside it has settled: its resource is either claimed (the
 *   answer arrived) or its creator is itself waiting to look (the answer was lost).
 * - **Look and claim are one step.** The lookup claims the ID it adopts before it lets anything
 *   else of the kind run; an ID claimed (created, adopted, or passed in by the engine) is never
 *   adopted again. A lookup that finds several unclaimed matches adopts one when there are no
 *   more of them than creates of those values still waiting to look (the identical resources of
 *   this deployment, made by lost creates, are interchangeable); more than that, and some of
 *   them were made elsewhere: it fails with an error naming them.
 * - **An answer naming an ID already held** (a lookup adopted the resource while its create, counted
 *   as waiting, was about to send again with the same key and get the first answer back; or the
 *   engine holds the ID for another resource) leaves that ID with its holder: the create counts as
 *   lost, looks for an unclaimed twin (the holder's own create's resource) and adopts it, or sends
 *   again under a new `Idempotency-Key`. Two resources never hold one ID.
 * - **Requests that differ only in a write-only secret** (two destinations with different API
 *   keys) look the same in a listing. While such a twin is also waiting, a lookup adopts nothing:
 *   the create fails with an error naming what it found, and no other create of the deployment
 *   may take those resources either, rather than hold one made with another's secret.
 *
 * What remains possible: a twin of identical values made by another deployment inside the lookup
 * window, or (with no twin of this deployment waiting) one that differs only in a write-only
 * secret, is indistinguishable from the lost create's and can be adopted. And a create that timed
 * out may still commit after a lookup found nothing, against a server that ignores keys: the
 * create sent again then makes a second resource. A server that honours keys rules both out.
 *
 * **Recovery adoption** ({@link CreateOnceSpec.adoptFrom}, set by `SERVICE_ADOPT_FROM`) runs
 * before all of this: see recoveryAdoption.ts.
 *
 * @packageDocumentation
 */
import { randomUUID } from "node:crypto";
import { APIConnectionError, APIError } from "../../client/errors";
import { isLostAnswer } from "../../client/retry";
import { ClaimRegistry, processClaims } from "./claims";
import { listSince } from "./listing";
import { adoptListed } from "./recoveryAdoption";

export { ClaimRegistry, claimId, processClaims } from "./claims";

/**
 * How far before the first attempt the lookup reaches, in **milliseconds**: room for clock skew
 * between this machine and the service, and for `created_at`'s whole seconds.
 */
export const CLOCK_SKEW_MS = 30_000;

/** How many times a lookup lists the kind before it gives up (each listing's pages retried by the client). */
export const LISTINGS = 3;

/** What {@link createOnce} needs to know about one kind of resource. */
export interface CreateOnceSpec<T extends { id: string; createdAt: string }> {
  /** Kind in words, for messages, e.g. `event subscription`. */
  what: string;
  /** Sends the create with this `Idempotency-Key` (the same for every attempt). */
  create(idempotencyKey: string): Promise<T>;
  /** Every resource of the kind, newest first; absent for kinds without a list. */
  list?(): AsyncIterable<T>;
  /** True when `live` has exactly the values the create sent. Required with `list`. */
  matches?(live: T): boolean;
  /**
   * The request in one canonical form, write-only secrets included (kept in this process's
   * memory, never shown). Two lost creates that `matches` cannot tell apart but whose
   * fingerprints differ (a destination's API key) never adopt each other's resource. Default:
   * every create of the kind counts as the same request.
   */
  fingerprint?: string;
  /** What the client has seen of the server and `Idempotency-Key` (`ServiceClient.idempotency.honoured`). */
  keysHonoured(): boolean | undefined;
  /** Warning shown by `pulumi up` when the provider adopts or retries; default none. */
  warn?(message: string): Promise<void> | void;
  /** Clock in **milliseconds** since the Unix epoch (tests); default `Date.now`. */
  now?(): number;
  /** Where IDs are claimed and creates of one kind are coordinated; default {@link processClaims}. */
  registry?: ClaimRegistry;
  /**
   * Recovery adoption (`SERVICE_ADOPT_FROM`, see runtime.ts): the resources of the kind that an
   * interrupted deployment made and its stack does not hold. Before sending anything, the create
   * looks among them for one with exactly its values that no resource of this deployment holds,
   * and adopts the newest such one. The kind is listed once per provider process (back to the
   * oldest of them), by its first create, and every create of the kind waits for that listing
   * before it sends anything. Needs `list` and `matches`; ignored without them. Default: off.
   */
  adoptFrom?: { ids: ReadonlySet<string>; oldestMs: number };
  /**
   * Called with a resource adopted by recovery adoption, before it is returned: what it returns
   * is the create's result (a destination re-sends its write-only secret here, which cannot be
   * compared). Default: the resource as listed.
   */
  afterRecoveryAdoption?(adopted: T): Promise<T>;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * True when a create that failed with `err` may nevertheless have taken effect: the client's
 * `maybeApplied` (an earlier attempt's answer was lost: e.g. a reset retried with an
 * `Idempotency-Key`, whatever the last attempt answered), or the error itself is a lost answer
 * (`isLostAnswer`: a reset or timeout after sending, a 502, 504 or 503 without `Retry-After`).
 */
export function maybeApplied(err: unknown): boolean {
  if (err instanceof APIError || err instanceof APIConnectionError)
    return err.maybeApplied || isLostAnswer(err);
  return false;
}

/**
 * Creates one resource and never leaves a duplicate or an orphan behind a create whose outcome
 * is unknown, nor gives one ID to two resources when creates run side by side (see the module
 * comment for the steps and rules).
 *
 * @returns the created resource, or the one an earlier attempt (or an identical create of this
 *   deployment) had made, claimed in the registry for this create alone.
 * @throws the create's own error when it surely made nothing (validation, 4xx, a refusal on the
 *   first and only attempt…); an Error naming the IDs when more resources match than creates of
 *   those values are waiting; an Error saying nothing was created when two creates failed and no
 *   match exists; for kinds without a list, an Error saying the outcome is unknown.
 */
export async function createOnce<T extends { id: string; createdAt: string }>(
  spec: CreateOnceSpec<T>,
): Promise<T> {
  const registry = spec.registry ?? processClaims;
  const gate = registry.gate(spec.what);
  const now = spec.now ?? Date.now;
  let key = randomUUID();
  const startedMs = now();
  /** The last error, once an attempt may have made the resource (until then, `undefined`). */
  let lost: unknown;
  /** Set when an answer named an ID another resource holds: the key is spent, the step-2 retry too. */
  let conflict = false;
  /** This create among the kind's creates waiting to look (its answer was lost). */
  const me = {
    matches: (live: unknown) => spec.matches?.(live as T) ?? false,
    fingerprint: spec.fingerprint,
  };

  const attempt = async (): Promise<{ ok: T } | undefined> => {
    await gate.enterSend();
    // The send is let go only once this create is settled (claimed, or counted as waiting), so
    // that a lookup beside it never runs in between.
    try {
      let made: T;
      try {
        made = await spec.create(key);
      } catch (err) {
        if (lost === undefined && !maybeApplied(err)) throw err;
        lost = err;
        gate.waiting.add(me);
        return undefined;
      }
      // From the answer to the claim, nothing awaits: no lookup can take the ID in between.
      if (registry.tryClaim(made.id)) {
        gate.waiting.delete(me);
        return { ok: made };
      }
      lost = new Error(
        `the service answered with ${made.id}, which another resource of this deployment already holds`,
      );
      conflict = true;
      key = randomUUID();
      gate.waiting.add(me);
      return undefined;
    } finally {
      gate.leaveSend();
    }
  };

  try {
    if (spec.adoptFrom && spec.list && spec.matches) {
      const adopted = await adoptListed(spec, registry, spec.adoptFrom, LISTINGS);
      if (adopted) return spec.afterRecoveryAdoption ? await spec.afterRecoveryAdoption(adopted) : adopted;
    }
    let result = await attempt();
    if (result) return result.ok;

    if (spec.keysHonoured() === true && !conflict) {
      await spec.warn?.(
        `${spec.what}: the create failed and may have been made (${describe(lost)}); sending it again with the same Idempotency-Key, which the service honours`,
      );
      result = await attempt();
      if (result) return result.ok;
    }

    if (!spec.list || !spec.matches) {
      throw new Error(
        conflict
          ? `${spec.what}: ${describe(lost)}, so it was not taken for this resource. ${spec.what}s cannot be listed, so the ` +
              `provider cannot look for a twin: run pulumi up again to create it.`
          : `${spec.what}: the create failed after reaching the service (${describe(lost)}), so it may or may not have been made. ` +
              `${spec.what}s cannot be listed, so the provider cannot look for it, and the service has not shown that it honours Idempotency-Key, ` +
              `so sending it again could make a second one. Check with the service before running pulumi up again.`,
      );
    }
    const list = spec.list;
    const matches = spec.matches;
    const since = startedMs - CLOCK_SKEW_MS;

    /** Looks alone and claims what it adopts before letting the kind go on (see the module comment). */
    const lookFor = async (): Promise<{ adopted?: T; found: T[]; unlike?: boolean }> => {
      await gate.enterLookup();
      try {
        // The client has retried each page already; a listing cut short starts again from the
        // newest, a few times, before the create gives up and names what to look for.
        const found = await listSince(
          list,
          since,
          (live) => matches(live) && !registry.isClaimed(live.id),
          LISTINGS,
          (err) =>
            new Error(
              `${spec.what}: the create failed and may have been made (${describe(lost)}), and looking for it failed ` +
                `${LISTINGS} times (last: ${describe(err)}). Before running pulumi up again, look for a ${spec.what} with these values made since ` +
                `${new Date(since).toISOString()}: if there is one, delete it or adopt it with adoptId.`,
            ),
        );
        if (found.length === 0) return { found };
        const twins = [...gate.waiting].filter((w) => w.matches(found[0]));
        if (twins.some((w) => w.fingerprint !== me.fingerprint)) {
          // Whose they are cannot be told: no create of this deployment may take them now.
          for (const f of found) registry.claim(f.id);
          return { found, unlike: true };
        }
        if (found.length > twins.length) return { found };
        // Claimed here, before the lookup lets the kind go on; tryClaim guards the rule itself.
        const adopted = found.find((f) => registry.tryClaim(f.id));
        if (!adopted) return { found: [] };
        gate.waiting.delete(me);
        return { adopted, found };
      } finally {
        gate.leaveLookup();
      }
    };

    for (let round = 1; ; round++) {
      const { adopted, found, unlike } = await lookFor();
      if (adopted) {
        const which =
          found.length === 1
            ? `exactly one ${spec.what} with these values made since it started that no other resource of this deployment holds`
            : `${found.length} ${spec.what}s with these values made since it started that no other resource of this deployment holds, ` +
              `no more than the creates of these values whose answers were lost`;
        await spec.warn?.(
          `${spec.what}: the create failed and may have been made (${describe(lost)}); the service holds ${which}, ${adopted.id}: adopted it`,
        );
        return adopted;
      }
      if (unlike) {
        throw new Error(
          `${spec.what}: the create failed and may have been made (${describe(lost)}), and the service holds ` +
            `${found.map((f) => f.id).join(", ")} with these values, but another create of this deployment whose request differs ` +
            `only in what the service does not return (a write-only secret) lost its answer too: the provider cannot tell whose ` +
            `it is, so no resource of this deployment adopts ${found.length === 1 ? "it" : "them"}. Delete ${found.length === 1 ? "it" : "them"} (or adopt with adoptId) and run pulumi up again.`,
        );
      }
      if (found.length > 1) {
        throw new Error(
          `${spec.what}: the create failed and may have been made (${describe(lost)}), and ${found.length} ${spec.what}s made since ` +
            `${new Date(since).toISOString()} have exactly these values: ${found.map((f) => f.id).join(", ")}. ` +
            `The provider cannot tell which one (if any) this create made, so it adopts none. Delete the extra ones ` +
            `(or adopt one with adoptId) and run pulumi up again.`,
        );
      }
      if (round === 2) {
        throw new Error(
          `${spec.what}: the create failed twice (last: ${describe(lost)}), and the service holds no ${spec.what} ` +
            `with these values made since ${new Date(since).toISOString()}: nothing was created. Run pulumi up again.`,
        );
      }
      await spec.warn?.(
        `${spec.what}: the create failed and may have been made (${describe(lost)}), but the service holds no such ${spec.what}: sending it again`,
      );
      result = await attempt();
      if (result) return result.ok;
    }
  } finally {
    gate.waiting.delete(me);
  }
}

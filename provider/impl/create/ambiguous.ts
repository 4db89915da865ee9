/**
 * Ambiguous creates: a `POST` whose request reached the service but whose answer
 * was lost (connection reset, timeout, a 500 or a gateway's 502/504) may or may not have created the
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
 *    the resource it made: it lists the resources newest first, back to the first attempt in the
 *    service's time less {@link SERVICE_CLOCK_MARGIN_MS} (the client's `serviceClock`, from the
 *    `Date` of the service's 2xx answers; {@link CLOCK_SKEW_MS} of this machine's time before any
 *    answer told it), and keeps those whose fields equal the request exactly. One
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
import { APIConnectionError, APIError } from "../../../client/errors";
import { isLostAnswer } from "../../../client/retry";
import { monotonicNowMs } from "../../../client/serviceClock";
import { ClaimRegistry, processClaims, type Waiter } from "./claims";
import type { CreateOnceSpec } from "./createOnceSpec";
import { listSince } from "../reads/listing";
import { adoptListed } from "./recoveryAdoption";

export { ClaimRegistry, claimId, processClaims } from "./claims";

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
 * client, and a pause between listings: `RELIST_PAUSE_MS`).
 */
export const LISTINGS = 5;

export type { CreateOnceSpec } from "./createOnceSpec";

/** `what` after its indefinite article: "an event subscription", "a thing". */
export function withArticle(what: string): string {
  return `${/^[aeiou]/i.test(what) ? "an" : "a"} ${what}`;
}

function describe(err: unknown): string {
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

/**
 * Creates one resource and never leaves a duplicate or an orphan behind a create whose outcome
 * is unknown, nor gives one ID to two resources when creates run side by side (see the module
 * comment for the steps and rules, and docs/reliability.md, "Design of ambiguous creates").
 *
 * The protocol, step by step: recovery adoption first, when asked for; then the create is sent
 * ({@link sendCreate}) with the one idempotency key of this logical create. If its answer is lost
 * and the service is known to honour keys, it is sent once more with the same key. Otherwise a
 * kind that cannot be listed fails ({@link cannotBeListedError}); one that can is looked for
 * ({@link lookup}), and the lookup's outcome decides: one match (or several, no more than the
 * lost creates of those values waiting) is adopted ({@link adoptedWarning}); a twin of this
 * deployment that differs only in a write-only secret fails the create
 * ({@link writeOnlySecretError}); several matches fail it ({@link severalMatchesError}); none
 * means the create did not happen: it is sent once more and, if that is lost too, looked for
 * again, and a second none fails it ({@link nothingCreatedError}).
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
  const c = logicalCreate(spec);
  try {
    // Recovery adoption (SERVICE_ADOPT_FROM): what an interrupted deployment made, before anything is sent.
    if (spec.adoptFrom && spec.list && spec.matches) {
      const adopted = await adoptListed(spec, c.registry, spec.adoptFrom, LISTINGS);
      if (adopted) return await afterRecoveryAdoption(c, adopted);
    }
    // The create, with the idempotency key of this logical create.
    let sent = await sendCreate(c);
    if (sent) return sent.ok;

    // Its answer was lost: sent once more with the same key, if the service is known to honour keys.
    if (spec.keysHonoured() === true && !c.conflict) {
      await spec.warn?.(sameKeyWarning(c));
      sent = await sendCreate(c);
      if (sent) return sent.ok;
    }

    // Otherwise the lookup; a kind that cannot be listed relies on the idempotency key alone.
    if (!spec.list || !spec.matches) throw cannotBeListedError(c);
    const list = spec.list;
    const matches = spec.matches;
    for (let round = 1; ; round++) {
      const outcome = await lookup(c, list, matches);
      // One match, or several but no more than the lost creates of those values waiting: adopted.
      if (outcome.adopted) {
        await spec.warn?.(adoptedWarning(c, outcome.found, outcome.adopted));
        return outcome.adopted;
      }
      // A twin of this deployment that differs only in a write-only secret lost its answer too.
      if (outcome.unlike) throw writeOnlySecretError(c, outcome.found);
      // Several, more than such creates: which one (if any) is this create's cannot be told.
      if (outcome.found.length > 1) throw severalMatchesError(c, outcome.found);
      // None: the create did not happen. Sent once more and, if that is lost too, looked for again.
      if (round === 2) throw nothingCreatedError(c);
      await spec.warn?.(noneWarning(c));
      sent = await sendCreate(c);
      if (sent) return sent.ok;
    }
  } finally {
    c.gate.waiting.delete(c.me);
  }
}

/**
 * What a recovery adoption returns: `adopted` as listed, or what the spec's
 * `afterRecoveryAdoption` makes of it (a destination's secret written again). When that fails,
 * the claim is given back, so that the next `up` (or another create of this deployment) can take
 * the resource instead of leaving it behind, and the error says so.
 */
async function afterRecoveryAdoption<T extends { id: string; createdAt: string }>(
  c: LogicalCreate<T>,
  adopted: T,
): Promise<T> {
  if (!c.spec.afterRecoveryAdoption) return adopted;
  try {
    return await c.spec.afterRecoveryAdoption(adopted);
  } catch (err) {
    c.registry.release(adopted.id);
    throw new Error(
      `${c.spec.what}: ${adopted.id} was adopted (made by an interrupted run), but writing the program's values to it failed ` +
        `(${describe(err)}); it is not held by this deployment, so running pulumi up again with the same SERVICE_ADOPT_FROM takes it`,
      { cause: err },
    );
  }
}

/**
 * One logical create of {@link createOnce}: what its steps share, from the first send to the
 * end. `T` is the kind's resource as the service returns it.
 */
interface LogicalCreate<T extends { id: string; createdAt: string }> {
  readonly spec: CreateOnceSpec<T>;
  /** Where IDs are claimed ({@link CreateOnceSpec.registry}, default {@link processClaims}). */
  readonly registry: ClaimRegistry;
  /** The kind's gate in the registry: creates are sent side by side, a lookup runs alone. */
  readonly gate: ReturnType<ClaimRegistry["gate"]>;
  /**
   * The `Idempotency-Key` every send uses (a UUID): one per logical create, replaced only when an
   * answer named an ID another resource holds.
   */
  key: string;
  /**
   * How far back the lookup reaches, in **milliseconds** since the Unix epoch (the service's
   * `created_at` time), asked when the lookup's first page has answered:
   * {@link SERVICE_CLOCK_MARGIN_MS} before the create started in the service's time once the
   * client has seen the service's clock (any 2xx answer of the service since the start, that
   * first page included, may have told it: client/serviceClock.ts), else
   * {@link CLOCK_SKEW_MS} before it started on this machine.
   */
  since(): number;
  /** The start of the window the last lookup listed (what {@link since} gave it), for its errors. */
  lookedSince: number;
  /** The last error, once an attempt may have made the resource (until then, `undefined`). */
  lost: unknown;
  /** Set when an answer named an ID another resource holds: the key is spent, the step-2 retry too. */
  conflict: boolean;
  /** This create among the kind's creates waiting to look (its answer was lost). */
  readonly me: Waiter;
}

/**
 * Starts one logical create of `spec`: its kind's gate, its idempotency key (`spec.idempotencyKey`, else a new one), and its start,
 * read from `spec.now` (**milliseconds**) now, from which its lookup window is taken.
 */
function logicalCreate<T extends { id: string; createdAt: string }>(
  spec: CreateOnceSpec<T>,
): LogicalCreate<T> {
  const registry = spec.registry ?? processClaims;
  const gate = registry.gate(spec.what);
  const now = spec.now ?? monotonicNowMs;
  const key = spec.idempotencyKey ?? randomUUID();
  const startedMs = now();
  return {
    spec,
    registry,
    gate,
    key,
    since: () => {
      const serviceStartedMs = spec.serviceNow?.(startedMs);
      return serviceStartedMs === undefined
        ? startedMs - CLOCK_SKEW_MS
        : serviceStartedMs - SERVICE_CLOCK_MARGIN_MS;
    },
    lookedSince: Number.NaN,
    lost: undefined,
    conflict: false,
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
    if (c.registry.tryClaim(made.id)) {
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

/** What one lookup found, and what it adopted for this create. */
interface LookupOutcome<T> {
  /** The resource this create adopted (and claimed), when it adopted one. */
  adopted?: T;
  /** The unclaimed resources with the create's values, newest first (empty when a claim was lost). */
  found: T[];
  /** True when a waiting twin differs in a write-only secret: `found` are claimed for no one. */
  unlike?: boolean;
}

/**
 * The lookup: once every create of the kind in flight has settled, and alone, lists the kind
 * newest first back to `c.since`, keeps what `matches` the request and no resource of the
 * deployment holds, and claims what it adopts before anything else of the kind runs.
 *
 * @throws Error saying what to look for when the listing failed {@link LISTINGS} times.
 */
async function lookup<T extends { id: string; createdAt: string }>(
  c: LogicalCreate<T>,
  list: () => AsyncIterable<T>,
  matches: (live: T) => boolean,
): Promise<LookupOutcome<T>> {
  await c.gate.enterLookup();
  try {
    const found = await listUnclaimedMatches(c, list, matches);
    return claimWhatItAdopts(c, found);
  } finally {
    c.gate.leaveLookup();
  }
}

/**
 * The kind's resources made since `c.since` that `matches` accepts and no resource of the
 * deployment holds, newest first. The client has retried each page already; a listing cut short
 * starts again from the newest, {@link LISTINGS} times in all.
 *
 * @throws Error saying the create may have been made and what to look for, after the last failed listing.
 */
async function listUnclaimedMatches<T extends { id: string; createdAt: string }>(
  c: LogicalCreate<T>,
  list: () => AsyncIterable<T>,
  matches: (live: T) => boolean,
): Promise<T[]> {
  const { spec, registry } = c;
  // Taken once the first page has answered (its Date tells the service's clock, if nothing did before).
  let since: number | undefined;
  const from = (): number => (since ??= c.since());
  try {
    return await listSince(
      list,
      from,
      (live) => matches(live) && !registry.isClaimed(live.id),
      LISTINGS,
      (err) =>
        new Error(
          `${mayHaveBeenMade(c)}, and looking for it failed ` +
            `${LISTINGS} times (last: ${describe(err)}). Before running pulumi up again, look for ${withArticle(spec.what)} with these values made since ` +
            `${new Date(from()).toISOString()}: if there is one, delete it or adopt it with adoptId.`,
        ),
    );
  } finally {
    c.lookedSince = from();
  }
}

/**
 * Decides, in one step with nothing awaited, what the lookup's `found` (unclaimed matches, newest
 * first) gives this create. A waiting twin whose request differs (a write-only secret): every
 * match is claimed for no one (`unlike`). More matches than the creates of those values waiting
 * (this one included): none adopted. Otherwise the first match not yet claimed is claimed and
 * adopted, and the create stops waiting.
 */
function claimWhatItAdopts<T extends { id: string; createdAt: string }>(
  c: LogicalCreate<T>,
  found: T[],
): LookupOutcome<T> {
  if (found.length === 0) return { found };
  const twins = c.gate.waiting.twinsOf(c.me, found[0]);
  if (twins.some((w) => !w.sameRequest)) {
    // Whose they are cannot be told: no create of this deployment may take them now.
    for (const f of found) c.registry.claim(f.id);
    return { found, unlike: true };
  }
  if (found.length > twins.length) return { found };
  // Claimed here, before the lookup lets the kind go on; tryClaim guards the rule itself.
  const adopted = found.find((f) => c.registry.tryClaim(f.id));
  if (!adopted) return { found: [] };
  c.gate.waiting.delete(c.me);
  return { adopted, found };
}

/** The warning before the create is sent once more with the same idempotency key. */
function sameKeyWarning<T extends { id: string; createdAt: string }>(c: LogicalCreate<T>): string {
  return `${mayHaveBeenMade(c)}; sending it again with the same Idempotency-Key, which the service honours`;
}

/**
 * The error of a kind that cannot be listed (abuse reports), once the idempotency key could not
 * settle the create: after an answer naming an ID held elsewhere, run `up` again; else the
 * resource may or may not have been made, and the service should be asked.
 */
function cannotBeListedError<T extends { id: string; createdAt: string }>(c: LogicalCreate<T>): Error {
  const { what } = c.spec;
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
function adoptedWarning<T extends { id: string; createdAt: string }>(
  c: LogicalCreate<T>,
  found: T[],
  adopted: T,
): string {
  const { what } = c.spec;
  const which =
    found.length === 1
      ? `exactly one ${what} with these values made since it started that no other resource of this deployment holds`
      : `${found.length} ${what}s with these values made since it started that no other resource of this deployment holds, ` +
        `no more than the creates of these values whose answers were lost`;
  return `${mayHaveBeenMade(c)}; the service holds ${which}, ${adopted.id}: adopted it`;
}

/** The opening of every message about a lost create: `<what>: the create failed and may have been made (<its last error>)`. */
function mayHaveBeenMade<T extends { id: string; createdAt: string }>(c: LogicalCreate<T>): string {
  return `${c.spec.what}: the create failed and may have been made (${describe(c.lost)})`;
}

/** The error when a waiting twin differs only in a write-only secret: names `found`, adopted by no one. */
function writeOnlySecretError<T extends { id: string; createdAt: string }>(
  c: LogicalCreate<T>,
  found: T[],
): Error {
  return new Error(
    `${mayHaveBeenMade(c)}, and the service holds ` +
      `${found.map((f) => f.id).join(", ")} with these values, but another create of this deployment whose request differs ` +
      `only in what the service does not return (a write-only secret) lost its answer too: the provider cannot tell whose ` +
      `it is, so no resource of this deployment adopts ${found.length === 1 ? "it" : "them"}. Delete ${found.length === 1 ? "it" : "them"} (or adopt with adoptId) and run pulumi up again.`,
  );
}

/** The error when more resources match than creates of those values wait: names every one of `found`. */
function severalMatchesError<T extends { id: string; createdAt: string }>(
  c: LogicalCreate<T>,
  found: T[],
): Error {
  const { what } = c.spec;
  return new Error(
    `${mayHaveBeenMade(c)}, and ${found.length} ${what}s made since ` +
      `${new Date(c.lookedSince).toISOString()} have exactly these values: ${found.map((f) => f.id).join(", ")}. ` +
      `The provider cannot tell which one (if any) this create made, so it adopts none. Delete the extra ones ` +
      `(or adopt one with adoptId) and run pulumi up again.`,
  );
}

/** The warning when the lookup found none: the create did not happen and is sent once more. */
function noneWarning<T extends { id: string; createdAt: string }>(c: LogicalCreate<T>): string {
  return `${mayHaveBeenMade(c)}, but the service holds no such ${c.spec.what}: sending it again`;
}

/** The error when the create failed twice and the lookup found none either time: nothing was created. */
function nothingCreatedError<T extends { id: string; createdAt: string }>(c: LogicalCreate<T>): Error {
  const { what } = c.spec;
  return new Error(
    `${what}: the create failed twice (last: ${describe(c.lost)}), and the service holds no ${what} ` +
      `with these values made since ${new Date(c.lookedSince).toISOString()}: nothing was created. Run pulumi up again.`,
  );
}

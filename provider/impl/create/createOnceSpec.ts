/**
 * The description of one kind of resource that lost-create recovery works on (`createOnce` in
 * ambiguous.ts, recovery adoption in recoveryAdoption.ts): how to create, list and match it.
 *
 * @packageDocumentation
 */
import type { ClaimRegistry } from "./claims";

/** What `createOnce` (ambiguous.ts) needs to know about one kind of resource. */
export interface CreateOnceSpec<T extends { id: string; createdAt: string }> {
  /** Kind in words, for messages, e.g. `event subscription`. */
  what: string;
  /** Sends the create with this `Idempotency-Key` (the same for every attempt). */
  create(idempotencyKey: string): Promise<T>;
  /**
   * The `Idempotency-Key` of the first send: a placeholder's replay gives the key of the create
   * that timed out (pendingCreate.ts). Default: a new UUID.
   */
  idempotencyKey?: string;
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
  /**
   * The values `matches` compares, in one canonical form (write-only secrets left out): two
   * creates with the same `matchKey` match the same resources. It lets a lookup count the lost
   * creates of other provider processes of the deployment as twins (see claimsFolder.ts); kept
   * only as a keyed hash outside this process. Default: none, and another process's lost creates
   * are not counted.
   */
  matchKey?: string;
  /** What the client has seen of the server and `Idempotency-Key` (`ServiceClient.idempotency.honoured`). */
  keysHonoured(): boolean | undefined;
  /** Warning shown by `pulumi up` when the provider adopts or retries; default none. */
  warn?(message: string): Promise<void> | void;
  /**
   * This machine's clock in **milliseconds** since the Unix epoch (tests); default the client's
   * monotonic clock (`monotonicNowMs`, client/serviceClock.ts), the one the service's clock is
   * estimated against, which a step of the wall clock does not move.
   */
  now?(): number;
  /**
   * The service's time at this machine's time `localMs` (both in **milliseconds** since the Unix
   * epoch), as the client has estimated it from the responses seen so far
   * (`ServiceClock.now(localMs)`), or `undefined` before any response told it. Asked when a lost
   * create looks: once known (any 2xx answer of the service, the lookup's first page included, may
   * tell it), the lookup reaches back
   * `SERVICE_CLOCK_MARGIN_MS` before the create started in the service's time, rather than
   * `CLOCK_SKEW_MS` of this machine's (ambiguous.ts).
   */
  serviceNow?(localMs: number): number | undefined;
  /** Where IDs are claimed and creates of one kind are coordinated; default `processClaims` (claims.ts). */
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

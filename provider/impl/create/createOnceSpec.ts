/**
 * What the create-once protocol (`createOnce`, createOnce.ts) works with: the description of one
 * kind of resource ({@link CreateOnceSpec}: how to create, list and match it), and the claim store
 * and the lookup it calls as services ({@link ClaimStore}, {@link CreateGate}: claims.ts and
 * kindGate.ts implement them, in one process or across a deployment's processes; {@link Lookup}:
 * lookup.ts).
 *
 * @packageDocumentation
 */
import type { LostCreateFacts } from "./lostCreateMessages";

/** What `createOnce` (createOnce.ts) needs to know about one kind of resource. */
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
   * `CLOCK_SKEW_MS` of this machine's (createOnce.ts).
   */
  serviceNow?(localMs: number): number | undefined;
  /** Where IDs are claimed and creates of one kind are coordinated; default `processClaims` (claims.ts). */
  registry?: ClaimStore;
  /**
   * The step before anything is sent, called with the claim store the create uses: a resource to
   * take instead of creating one, already claimed in `store` for this create, or `undefined` to go
   * on and send. Recovery adoption (`SERVICE_ADOPT_FROM`) is such a step (`recoveryAdoption`,
   * recoveryAdoption.ts). Default: none, the create is sent.
   * @throws what the step throws; the create then sends nothing.
   */
  recover?(store: ClaimStore): Promise<T | undefined>;
  /** The lookup of a lost create; default `listingLookup` (lookup.ts). */
  finder?: Lookup;
}

/** A create of the kind whose answer was lost, waiting to look (createOnce.ts). */
export interface Waiter {
  /** True when `live` has exactly the values the create sent. */
  matches(live: unknown): boolean;
  /** The whole request, write-only secrets included ({@link CreateOnceSpec.fingerprint}). */
  fingerprint?: string;
  /** The values `matches` compares, in one canonical form ({@link CreateOnceSpec.matchKey}). */
  matchKey?: string;
}

/** A waiting create that looks like a lost create's twin: the same values, the same request or not. */
export interface Twin {
  /** True when its whole request equals the lost create's (write-only secrets included). */
  sameRequest: boolean;
}

/** The creates of one kind waiting to look (kindGate.ts), as the protocol uses them. */
export interface WaitingList {
  /** `w` waits to look (again: counted once). Never throws. */
  add(w: Waiter): void;
  /** `w` no longer waits (adopted, made, or failed). Never throws. */
  delete(w: Waiter): void;
  /** The waiting creates, `me` included, with the values of `live` (a resource `me` matches). */
  twinsOf(me: Waiter, live: unknown): Twin[];
}

/**
 * One kind's creates and lookups as a readers-writer lock: creates are sent side by side, a lookup
 * runs alone once every create in flight has settled (kindGate.ts).
 */
export interface CreateGate {
  /** Resolves when a create may be sent; pair with {@link leaveSend}. @throws ClaimsLockTimeoutError (folderLocks.ts). */
  enterSend(): Promise<void>;
  /** A create entered with {@link enterSend} has settled. Never throws. */
  leaveSend(): void;
  /** Resolves when the lookup runs alone; pair with {@link leaveLookup}. @throws ClaimsLockTimeoutError (folderLocks.ts). */
  enterLookup(): Promise<void>;
  /** The lookup is done. Never throws. */
  leaveLookup(): void;
  /** The kind's creates whose answer was lost and that have not resolved yet. */
  readonly waiting: WaitingList;
}

/**
 * The claim store as the protocol calls it: the IDs the deployment's resources hold, and one
 * {@link CreateGate} per kind (`ClaimRegistry`, claims.ts). None of its methods throws but the
 * gate's waits.
 */
export interface ClaimStore {
  /** The gate of one kind of resource (named as a create names its kind, e.g. `event subscription`). */
  gate(kind: string): CreateGate;
  /** Claims `id` unless a resource of the deployment holds it; true when the caller holds it now. */
  tryClaim(id: string): boolean;
  /** Records that `id` is held, for no resource in particular (so that no lookup adopts it). */
  claim(id: string): void;
  /** True when a resource of the deployment holds `id`. */
  isClaimed(id: string): boolean;
  /** Gives `id` back, for another create or the next `up` to take. */
  release(id: string): void;
  /** The result of `load`, loaded once per `key` (a failed load is forgotten). */
  once<T>(key: string, load: () => Promise<T[]>): Promise<T[]>;
}

/** What the lookup needs of a lost create (`LogicalCreate`, createOnce.ts). */
export interface LookingCreate extends LostCreateFacts {
  /** Where IDs are claimed. */
  readonly store: ClaimStore;
  /** The kind's gate: the lookup runs alone. */
  readonly gate: CreateGate;
  /** How far back the lookup reaches, in **milliseconds** since the Unix epoch (asked after the first page). */
  since(): number;
  /** Set by each lookup: the start of the window it listed, for the errors that name it. */
  lookedSince: number;
  /** This create among the kind's creates waiting to look. */
  readonly me: Waiter;
}

/** What one lookup found, and what it adopted for this create. */
export interface LookupOutcome<T> {
  /** The resource this create adopted (and claimed), when it adopted one. */
  adopted?: T;
  /** The unclaimed resources with the create's values, newest first (empty when a claim was lost). */
  found: T[];
  /** True when a waiting twin differs in a write-only secret: `found` are claimed for no one. */
  unlike?: boolean;
}

/**
 * The lookup as the create-once protocol calls it: `listingLookup` (lookup.ts) by default.
 */
export interface Lookup {
  /**
   * Once every create of `c`'s kind in flight has settled, and alone: lists the kind newest first
   * back to `c.since()`, keeps what `matches` the request and no resource of the deployment holds,
   * and claims what it adopts for `c` before anything else of the kind runs.
   * @throws Error saying what to look for when the listing kept failing.
   */
  lookup<T extends { id: string; createdAt: string }>(
    c: LookingCreate,
    list: () => AsyncIterable<T>,
    matches: (live: T) => boolean,
  ): Promise<LookupOutcome<T>>;
}

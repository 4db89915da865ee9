/**
 * The types of the emulator's store: its interface ({@link Store}) and what its methods take and
 * return.
 *
 * @packageDocumentation
 */
import type {
  AbuseReportRecord,
  Account,
  DestinationRecord,
  DestinationFields,
  SubscriptionRecord,
} from "../records";
import type { HostnameStatus } from "../review";

/** One recorded public API request (never the API key or the body). */
export interface RequestLogEntry {
  /** Increasing sequence number; never reused, even after the log is cleared. */
  seq: number;
  /** When the response was sent (or the connection reset): ISO 8601 UTC with milliseconds. */
  time: string;
  /** HTTP method, e.g. `POST`. */
  method: string;
  /**
   * Path including the query string, as the client sent it, e.g. `/event_subscriptions?limit=10`;
   * cut after `REQUEST_LOG_MAX_PATH_CHARS` characters (then ending with `…`).
   */
  path: string;
  /** HTTP status sent; `0` when an injected fault destroyed the connection. */
  status: number;
  /** The `Operation-Id` of the response (`op_…`). */
  operation_id: string;
  /** The account the API key named, or `null` when it was missing or unknown. */
  account_id: string | null;
  /**
   * The injected fault that hit the request (`"503"`, `"429"`, `"reset"`, `"reset-after"`), or
   * `null`. A `reset-after` request ran in full, so its `status` is the one the handler produced
   * (the client never received it).
   */
  fault: string | null;
  /** True when the response replayed the first response of an `Idempotency-Key`. */
  idempotent_replay: boolean;
}

/** What {@link Store.logRequest} takes: an entry without `seq`; `fault` and `idempotent_replay` may be left out. */
export type RequestLogInput = Omit<RequestLogEntry, "seq" | "fault" | "idempotent_replay"> &
  Partial<Pick<RequestLogEntry, "fault" | "idempotent_replay">>;

/** Identifies one create sent with an `Idempotency-Key` (see {@link Store.idempotentCreate}). */
export interface IdempotencyRequest {
  /** The `Idempotency-Key` header. */
  key: string;
  /** SHA-256 (hex) of the method, path and body: a reused key must come with the same request. */
  fingerprint: string;
  /** Current time in **milliseconds** since the Unix epoch. */
  nowMs: number;
  /** How long a key is remembered, in **milliseconds** (24 h in the app). */
  ttlMs: number;
  /**
   * Most responses remembered per account (a count, at least 1); storing one more forgets the
   * account's oldest first.
   */
  maxPerAccount: number;
}

/** The response of an idempotent create: the first one, or a replay of it. */
export interface IdempotentResult {
  /** HTTP status of the first response (201). */
  status: number;
  /** Body of the first response, as sent (JSON text). */
  body: string;
  /** True when this is a replay of an earlier response to the same key. */
  replayed: boolean;
}

/** Options of a list query. */
export interface PageQuery {
  /** Page size, 1..100. */
  limit: number;
  /** Only items whose ID sorts before this one (exclusive cursor). */
  beforeId?: string;
}

/** One page of a list, newest first. */
export interface Page<T> {
  items: T[];
  /** Whether older items exist after the last one of this page. */
  hasMore: boolean;
}

/** Changes of a subscription; absent members keep their value. */
export interface SubscriptionPatch {
  metadata?: string;
  description?: string;
  sources?: string[];
  destinationIds?: string[];
}

/** Changes of a destination; absent members keep their value. `target` replaces the whole target. */
export type DestinationPatch = Partial<DestinationFields>;

/** Automatic review applied when a report is read (see `autoReviewStatus`). */
export interface AutoReview {
  /** Hostnames `PENDING` for at least this many **milliseconds** are reviewed. */
  delayMs: number;
  /** Current time in **milliseconds** since the Unix epoch. */
  nowMs: number;
}

/** All stored resource rows, for tests that check a failed request changed nothing. */
export interface StoreSnapshot {
  accounts: unknown[];
  /** The accounts' keys: the SHA-256 of each (never a key), its account, when revoked. */
  api_keys: unknown[];
  abuse_reports: unknown[];
  event_destinations: unknown[];
  event_subscriptions: unknown[];
  subscription_destinations: unknown[];
  /** Remembered `Idempotency-Key`s (account, key, fingerprint, status, response, time). */
  idempotency_keys: unknown[];
}

/**
 * The emulator's data: accounts and their keys' hashes, abuse reports, event destinations, event subscriptions and the
 * request log. Methods are synchronous. Methods that enforce the API's existence rules throw
 * `ErrorReply` (404, 223, 409, or 215 for an unknown hostname in a review) and leave the
 * data unchanged when they do.
 */
export interface Store {
  /** The path given to `openStore` (`":memory:"` or a file path). */
  readonly path: string;
  /**
   * Finds or creates the account of an API key by the SHA-256 of the key (hex), and sets whether
   * it is authorized for abuse reports. A revoked key is valid again, in the account it had.
   */
  registerAccount(keyHash: string, abuseReportsAuthorized: boolean): Account;
  /**
   * {@link Store.registerAccount} of each key, in one transaction.
   *
   * @throws Error when two of the keys are keys of one account, one authorized and one not;
   * nothing is changed.
   */
  registerAccounts(keys: { keyHash: string; abuseReportsAuthorized: boolean }[]): Account[];
  /** The SHA-256 (hex) of each key of the account that is not revoked, oldest first. */
  accountKeyHashes(accountId: string): string[];
  /**
   * Adds a key, by its SHA-256 (hex), to an account. A revoked key may be added again, to any
   * account.
   *
   * @throws ErrorReply 215 (`api_key: …`) when the key is a key of an account already (revoked
   * keys aside, whether or not the account is in use); nothing is changed.
   */
  addAccountKey(accountId: string, keyHash: string, nowMs?: number): void;
  /**
   * Revokes a key, by its SHA-256 (hex), at `nowMs` (**milliseconds** since the Unix epoch;
   * default `Date.now()`). Its row is kept, marked revoked. `false` when no account has the key
   * (or it is revoked already).
   */
  revokeAccountKey(keyHash: string, nowMs?: number): boolean;

  /**
   * Creates an abuse report with every hostname `PENDING` since `nowMs` (**milliseconds** since the
   * Unix epoch; default `Date.now()`). With `maxPerAccount`, refuses once the account has that
   * many reports (reports are never deleted).
   *
   * @throws ErrorReply 241 when the account already has `maxPerAccount` reports; nothing is stored.
   */
  createAbuseReport(
    accountId: string,
    input: { urls: string[]; metadata: string; hostnames: string[] },
    nowMs?: number,
    maxPerAccount?: number,
  ): AbuseReportRecord;
  /**
   * Reads an abuse report of an account (or of any account when `accountId` is `null`, for the
   * operator). With `autoReview`, due `PENDING` hostnames are reviewed and saved first.
   * Returns `undefined` when there is no such report.
   */
  getAbuseReport(
    accountId: string | null,
    id: string,
    autoReview?: AutoReview,
  ): AbuseReportRecord | undefined;
  /**
   * Sets the status of some hostnames of a report (of any account; operator review). A hostname
   * set back to `PENDING` is pending since `nowMs` (**milliseconds**; default `Date.now()`).
   *
   * @throws ErrorReply 404 (no such report) or 215 (a hostname not in the report).
   */
  reviewAbuseReport(
    id: string,
    updates: { hostname: string; status: HostnameStatus }[],
    nowMs?: number,
  ): AbuseReportRecord;

  /**
   * Creates a destination.
   */
  createDestination(accountId: string, input: DestinationFields): DestinationRecord;
  /** Reads a destination of the account; `undefined` when none. */
  getDestination(accountId: string, id: string): DestinationRecord | undefined;
  /** Lists the account's destinations, newest first. */
  listDestinations(accountId: string, query: PageQuery): Page<DestinationRecord>;
  /** @throws ErrorReply 404. */
  updateDestination(accountId: string, id: string, patch: DestinationPatch): DestinationRecord;
  /** @throws ErrorReply 404, or 409 while a subscription references it. */
  deleteDestination(accountId: string, id: string): void;

  /** @throws ErrorReply 223 when a destination ID does not name a destination of the account. */
  createSubscription(
    accountId: string,
    input: { metadata: string; description: string; sources: string[]; destinationIds: string[] },
  ): SubscriptionRecord;
  /** Reads a subscription of the account; `undefined` when none. */
  getSubscription(accountId: string, id: string): SubscriptionRecord | undefined;
  /** Lists the account's subscriptions, newest first. */
  listSubscriptions(accountId: string, query: PageQuery): Page<SubscriptionRecord>;
  /** @throws ErrorReply 404, or 223 for a destination ID outside the account. */
  updateSubscription(accountId: string, id: string, patch: SubscriptionPatch): SubscriptionRecord;
  /** @throws ErrorReply 404. */
  deleteSubscription(accountId: string, id: string): void;

  /**
   * Runs a create at most once per account and `Idempotency-Key`, in one `BEGIN IMMEDIATE`
   * transaction that first purges keys older than `ttlMs` (lazily, every account), then:
   * - the key is known with the same fingerprint: returns its first response, `replayed: true`,
   *   without calling `create`;
   * - the key is known with another fingerprint: throws ErrorReply 240 (HTTP 409);
   * - the key is new: calls `create` (which writes the resource, in the same transaction) and
   *   remembers the key with the response, so the resource and the key are committed together;
   *   when the account already has `maxPerAccount` keys, its oldest are forgotten first.
   *   A `create` that throws rolls everything back, and the key is not remembered.
   *
   * @throws ErrorReply 240 for a key reused with another request; whatever `create` throws.
   */
  idempotentCreate(
    accountId: string,
    request: IdempotencyRequest,
    create: () => { status: number; body: string },
  ): IdempotentResult;

  /**
   * Queues a request log entry; entries are written in batches (at the latest on the next tick,
   * and before any read of the log). Paths are cut to `REQUEST_LOG_MAX_PATH_CHARS`
   * characters; only the most recent entries within `REQUEST_LOG_MAX_ENTRIES` and
   * `REQUEST_LOG_MAX_BYTES` are kept.
   */
  logRequest(entry: RequestLogInput): void;
  /**
   * Request log entries with `seq` greater than `since` (all when absent), oldest first; at most
   * `limit` of them when given.
   */
  requests(since?: number, limit?: number): RequestLogEntry[];
  /** Empties the request log (sequence numbers keep increasing). */
  clearRequests(): void;

  /** Every resource row (not the request log), sorted, for comparisons in tests. */
  snapshot(): StoreSnapshot;
  /** Writes queued log entries and closes the database. Idempotent. */
  close(): void;
}

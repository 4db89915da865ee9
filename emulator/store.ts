/**
 * Persistent store of the emulator on better-sqlite3.
 *
 * - One SQLite database, WAL journal, `synchronous = NORMAL` (a committed transaction survives a
 *   crash of the process), foreign keys on, a busy timeout for a second process on the same file.
 * - Every write is one `BEGIN IMMEDIATE` transaction that also performs its checks ("destination
 *   exists in the account", "destination still referenced"), so a failed request changes nothing
 *   and two concurrent requests cannot lose each other's updates.
 * - Every statement is prepared once when the store opens.
 * - JSON columns hold plain lists and objects; the link table `subscription_destinations` makes
 *   "is this destination referenced" an indexed lookup.
 * - API keys are never stored: an account row holds the SHA-256 of its key, so re-registering the
 *   same key against the same file finds the same account.
 *
 * @packageDocumentation
 */
import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { ID_PREFIX } from "../contract/limits";
import { ServiceError } from "./errors";
import { KsuidGenerator, rfc3339 } from "./ids";
import type {
  AbuseReportRecord,
  Account,
  DestinationRecord,
  StoredHostname,
  StoredTarget,
  SubscriptionRecord,
} from "./resources";
import { autoReviewStatus, type HostnameStatus } from "./review";

/** Prefix of account IDs (ours; accounts are not part of the public API). */
export const ACCOUNT_ID_PREFIX = "acct_";

/** The request log keeps at most this many most recent entries; older ones are dropped. */
export const REQUEST_LOG_MAX_ENTRIES = 20_000;

/**
 * The request log keeps at most this many **bytes** of entries (see
 * {@link REQUEST_LOG_ENTRY_OVERHEAD_BYTES}); the oldest entries are dropped first. 8 MiB.
 */
export const REQUEST_LOG_MAX_BYTES = 8 * 1024 * 1024;

/** What one entry counts towards {@link REQUEST_LOG_MAX_BYTES} besides its path's UTF-8 bytes. */
export const REQUEST_LOG_ENTRY_OVERHEAD_BYTES = 256;

/**
 * Longest path kept in the request log, in **characters** (UTF-16 code units); a longer path is
 * cut there and ends with `…`.
 */
export const REQUEST_LOG_MAX_PATH_CHARS = 1024;

/** `path` cut to {@link REQUEST_LOG_MAX_PATH_CHARS} characters plus `…` when it is longer. */
export function truncateLoggedPath(path: string): string {
  if (path.length <= REQUEST_LOG_MAX_PATH_CHARS) return path;
  let cut = path.slice(0, REQUEST_LOG_MAX_PATH_CHARS);
  // Never end on the first half of a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return cut + "…";
}

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
   * cut after {@link REQUEST_LOG_MAX_PATH_CHARS} characters (then ending with `…`).
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
export interface DestinationPatch {
  metadata?: string;
  description?: string;
  format?: string;
  target?: StoredTarget;
}

/** Automatic review applied when a report is read (see {@link autoReviewStatus}). */
export interface AutoReview {
  /** Hostnames `PENDING` for at least this many **milliseconds** are reviewed. */
  delayMs: number;
  /** Current time in **milliseconds** since the Unix epoch. */
  nowMs: number;
}

/** All stored resource rows, for tests that check a failed request changed nothing. */
export interface StoreSnapshot {
  accounts: unknown[];
  abuse_reports: unknown[];
  event_destinations: unknown[];
  event_subscriptions: unknown[];
  subscription_destinations: unknown[];
  /** Remembered `Idempotency-Key`s (account, key, fingerprint, status, response, time). */
  idempotency_keys: unknown[];
}

/**
 * The emulator's data: accounts, abuse reports, event destinations, event subscriptions and the
 * request log. Methods are synchronous. Methods that enforce the API's existence rules throw
 * {@link ServiceError} (404, 223, 409, or 215 for an unknown hostname in a review) and leave the
 * data unchanged when they do.
 */
export interface Store {
  /** The path given to {@link openStore} (`":memory:"` or a file path). */
  readonly path: string;
  /**
   * Finds or creates the account of an API key by the SHA-256 of the key (hex), and sets whether
   * it is authorized for abuse reports.
   */
  registerAccount(keyHash: string, abuseReportsAuthorized: boolean): Account;

  /**
   * Creates an abuse report with every hostname `PENDING` since `nowMs` (**milliseconds** since the
   * Unix epoch; default `Date.now()`).
   */
  createAbuseReport(
    accountId: string,
    input: { urls: string[]; metadata: string; hostnames: string[] },
    nowMs?: number,
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
   * @throws ServiceError 404 (no such report) or 215 (a hostname not in the report).
   */
  reviewAbuseReport(
    id: string,
    updates: { hostname: string; status: HostnameStatus }[],
    nowMs?: number,
  ): AbuseReportRecord;

  /**
   * Creates a destination.
   */
  createDestination(
    accountId: string,
    input: { metadata: string; description: string; format: string; target: StoredTarget },
  ): DestinationRecord;
  /** Reads a destination of the account; `undefined` when none. */
  getDestination(accountId: string, id: string): DestinationRecord | undefined;
  /** Lists the account's destinations, newest first. */
  listDestinations(accountId: string, query: PageQuery): Page<DestinationRecord>;
  /** @throws ServiceError 404. */
  updateDestination(accountId: string, id: string, patch: DestinationPatch): DestinationRecord;
  /** @throws ServiceError 404, or 409 while a subscription references it. */
  deleteDestination(accountId: string, id: string): void;

  /** @throws ServiceError 223 when a destination ID does not name a destination of the account. */
  createSubscription(
    accountId: string,
    input: { metadata: string; description: string; sources: string[]; destinationIds: string[] },
  ): SubscriptionRecord;
  /** Reads a subscription of the account; `undefined` when none. */
  getSubscription(accountId: string, id: string): SubscriptionRecord | undefined;
  /** Lists the account's subscriptions, newest first. */
  listSubscriptions(accountId: string, query: PageQuery): Page<SubscriptionRecord>;
  /** @throws ServiceError 404, or 223 for a destination ID outside the account. */
  updateSubscription(accountId: string, id: string, patch: SubscriptionPatch): SubscriptionRecord;
  /** @throws ServiceError 404. */
  deleteSubscription(accountId: string, id: string): void;

  /**
   * Runs a create at most once per account and `Idempotency-Key`, in one `BEGIN IMMEDIATE`
   * transaction that first purges keys older than `ttlMs` (lazily, every account), then:
   * - the key is known with the same fingerprint: returns its first response, `replayed: true`,
   *   without calling `create`;
   * - the key is known with another fingerprint: throws ServiceError 240 (HTTP 409);
   * - the key is new: calls `create` (which writes the resource, in the same transaction) and
   *   remembers the key with the response, so the resource and the key are committed together.
   *   A `create` that throws rolls everything back, and the key is not remembered.
   *
   * @throws ServiceError 240 for a key reused with another request; whatever `create` throws.
   */
  idempotentCreate(
    accountId: string,
    request: IdempotencyRequest,
    create: () => { status: number; body: string },
  ): IdempotentResult;

  /**
   * Queues a request log entry; entries are written in batches (at the latest on the next tick,
   * and before any read of the log). Paths are cut to {@link REQUEST_LOG_MAX_PATH_CHARS}
   * characters; only the most recent entries within {@link REQUEST_LOG_MAX_ENTRIES} and
   * {@link REQUEST_LOG_MAX_BYTES} are kept.
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

const SCHEMA = `
CREATE TABLE IF NOT EXISTS accounts (
  id TEXT PRIMARY KEY,
  key_hash TEXT NOT NULL UNIQUE,
  abuse_reports_authorized INTEGER NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS abuse_reports (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  created_at TEXT NOT NULL,
  urls TEXT NOT NULL,
  metadata TEXT NOT NULL,
  hostnames TEXT NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS event_destinations (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  created_at TEXT NOT NULL,
  metadata TEXT NOT NULL,
  description TEXT NOT NULL,
  format TEXT NOT NULL,
  target TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS event_destinations_by_account ON event_destinations(account_id, id);
CREATE TABLE IF NOT EXISTS event_subscriptions (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  created_at TEXT NOT NULL,
  metadata TEXT NOT NULL,
  description TEXT NOT NULL,
  sources TEXT NOT NULL,
  destination_ids TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS event_subscriptions_by_account ON event_subscriptions(account_id, id);
CREATE TABLE IF NOT EXISTS subscription_destinations (
  subscription_id TEXT NOT NULL REFERENCES event_subscriptions(id) ON DELETE CASCADE,
  destination_id TEXT NOT NULL REFERENCES event_destinations(id),
  PRIMARY KEY (subscription_id, destination_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS subscription_destinations_by_destination ON subscription_destinations(destination_id);
CREATE TABLE IF NOT EXISTS request_log (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  time TEXT NOT NULL,
  method TEXT NOT NULL,
  path TEXT NOT NULL,
  status INTEGER NOT NULL,
  operation_id TEXT NOT NULL,
  account_id TEXT,
  fault TEXT,
  idempotent_replay INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE TABLE IF NOT EXISTS idempotency_keys (
  account_id TEXT NOT NULL REFERENCES accounts(id),
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  status INTEGER NOT NULL,
  response TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  PRIMARY KEY (account_id, key)
) STRICT;
CREATE INDEX IF NOT EXISTS idempotency_keys_by_time ON idempotency_keys(created_at_ms);
`;

/** Columns added to `request_log` after its first release, for data files made before them. */
const REQUEST_LOG_ADDED_COLUMNS: Record<string, string> = {
  fault: "ALTER TABLE request_log ADD COLUMN fault TEXT",
  idempotent_replay: "ALTER TABLE request_log ADD COLUMN idempotent_replay INTEGER NOT NULL DEFAULT 0",
};

interface AccountRow {
  id: string;
  abuse_reports_authorized: number;
}
interface AbuseReportRow {
  id: string;
  account_id: string;
  created_at: string;
  urls: string;
  metadata: string;
  hostnames: string;
}
interface DestinationRow {
  id: string;
  account_id: string;
  created_at: string;
  metadata: string;
  description: string;
  format: string;
  target: string;
}
interface IdempotencyKeyRow {
  fingerprint: string;
  status: number;
  response: string;
}
interface RequestLogRow extends Omit<RequestLogEntry, "idempotent_replay"> {
  idempotent_replay: number;
}
interface SubscriptionRow {
  id: string;
  account_id: string;
  created_at: string;
  metadata: string;
  description: string;
  sources: string;
  destination_ids: string;
}

function toReport(r: AbuseReportRow): AbuseReportRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    createdAt: r.created_at,
    urls: JSON.parse(r.urls) as string[],
    metadata: r.metadata,
    hostnames: JSON.parse(r.hostnames) as StoredHostname[],
  };
}

function toDestination(r: DestinationRow): DestinationRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    createdAt: r.created_at,
    metadata: r.metadata,
    description: r.description,
    format: r.format,
    target: JSON.parse(r.target) as StoredTarget,
  };
}

function toSubscription(r: SubscriptionRow): SubscriptionRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    createdAt: r.created_at,
    metadata: r.metadata,
    description: r.description,
    sources: JSON.parse(r.sources) as string[],
    destinationIds: JSON.parse(r.destination_ids) as string[],
  };
}

/**
 * Opens (creating when needed) the store at `path`: `":memory:"` for a throw-away store, or a
 * file path whose parent directories are created. Sets WAL mode and creates the tables.
 *
 * @throws Error from better-sqlite3 when the file cannot be opened or is not a database.
 */
export function openStore(path: string): Store {
  const inMemory = path === ":memory:" || path === "";
  if (!inMemory) mkdirSync(dirname(resolve(path)), { recursive: true });
  const db = new Database(inMemory ? ":memory:" : path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  db.exec(SCHEMA);
  const logColumns = new Set((db.pragma("table_info(request_log)") as { name: string }[]).map((c) => c.name));
  for (const [column, sql] of Object.entries(REQUEST_LOG_ADDED_COLUMNS)) {
    if (!logColumns.has(column)) db.exec(sql);
  }

  const ids = new KsuidGenerator();
  for (const [table, prefix] of [
    ["accounts", ACCOUNT_ID_PREFIX],
    ["abuse_reports", ID_PREFIX.abuseReport],
    ["event_destinations", ID_PREFIX.eventDestination],
    ["event_subscriptions", ID_PREFIX.eventSubscription],
  ] as const) {
    const row = db.prepare(`SELECT max(id) AS id FROM ${table}`).get() as { id: string | null };
    if (row.id !== null) ids.observe(row.id, prefix);
  }

  const stmt = {
    accountByHash: db.prepare<[string], AccountRow>(
      "SELECT id, abuse_reports_authorized FROM accounts WHERE key_hash = ?",
    ),
    insertAccount: db.prepare<[string, string, number, string]>(
      "INSERT INTO accounts (id, key_hash, abuse_reports_authorized, created_at) VALUES (?, ?, ?, ?)",
    ),
    setAccountAuthorized: db.prepare<[number, string]>(
      "UPDATE accounts SET abuse_reports_authorized = ? WHERE id = ?",
    ),

    insertReport: db.prepare<[string, string, string, string, string, string]>(
      "INSERT INTO abuse_reports (id, account_id, created_at, urls, metadata, hostnames) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    reportById: db.prepare<[string], AbuseReportRow>("SELECT * FROM abuse_reports WHERE id = ?"),
    reportOfAccount: db.prepare<[string, string], AbuseReportRow>(
      "SELECT * FROM abuse_reports WHERE id = ? AND account_id = ?",
    ),
    setReportHostnames: db.prepare<[string, string]>("UPDATE abuse_reports SET hostnames = ? WHERE id = ?"),

    insertDestination: db.prepare<[string, string, string, string, string, string, string]>(
      "INSERT INTO event_destinations (id, account_id, created_at, metadata, description, format, target) VALUES (?, ?, ?, ?, ?, ?, ?)",
    ),
    destinationOfAccount: db.prepare<[string, string], DestinationRow>(
      "SELECT * FROM event_destinations WHERE id = ? AND account_id = ?",
    ),
    destinationExists: db.prepare<[string, string], { one: number }>(
      "SELECT 1 AS one FROM event_destinations WHERE id = ? AND account_id = ?",
    ),
    listDestinations: db.prepare<[string, number], DestinationRow>(
      "SELECT * FROM event_destinations WHERE account_id = ? ORDER BY id DESC LIMIT ?",
    ),
    listDestinationsBefore: db.prepare<[string, string, number], DestinationRow>(
      "SELECT * FROM event_destinations WHERE account_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
    ),
    updateDestination: db.prepare<[string, string, string, string, string]>(
      "UPDATE event_destinations SET metadata = ?, description = ?, format = ?, target = ? WHERE id = ?",
    ),
    deleteDestination: db.prepare<[string]>("DELETE FROM event_destinations WHERE id = ?"),
    subscriptionsReferencing: db.prepare<[string], { subscription_id: string }>(
      "SELECT subscription_id FROM subscription_destinations WHERE destination_id = ? ORDER BY subscription_id LIMIT 5",
    ),

    insertSubscription: db.prepare<[string, string, string, string, string, string, string]>(
      "INSERT INTO event_subscriptions (id, account_id, created_at, metadata, description, sources, destination_ids) VALUES (?, ?, ?, ?, ?, ?, ?)",
    ),
    subscriptionOfAccount: db.prepare<[string, string], SubscriptionRow>(
      "SELECT * FROM event_subscriptions WHERE id = ? AND account_id = ?",
    ),
    listSubscriptions: db.prepare<[string, number], SubscriptionRow>(
      "SELECT * FROM event_subscriptions WHERE account_id = ? ORDER BY id DESC LIMIT ?",
    ),
    listSubscriptionsBefore: db.prepare<[string, string, number], SubscriptionRow>(
      "SELECT * FROM event_subscriptions WHERE account_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
    ),
    updateSubscription: db.prepare<[string, string, string, string, string]>(
      "UPDATE event_subscriptions SET metadata = ?, description = ?, sources = ?, destination_ids = ? WHERE id = ?",
    ),
    deleteSubscription: db.prepare<[string]>("DELETE FROM event_subscriptions WHERE id = ?"),
    insertLink: db.prepare<[string, string]>(
      "INSERT INTO subscription_destinations (subscription_id, destination_id) VALUES (?, ?)",
    ),
    deleteLinks: db.prepare<[string]>("DELETE FROM subscription_destinations WHERE subscription_id = ?"),

    insertLog: db.prepare<[string, string, string, number, string, string | null, string | null, number]>(
      "INSERT INTO request_log (time, method, path, status, operation_id, account_id, fault, idempotent_replay) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    logSince: db.prepare<[number], RequestLogRow>("SELECT * FROM request_log WHERE seq > ? ORDER BY seq"),
    logPage: db.prepare<[number, number], RequestLogRow>(
      "SELECT * FROM request_log WHERE seq > ? ORDER BY seq LIMIT ?",
    ),
    logBytes: db.prepare<[number], { bytes: number | null }>(
      "SELECT sum(length(CAST(path AS BLOB)) + ?) AS bytes FROM request_log",
    ),
    // Deletes the oldest entries until the newest ones fit in the byte budget.
    trimLogBytes: db.prepare<[number, number]>(
      `DELETE FROM request_log WHERE seq <= (
         SELECT seq FROM (
           SELECT seq, sum(length(CAST(path AS BLOB)) + ?) OVER (ORDER BY seq DESC) AS total FROM request_log
         ) WHERE total > ? ORDER BY seq DESC LIMIT 1)`,
    ),
    clearLog: db.prepare("DELETE FROM request_log"),
    trimLog: db.prepare<[number]>(
      "DELETE FROM request_log WHERE seq <= (SELECT max(seq) FROM request_log) - ?",
    ),

    purgeKeys: db.prepare<[number]>("DELETE FROM idempotency_keys WHERE created_at_ms < ?"),
    keyOf: db.prepare<[string, string], IdempotencyKeyRow>(
      "SELECT fingerprint, status, response FROM idempotency_keys WHERE account_id = ? AND key = ?",
    ),
    insertKey: db.prepare<[string, string, string, number, string, number]>(
      "INSERT INTO idempotency_keys (account_id, key, fingerprint, status, response, created_at_ms) VALUES (?, ?, ?, ?, ?, ?)",
    ),
  };

  /** Runs `fn` in one `BEGIN IMMEDIATE` transaction; a throw rolls everything back. */
  function write<T>(fn: () => T): T {
    return db.transaction(fn).immediate();
  }

  function mint(prefix: string): { id: string; createdAt: string } {
    const m = ids.next(prefix);
    return { id: m.id, createdAt: rfc3339(m.unixSeconds) };
  }

  function requireDestinations(accountId: string, destinationIds: string[]): void {
    for (const id of destinationIds) {
      if (stmt.destinationExists.get(id, accountId) === undefined) {
        throw new ServiceError(
          223,
          `destination_ids: ${JSON.stringify(id)} is not an event destination of this account`,
        );
      }
    }
  }

  function link(subscriptionId: string, destinationIds: string[]): void {
    stmt.deleteLinks.run(subscriptionId);
    for (const d of destinationIds) stmt.insertLink.run(subscriptionId, d);
  }

  function page<R, T>(rows: R[], limit: number, map: (r: R) => T): Page<T> {
    const hasMore = rows.length > limit;
    return { items: (hasMore ? rows.slice(0, limit) : rows).map(map), hasMore };
  }

  const notFound = (what: string, id: string) =>
    new ServiceError(404, `no ${what} with ID ${JSON.stringify(id)}`);

  let pendingLog: RequestLogInput[] = [];
  let flushScheduled = false;
  let closed = false;
  const entryBytes = (path: string) => Buffer.byteLength(path, "utf8") + REQUEST_LOG_ENTRY_OVERHEAD_BYTES;
  let logBytes = stmt.logBytes.get(REQUEST_LOG_ENTRY_OVERHEAD_BYTES)?.bytes ?? 0;
  const flushLog = db.transaction((entries: RequestLogInput[]) => {
    for (const e of entries) {
      const path = truncateLoggedPath(e.path);
      logBytes += entryBytes(path);
      stmt.insertLog.run(
        e.time,
        e.method,
        path,
        e.status,
        e.operation_id,
        e.account_id,
        e.fault ?? null,
        e.idempotent_replay ? 1 : 0,
      );
    }
    // `logBytes` is exact after a trim and grows by each insert in between.
    let trimmed = stmt.trimLog.run(REQUEST_LOG_MAX_ENTRIES).changes > 0;
    if (logBytes > REQUEST_LOG_MAX_BYTES) {
      stmt.trimLogBytes.run(REQUEST_LOG_ENTRY_OVERHEAD_BYTES, REQUEST_LOG_MAX_BYTES);
      trimmed = true;
    }
    if (trimmed) logBytes = stmt.logBytes.get(REQUEST_LOG_ENTRY_OVERHEAD_BYTES)?.bytes ?? 0;
  });
  function flush(): void {
    flushScheduled = false;
    if (pendingLog.length === 0 || closed) return;
    const entries = pendingLog;
    pendingLog = [];
    flushLog(entries);
  }

  const store: Store = {
    path,

    registerAccount(keyHash, authorized) {
      return write(() => {
        const row = stmt.accountByHash.get(keyHash);
        if (row) {
          if (Boolean(row.abuse_reports_authorized) !== authorized)
            stmt.setAccountAuthorized.run(authorized ? 1 : 0, row.id);
          return { id: row.id, abuseReportsAuthorized: authorized };
        }
        const { id, createdAt } = mint(ACCOUNT_ID_PREFIX);
        stmt.insertAccount.run(id, keyHash, authorized ? 1 : 0, createdAt);
        return { id, abuseReportsAuthorized: authorized };
      });
    },

    createAbuseReport(accountId, input, now = Date.now()) {
      return write(() => {
        const { id, createdAt } = mint(ID_PREFIX.abuseReport);
        const hostnames: StoredHostname[] = input.hostnames.map((hostname) => ({
          hostname,
          status: "PENDING",
          pending_since_ms: now,
        }));
        stmt.insertReport.run(
          id,
          accountId,
          createdAt,
          JSON.stringify(input.urls),
          input.metadata,
          JSON.stringify(hostnames),
        );
        return { id, accountId, createdAt, urls: input.urls, metadata: input.metadata, hostnames };
      });
    },

    getAbuseReport(accountId, id, autoReview) {
      const read = () =>
        accountId === null ? stmt.reportById.get(id) : stmt.reportOfAccount.get(id, accountId);
      const row = read();
      if (!row) return undefined;
      const report = toReport(row);
      if (!autoReview) return report;
      const due = (h: StoredHostname) =>
        h.status === "PENDING" && autoReview.nowMs - h.pending_since_ms >= autoReview.delayMs;
      if (!report.hostnames.some(due)) return report;
      return write(() => {
        const fresh = read();
        if (!fresh) return undefined;
        const r = toReport(fresh);
        for (const h of r.hostnames) if (due(h)) h.status = autoReviewStatus(h.hostname);
        stmt.setReportHostnames.run(JSON.stringify(r.hostnames), r.id);
        return r;
      });
    },

    reviewAbuseReport(id, updates, now = Date.now()) {
      return write(() => {
        const row = stmt.reportById.get(id);
        if (!row) throw notFound("abuse report", id);
        const r = toReport(row);
        updates.forEach((u, i) => {
          const h = r.hostnames.find((x) => x.hostname === u.hostname.toLowerCase());
          if (!h) {
            throw new ServiceError(
              215,
              `hostnames[${i}].hostname: ${JSON.stringify(u.hostname)} is not a hostname of abuse report ${id} (it has ${r.hostnames.map((x) => x.hostname).join(", ")})`,
            );
          }
          if (u.status === "PENDING" && h.status !== "PENDING") h.pending_since_ms = now;
          h.status = u.status;
        });
        stmt.setReportHostnames.run(JSON.stringify(r.hostnames), id);
        return r;
      });
    },

    createDestination(accountId, input) {
      return write(() => {
        const { id, createdAt } = mint(ID_PREFIX.eventDestination);
        stmt.insertDestination.run(
          id,
          accountId,
          createdAt,
          input.metadata,
          input.description,
          input.format,
          JSON.stringify(input.target),
        );
        return { id, accountId, createdAt, ...input };
      });
    },

    getDestination(accountId, id) {
      const row = stmt.destinationOfAccount.get(id, accountId);
      return row && toDestination(row);
    },

    listDestinations(accountId, { limit, beforeId }) {
      const rows =
        beforeId === undefined
          ? stmt.listDestinations.all(accountId, limit + 1)
          : stmt.listDestinationsBefore.all(accountId, beforeId, limit + 1);
      return page(rows, limit, toDestination);
    },

    updateDestination(accountId, id, patch) {
      return write(() => {
        const row = stmt.destinationOfAccount.get(id, accountId);
        if (!row) throw notFound("event destination", id);
        const d = toDestination(row);
        const next: DestinationRecord = {
          ...d,
          metadata: patch.metadata ?? d.metadata,
          description: patch.description ?? d.description,
          format: patch.format ?? d.format,
          target: patch.target ?? d.target,
        };
        stmt.updateDestination.run(
          next.metadata,
          next.description,
          next.format,
          JSON.stringify(next.target),
          id,
        );
        return next;
      });
    },

    deleteDestination(accountId, id) {
      write(() => {
        if (stmt.destinationExists.get(id, accountId) === undefined) throw notFound("event destination", id);
        const refs = stmt.subscriptionsReferencing.all(id);
        if (refs.length > 0) {
          throw new ServiceError(
            409,
            `event destination ${id} is still used by event subscription(s) ${refs.map((r) => r.subscription_id).join(", ")}; remove it from them first`,
          );
        }
        stmt.deleteDestination.run(id);
      });
    },

    createSubscription(accountId, input) {
      return write(() => {
        requireDestinations(accountId, input.destinationIds);
        const { id, createdAt } = mint(ID_PREFIX.eventSubscription);
        stmt.insertSubscription.run(
          id,
          accountId,
          createdAt,
          input.metadata,
          input.description,
          JSON.stringify(input.sources),
          JSON.stringify(input.destinationIds),
        );
        link(id, input.destinationIds);
        return { id, accountId, createdAt, ...input };
      });
    },

    getSubscription(accountId, id) {
      const row = stmt.subscriptionOfAccount.get(id, accountId);
      return row && toSubscription(row);
    },

    listSubscriptions(accountId, { limit, beforeId }) {
      const rows =
        beforeId === undefined
          ? stmt.listSubscriptions.all(accountId, limit + 1)
          : stmt.listSubscriptionsBefore.all(accountId, beforeId, limit + 1);
      return page(rows, limit, toSubscription);
    },

    updateSubscription(accountId, id, patch) {
      return write(() => {
        const row = stmt.subscriptionOfAccount.get(id, accountId);
        if (!row) throw notFound("event subscription", id);
        const s = toSubscription(row);
        if (patch.destinationIds) requireDestinations(accountId, patch.destinationIds);
        const next: SubscriptionRecord = {
          ...s,
          metadata: patch.metadata ?? s.metadata,
          description: patch.description ?? s.description,
          sources: patch.sources ?? s.sources,
          destinationIds: patch.destinationIds ?? s.destinationIds,
        };
        stmt.updateSubscription.run(
          next.metadata,
          next.description,
          JSON.stringify(next.sources),
          JSON.stringify(next.destinationIds),
          id,
        );
        if (patch.destinationIds) link(id, next.destinationIds);
        return next;
      });
    },

    deleteSubscription(accountId, id) {
      write(() => {
        if (stmt.subscriptionOfAccount.get(id, accountId) === undefined)
          throw notFound("event subscription", id);
        stmt.deleteSubscription.run(id);
      });
    },

    idempotentCreate(accountId, request, create) {
      return write(() => {
        stmt.purgeKeys.run(request.nowMs - request.ttlMs);
        const known = stmt.keyOf.get(accountId, request.key);
        if (known) {
          if (known.fingerprint !== request.fingerprint) {
            const hours = Math.round(request.ttlMs / 3_600_000);
            throw new ServiceError(
              240,
              `Idempotency-Key ${JSON.stringify(request.key)} was already used in the last ${hours} hours with a different request (another path or body); use a new key for a new request`,
            );
          }
          return { status: known.status, body: known.response, replayed: true };
        }
        const first = create();
        stmt.insertKey.run(
          accountId,
          request.key,
          request.fingerprint,
          first.status,
          first.body,
          request.nowMs,
        );
        return { status: first.status, body: first.body, replayed: false };
      });
    },

    logRequest(entry) {
      if (closed) return;
      pendingLog.push(entry);
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flush);
      }
    },

    requests(since = 0, limit) {
      flush();
      const rows = limit === undefined ? stmt.logSince.all(since) : stmt.logPage.all(since, limit);
      return rows.map((r) => ({ ...r, idempotent_replay: r.idempotent_replay === 1 }));
    },

    clearRequests() {
      flush();
      stmt.clearLog.run();
      logBytes = 0;
    },

    snapshot() {
      const all = (sql: string) => db.prepare(sql).all();
      return {
        accounts: all("SELECT * FROM accounts ORDER BY id"),
        abuse_reports: all("SELECT * FROM abuse_reports ORDER BY id"),
        event_destinations: all("SELECT * FROM event_destinations ORDER BY id"),
        event_subscriptions: all("SELECT * FROM event_subscriptions ORDER BY id"),
        subscription_destinations: all(
          "SELECT * FROM subscription_destinations ORDER BY subscription_id, destination_id",
        ),
        idempotency_keys: all("SELECT * FROM idempotency_keys ORDER BY account_id, key"),
      };
    },

    close() {
      if (closed) return;
      flush();
      closed = true;
      db.close();
    },
  };
  return store;
}

/**
 * The emulator's SQLite database on better-sqlite3, and what every repository shares.
 *
 * - One SQLite database, WAL journal, `synchronous = NORMAL` (a committed transaction survives a
 *   crash of the process), foreign keys on, a busy timeout for a second process on the same file.
 * - Every write is one `BEGIN IMMEDIATE` transaction ({@link StoreBase.write}) that also performs
 *   its checks ("destination exists in the account", "destination still referenced"), so a failed
 *   request changes nothing and two concurrent requests cannot lose each other's updates.
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
import { ID_PREFIX } from "service-contract";
import { ServiceError } from "../errors";
import { KsuidGenerator, rfc3339 } from "../ids";
import type { Page, PageQuery } from "./types";

/** Prefix of account IDs (ours; accounts are not part of the public API). */
export const ACCOUNT_ID_PREFIX = "acct_";

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
CREATE INDEX IF NOT EXISTS abuse_reports_by_account ON abuse_reports(account_id);
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

/** What the repositories of one store share. */
export interface StoreBase {
  /** The path given to `openStore`. */
  readonly path: string;
  readonly db: Database.Database;
  /** Runs `fn` in one `BEGIN IMMEDIATE` transaction; a throw rolls everything back. */
  write<T>(fn: () => T): T;
  /** A new ID of the kind and its creation time (RFC 3339, whole seconds). */
  mint(prefix: string): { id: string; createdAt: string };
}

/**
 * Opens (creating when needed) the database at `path`: `":memory:"` for a throw-away store, or a
 * file path whose parent directories are created. Sets WAL mode, creates the tables and seeds the
 * ID generator from the newest stored IDs.
 *
 * @throws Error from better-sqlite3 when the file cannot be opened or is not a database.
 */
export function openDatabase(path: string): StoreBase {
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
  return {
    path,
    db,
    write: (fn) => db.transaction(fn).immediate(),
    mint(prefix) {
      const m = ids.next(prefix);
      return { id: m.id, createdAt: rfc3339(m.unixSeconds) };
    },
  };
}

/** The 404 of a resource that does not exist (in the account). */
export function notFound(what: string, id: string): ServiceError {
  return new ServiceError(404, `no ${what} with ID ${JSON.stringify(id)}`);
}

/**
 * One page of an account's rows, newest first: `first` lists from the newest, `before` from the
 * cursor; both take a limit, asked one higher to tell whether more follow.
 */
export function listPage<R, T>(
  first: Database.Statement<[string, number], R>,
  before: Database.Statement<[string, string, number], R>,
  accountId: string,
  { limit, beforeId }: PageQuery,
  map: (row: R) => T,
): Page<T> {
  const rows =
    beforeId === undefined ? first.all(accountId, limit + 1) : before.all(accountId, beforeId, limit + 1);
  const hasMore = rows.length > limit;
  return { items: (hasMore ? rows.slice(0, limit) : rows).map(map), hasMore };
}

/** The statements listing a table's rows of an account, newest first, from the start or a cursor. */
export function listStatements<R>(
  db: Database.Database,
  table: string,
): [Database.Statement<[string, number], R>, Database.Statement<[string, string, number], R>] {
  return [
    db.prepare<[string, number], R>(`SELECT * FROM ${table} WHERE account_id = ? ORDER BY id DESC LIMIT ?`),
    db.prepare<[string, string, number], R>(
      `SELECT * FROM ${table} WHERE account_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
    ),
  ];
}

/** Reading the rows of a table whose rows belong to an account, as records. */
export interface OwnedRows<T> {
  /** The record `id` of the account; `undefined` when none. */
  get(accountId: string, id: string): T | undefined;
  /** The record `id` of the account. @throws ServiceError 404 when none. */
  require(accountId: string, id: string): T;
  /** One page of the account's records, newest first. */
  list(accountId: string, query: PageQuery): Page<T>;
}

/**
 * {@link OwnedRows} of `table` (with `id` and `account_id` columns), mapped by `toRecord`; `what`
 * names the kind in the 404 message, e.g. `event destination`.
 */
export function ownedRows<R, T>(
  db: Database.Database,
  table: string,
  what: string,
  toRecord: (row: R) => T,
): OwnedRows<T> {
  const ofAccount = db.prepare<[string, string], R>(`SELECT * FROM ${table} WHERE id = ? AND account_id = ?`);
  const [first, before] = listStatements<R>(db, table);
  const get = (accountId: string, id: string) => {
    const row = ofAccount.get(id, accountId);
    return row === undefined ? undefined : toRecord(row);
  };
  return {
    get,
    require(accountId, id) {
      const record = get(accountId, id);
      if (record === undefined) throw notFound(what, id);
      return record;
    },
    list: (accountId, query) => listPage(first, before, accountId, query, toRecord),
  };
}

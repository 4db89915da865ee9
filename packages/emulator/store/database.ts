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
 * - API keys are never stored: `api_keys` holds the SHA-256 of each key with its account (and
 *   when it was revoked), so re-registering the same key against the same file finds the same
 *   account, and keys added to an account at run time outlive the process. `accounts.key_hash`
 *   is the hash of the key the account was made with (a row of `api_keys` too).
 *
 * @packageDocumentation
 */
import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { ErrorReply } from "../errorReply";
import { KsuidGenerator, rfc3339 } from "../ids";

/** Prefix of account IDs (ours; accounts are not part of the public API). */
export const ACCOUNT_ID_PREFIX = "acct_";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS accounts (
  id TEXT PRIMARY KEY,
  key_hash TEXT NOT NULL UNIQUE,
  abuse_reports_authorized INTEGER NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
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

/**
 * The keys of the accounts, by the SHA-256 (hex) of each key: made by {@link openDatabase} together
 * with a row for the key of each account already stored (data files from before the table had
 * one key per account, in `accounts.key_hash`). A revoked key keeps its row, with `revoked_at`.
 */
const API_KEYS_SCHEMA = `
CREATE TABLE api_keys (
  key_hash TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  created_at TEXT NOT NULL,
  revoked_at TEXT
) STRICT, WITHOUT ROWID;
CREATE INDEX api_keys_by_account ON api_keys(account_id);
INSERT INTO api_keys (key_hash, account_id, created_at) SELECT key_hash, id, created_at FROM accounts;
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
  /** Makes the IDs minted from now on sort after `id`, a stored ID of the kind `prefix`. */
  observe(id: string, prefix: string): void;
}

/**
 * Opens (creating when needed) the database at `path`: `":memory:"` for a throw-away store, or a
 * file path whose parent directories are created. Sets WAL mode, creates the tables of accounts,
 * their API keys, links, idempotency keys and the request log (each resource's own table is made by its
 * repository, see `resourceTable.ts`) and seeds the ID generator from the newest account ID.
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
  // The table and the keys of the accounts already stored come together or not at all.
  db.transaction(() => {
    const hasKeys = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'api_keys'")
      .get();
    if (hasKeys === undefined) db.exec(API_KEYS_SCHEMA);
  }).immediate();
  const logColumns = new Set((db.pragma("table_info(request_log)") as { name: string }[]).map((c) => c.name));
  for (const [column, sql] of Object.entries(REQUEST_LOG_ADDED_COLUMNS)) {
    if (!logColumns.has(column)) db.exec(sql);
  }
  const ids = new KsuidGenerator();
  const newestAccount = db.prepare("SELECT max(id) AS id FROM accounts").get() as { id: string | null };
  if (newestAccount.id !== null) ids.observe(newestAccount.id, ACCOUNT_ID_PREFIX);
  return {
    path,
    db,
    write: (fn) => db.transaction(fn).immediate(),
    mint(prefix) {
      const m = ids.next(prefix);
      return { id: m.id, createdAt: rfc3339(m.unixSeconds) };
    },
    observe: (id, prefix) => ids.observe(id, prefix),
  };
}

/** The 404 of a resource that does not exist (in the account). */
export function notFound(what: string, id: string): ErrorReply {
  return new ErrorReply(404, `no ${what} with ID ${JSON.stringify(id)}`);
}

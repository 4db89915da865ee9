/**
 * The `accounts` table and the `api_keys` table of their keys: an account is found by the SHA-256
 * of any of its keys; a revoked key keeps its row (with `revoked_at`) until it is added again.
 *
 * @packageDocumentation
 */
import { ErrorReply } from "../errorReply";
import { rfc3339 } from "../ids";
import type { Account } from "../records";
import { ACCOUNT_ID_PREFIX, type StoreBase } from "./database";
import type { Store } from "./types";

interface KeyRow {
  account_id: string;
  abuse_reports_authorized: number;
  revoked_at: string | null;
}

/** RFC 3339 (whole seconds, UTC) of a time in **milliseconds** since the Unix epoch. */
const at = (nowMs: number) => rfc3339(Math.floor(nowMs / 1000));

/** The account methods of the store. */
export function accountsRepository({
  db,
  write,
  mint,
}: StoreBase): Pick<
  Store,
  "registerAccount" | "registerAccounts" | "accountKeyHashes" | "addAccountKey" | "revokeAccountKey"
> {
  const byHash = db.prepare<[string], KeyRow>(
    `SELECT k.account_id, a.abuse_reports_authorized, k.revoked_at
       FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?`,
  );
  const insertAccount = db.prepare<[string, string, number, string]>(
    "INSERT INTO accounts (id, key_hash, abuse_reports_authorized, created_at) VALUES (?, ?, ?, ?)",
  );
  const insertKey = db.prepare<[string, string, string]>(
    "INSERT INTO api_keys (key_hash, account_id, created_at) VALUES (?, ?, ?)",
  );
  const setAuthorized = db.prepare<[number, string]>(
    "UPDATE accounts SET abuse_reports_authorized = ? WHERE id = ?",
  );
  const unrevoke = db.prepare<[string]>("UPDATE api_keys SET revoked_at = NULL WHERE key_hash = ?");
  const reassign = db.prepare<[string, string, string]>(
    "UPDATE api_keys SET account_id = ?, created_at = ?, revoked_at = NULL WHERE key_hash = ?",
  );
  const revoke = db.prepare<[string, string]>(
    "UPDATE api_keys SET revoked_at = ? WHERE key_hash = ? AND revoked_at IS NULL",
  );
  const keysOf = db.prepare<[string], { key_hash: string }>(
    "SELECT key_hash FROM api_keys WHERE account_id = ? AND revoked_at IS NULL ORDER BY created_at, key_hash",
  );

  /** Finds (a revoked key is valid again) or makes the account of one key; sets its authorization. */
  function register(keyHash: string, authorized: boolean): Account {
    const row = byHash.get(keyHash);
    if (row) {
      if (row.revoked_at !== null) unrevoke.run(keyHash);
      if (Boolean(row.abuse_reports_authorized) !== authorized)
        setAuthorized.run(authorized ? 1 : 0, row.account_id);
      return { id: row.account_id, abuseReportsAuthorized: authorized };
    }
    const { id, createdAt } = mint(ACCOUNT_ID_PREFIX);
    insertAccount.run(id, keyHash, authorized ? 1 : 0, createdAt);
    insertKey.run(keyHash, id, createdAt);
    return { id, abuseReportsAuthorized: authorized };
  }

  function registerAccounts(keys: { keyHash: string; abuseReportsAuthorized: boolean }[]): Account[] {
    return write(() => {
      const authorization = new Map<string, boolean>();
      return keys.map(({ keyHash, abuseReportsAuthorized }) => {
        const account = register(keyHash, abuseReportsAuthorized);
        if (authorization.get(account.id) === !abuseReportsAuthorized)
          throw new Error("two API keys of one account cannot be one authorized and one restricted");
        authorization.set(account.id, abuseReportsAuthorized);
        return account;
      });
    });
  }

  return {
    registerAccount: (keyHash, authorized) =>
      registerAccounts([{ keyHash, abuseReportsAuthorized: authorized }])[0],
    registerAccounts,
    accountKeyHashes: (accountId) => keysOf.all(accountId).map((r) => r.key_hash),
    addAccountKey(accountId, keyHash, nowMs = Date.now()) {
      write(() => {
        const row = byHash.get(keyHash);
        if (row === undefined) insertKey.run(keyHash, accountId, at(nowMs));
        else if (row.revoked_at !== null) reassign.run(accountId, at(nowMs), keyHash);
        else
          throw new ErrorReply(215, "api_key: is already a key of an account; a key belongs to one account");
      });
    },
    revokeAccountKey: (keyHash, nowMs = Date.now()) =>
      write(() => revoke.run(at(nowMs), keyHash).changes === 1),
  };
}

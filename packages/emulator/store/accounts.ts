/**
 * The `accounts` table: one account per API key, found by the SHA-256 of the key.
 *
 * @packageDocumentation
 */
import type { Account } from "../records";
import { ACCOUNT_ID_PREFIX, type StoreBase } from "./database";
import type { Store } from "./types";

interface AccountRow {
  id: string;
  abuse_reports_authorized: number;
}

/** The account methods of the store. */
export function accountsRepository({ db, write, mint }: StoreBase): Pick<Store, "registerAccount"> {
  const byHash = db.prepare<[string], AccountRow>(
    "SELECT id, abuse_reports_authorized FROM accounts WHERE key_hash = ?",
  );
  const insert = db.prepare<[string, string, number, string]>(
    "INSERT INTO accounts (id, key_hash, abuse_reports_authorized, created_at) VALUES (?, ?, ?, ?)",
  );
  const setAuthorized = db.prepare<[number, string]>(
    "UPDATE accounts SET abuse_reports_authorized = ? WHERE id = ?",
  );
  return {
    registerAccount(keyHash, authorized): Account {
      return write(() => {
        const row = byHash.get(keyHash);
        if (row) {
          if (Boolean(row.abuse_reports_authorized) !== authorized)
            setAuthorized.run(authorized ? 1 : 0, row.id);
          return { id: row.id, abuseReportsAuthorized: authorized };
        }
        const { id, createdAt } = mint(ACCOUNT_ID_PREFIX);
        insert.run(id, keyHash, authorized ? 1 : 0, createdAt);
        return { id, abuseReportsAuthorized: authorized };
      });
    },
  };
}

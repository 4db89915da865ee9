/**
 * The `idempotency_keys` table: the first response of each create sent with an
 * `Idempotency-Key`, per account, kept for the key's lifetime and within a count per account
 * (storing one more forgets the account's oldest). Reference: docs/emulator.md § Idempotency keys.
 *
 * @packageDocumentation
 */
import { ErrorReply } from "../errorReply";
import type { StoreBase } from "./database";
import type { Store } from "./types";

interface IdempotencyKeyRow {
  fingerprint: string;
  status: number;
  response: string;
}

/** The idempotent-create method of the store. */
export function idempotencyKeysRepository({ db, write }: StoreBase): Pick<Store, "idempotentCreate"> {
  const purge = db.prepare<[number]>("DELETE FROM idempotency_keys WHERE created_at_ms < ?");
  const keyOf = db.prepare<[string, string], IdempotencyKeyRow>(
    "SELECT fingerprint, status, response FROM idempotency_keys WHERE account_id = ? AND key = ?",
  );
  const countOf = db
    .prepare<[string], number>("SELECT COUNT(*) FROM idempotency_keys WHERE account_id = ?")
    .pluck();
  // A new row's rowid is above every stored row's (SQLite takes the largest plus one), so rowid
  // order is the order in which the account's keys were stored.
  const forgetOldest = db.prepare<[string, number]>(
    "DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM idempotency_keys WHERE account_id = ? ORDER BY rowid LIMIT ?)",
  );
  const insert = db.prepare<[string, string, string, number, string, number]>(
    "INSERT INTO idempotency_keys (account_id, key, fingerprint, status, response, created_at_ms) VALUES (?, ?, ?, ?, ?, ?)",
  );
  return {
    idempotentCreate(accountId, request, create) {
      return write(() => {
        purge.run(request.nowMs - request.ttlMs);
        const known = keyOf.get(accountId, request.key);
        if (known) {
          if (known.fingerprint !== request.fingerprint) {
            const hours = Math.round(request.ttlMs / 3_600_000);
            throw new ErrorReply(
              240,
              `this Idempotency-Key was already used in the last ${hours} hours with a different request (another path or body); use a new key for a new request`,
            );
          }
          return { status: known.status, body: known.response, replayed: true };
        }
        const first = create();
        const excess = (countOf.get(accountId) ?? 0) - request.maxPerAccount + 1;
        if (excess > 0) forgetOldest.run(accountId, excess);
        insert.run(accountId, request.key, request.fingerprint, first.status, first.body, request.nowMs);
        return { status: first.status, body: first.body, replayed: false };
      });
    },
  };
}

/**
 * The accounts and their keys in the store (emulator/store/accounts.ts): keys by their SHA-256,
 * several per account, revoked ones kept and marked, what a start registers in one transaction,
 * and data files made before accounts had more than one key.
 */
import Database from "better-sqlite3";
import path from "node:path";
import { ErrorReply } from "../../../packages/emulator/errorReply";
import { openStore } from "../../../packages/emulator/store";
import { storedDestination, withMemoryStore } from "../../helpers/emulator-fixtures";
import { useTempDir } from "../../helpers/temp-dir";

const A = "a".repeat(64);
const B = "b".repeat(64);
const C = "c".repeat(64);
const NOW = Date.UTC(2026, 10, 21, 9, 30, 0);

describe("accounts and their keys", () => {
  const dir = useTempDir("emulator-accounts-");

  it("adds keys to an account, revokes one, and lets a revoked key be added again, to any account", () => {
    withMemoryStore((store) => {
      const [first, other] = store.registerAccounts([
        { keyHash: A, abuseReportsAuthorized: true },
        { keyHash: C, abuseReportsAuthorized: false },
      ]);
      store.addAccountKey(first.id, B, NOW);
      expect(store.accountKeyHashes(first.id).sort()).toEqual([A, B]);
      expect(store.registerAccount(B, true)).toEqual(first);

      expect(store.revokeAccountKey(A, NOW + 1000)).toBe(true);
      expect(store.revokeAccountKey(A, NOW + 2000)).toBe(false);
      expect(store.revokeAccountKey("d".repeat(64))).toBe(false);
      expect(store.accountKeyHashes(first.id)).toEqual([B]);
      expect(store.snapshot().api_keys).toContainEqual({
        key_hash: A,
        account_id: first.id,
        created_at: expect.any(String),
        revoked_at: "2026-11-21T09:30:01Z",
      });

      // A key of an account, in use or not, is not added again; nothing changes.
      const before = store.snapshot();
      expect(() => store.addAccountKey(other.id, B)).toThrow(
        new ErrorReply(215, "api_key: is already a key of an account; a key belongs to one account"),
      );
      expect(() => store.addAccountKey(first.id, C)).toThrow(ErrorReply);
      expect(store.snapshot()).toEqual(before);

      store.addAccountKey(other.id, A, NOW);
      expect(store.accountKeyHashes(other.id).sort()).toEqual([A, C]);
      expect(store.accountKeyHashes(first.id)).toEqual([B]);
    });
  });

  it("registering a revoked key makes it valid again, in its account", () => {
    withMemoryStore((store) => {
      const account = store.registerAccount(A, true);
      store.addAccountKey(account.id, B);
      store.revokeAccountKey(A);
      expect(store.registerAccount(A, false)).toEqual({ id: account.id, abuseReportsAuthorized: false });
      expect(store.accountKeyHashes(account.id).sort()).toEqual([A, B]);
    });
  });

  it("registering a known key with the other authorization stores the change, both ways", () => {
    withMemoryStore((store) => {
      const account = store.registerAccount(A, false);
      const authorized = () =>
        store
          .snapshot()
          .accounts.map((a) => (a as { abuse_reports_authorized: number }).abuse_reports_authorized);
      expect(authorized()).toEqual([0]);
      expect(store.registerAccount(A, true)).toEqual({ id: account.id, abuseReportsAuthorized: true });
      expect(authorized()).toEqual([1]);
      store.registerAccount(A, false);
      expect(authorized()).toEqual([0]);
    });
  });

  it("registers the keys of a start in one transaction: two keys of one account authorized differently change nothing", () => {
    withMemoryStore((store) => {
      const account = store.registerAccount(A, true);
      store.addAccountKey(account.id, B);
      const before = store.snapshot();
      expect(() =>
        store.registerAccounts([
          { keyHash: C, abuseReportsAuthorized: true },
          { keyHash: A, abuseReportsAuthorized: true },
          { keyHash: B, abuseReportsAuthorized: false },
        ]),
      ).toThrow("two API keys of one account cannot be one authorized and one restricted");
      expect(store.snapshot()).toEqual(before);
    });
  });

  it("keeps added and revoked keys in the data file", () => {
    const file = path.join(dir(), "keys.db");
    const s1 = openStore(file);
    const account = s1.registerAccount(A, true);
    s1.addAccountKey(account.id, B);
    s1.addAccountKey(account.id, C);
    s1.revokeAccountKey(C);
    s1.close();
    const s2 = openStore(file);
    try {
      expect(s2.registerAccount(B, true)).toEqual(account);
      expect(s2.accountKeyHashes(account.id).sort()).toEqual([A, B]);
    } finally {
      s2.close();
    }
  });

  it("gives the account of a data file made before accounts had several keys its key, once", () => {
    const file = path.join(dir(), "old.db");
    const old = new Database(file);
    old.exec(`CREATE TABLE accounts (
      id TEXT PRIMARY KEY,
      key_hash TEXT NOT NULL UNIQUE,
      abuse_reports_authorized INTEGER NOT NULL,
      created_at TEXT NOT NULL
    ) STRICT`);
    old
      .prepare("INSERT INTO accounts VALUES (?, ?, ?, ?)")
      .run("acct_2NgL3mJYyjPGjIF9lMzDRHmBKzF", A, 1, "2026-01-02T03:04:05Z");
    old.close();

    const s1 = openStore(file);
    const account = s1.registerAccount(A, true);
    expect(account).toEqual({ id: "acct_2NgL3mJYyjPGjIF9lMzDRHmBKzF", abuseReportsAuthorized: true });
    expect(s1.snapshot().api_keys).toEqual([
      { key_hash: A, account_id: account.id, created_at: "2026-01-02T03:04:05Z", revoked_at: null },
    ]);
    s1.createDestination(account.id, storedDestination());
    s1.addAccountKey(account.id, B);
    s1.revokeAccountKey(A);
    s1.close();

    // Reopened: the account's first key is not copied again (it stays revoked).
    const s2 = openStore(file);
    try {
      expect(s2.accountKeyHashes(account.id)).toEqual([B]);
      expect(s2.listDestinations(account.id, { limit: 10 }).items).toHaveLength(1);
    } finally {
      s2.close();
    }
  });
});

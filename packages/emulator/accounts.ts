/**
 * The emulator's API keys and the admin key of the operator endpoints. An account has one key or
 * more (key rotation: `POST /_operator/keys` adds one, `POST /_operator/keys/revoke` revokes
 * one); the store knows each key by its SHA-256 only (keys themselves are never stored). Tokens
 * are compared in constant time with every key.
 *
 * The accounts in use are those of the keys the app is built with; their keys are those keys
 * and every key added to those accounts since (in this run or an earlier one on the same data
 * file) and not revoked. Keys of other accounts of the data file answer 401 / 203.
 *
 * @packageDocumentation
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { ErrorReply } from "./errorReply";
import { TOKEN_PATTERN } from "./options";
import type { Account } from "./records";
import type { Store } from "./store";

/** SHA-256 digest of a UTF-8 string. */
export function sha256(s: string): Buffer {
  return createHash("sha256").update(s, "utf8").digest();
}

/** The keys of `createApp`'s options. */
export interface KeyOptions {
  /** API keys of accounts authorized for abuse reports. */
  apiKeys?: string[];
  /** API keys of accounts not authorized for abuse reports. */
  restrictedApiKeys?: string[];
  /** Key of the operator endpoints; without it they answer 404. */
  adminKey?: string;
}

/** An account after a key was added to it or revoked: the account and how many keys it has now. */
export interface KeyChange {
  account: Account;
  /** The account's keys the app accepts, after the change. */
  keyCount: number;
}

/** The accounts of the API keys and the admin key, checked once when the app is built. */
export class AccountKeys {
  readonly #store: Store;
  #entries: { hash: Buffer; account: Account }[] = [];
  readonly #adminHash: Buffer | undefined;

  /**
   * Checks the keys and registers (or finds, by the SHA-256 of the key) the account of each API
   * key in the store, then takes every key of those accounts that is not revoked.
   *
   * @throws Error when a key is malformed (see `TOKEN_PATTERN`), both authorized and restricted,
   * or one of two keys of one account is authorized and the other restricted.
   */
  constructor(store: Store, opts: KeyOptions) {
    this.#store = store;
    const restricted = new Set(opts.restrictedApiKeys ?? []);
    for (const key of [...(opts.apiKeys ?? []), ...restricted]) {
      if (!TOKEN_PATTERN.test(key))
        throw new Error("an API key is malformed: keys are 1-512 characters of A-Z a-z 0-9 . _ ~ + / = -");
    }
    for (const key of opts.apiKeys ?? []) {
      if (restricted.has(key)) throw new Error("an API key cannot be both authorized and restricted");
    }
    const given = [...new Set([...(opts.apiKeys ?? []), ...restricted])];
    const accounts = store.registerAccounts(
      given.map((key) => ({
        keyHash: sha256(key).toString("hex"),
        abuseReportsAuthorized: !restricted.has(key),
      })),
    );
    const inUse = new Map(accounts.map((a) => [a.id, a]));
    for (const account of inUse.values()) {
      for (const hex of store.accountKeyHashes(account.id))
        this.#entries.push({ hash: Buffer.from(hex, "hex"), account });
    }
    if (opts.adminKey !== undefined && !TOKEN_PATTERN.test(opts.adminKey))
      throw new Error("the admin key is malformed");
    this.#adminHash = opts.adminKey === undefined ? undefined : sha256(opts.adminKey);
  }

  /** The account of a token; `undefined` when it names none. */
  accountOf(token: string): Account | undefined {
    return this.#find(sha256(token));
  }

  /** The account of a key's SHA-256, compared in constant time with every key. */
  #find(h: Buffer): Account | undefined {
    let found: Account | undefined;
    for (const e of this.#entries) if (timingSafeEqual(e.hash, h)) found = e.account;
    return found;
  }

  /** How many keys the app accepts for the account. */
  #count(accountId: string): number {
    return this.#entries.filter((e) => e.account.id === accountId).length;
  }

  /**
   * Adds `key` to the account of `sameAccountAs` (stored by its SHA-256, so it outlives the
   * process): from now on it speaks for that account. `nowMs` in **milliseconds** since the Unix
   * epoch.
   *
   * @throws ErrorReply 215 naming the field, checked in this order: `sameAccountAs` is no key
   * the app accepts; `key` is a key of an account already (in use or not; a revoked key may be
   * added again). Neither key is quoted, and nothing changes.
   */
  add(key: string, sameAccountAs: string, nowMs: number): KeyChange {
    const account = this.#find(sha256(sameAccountAs));
    if (account === undefined)
      throw new ErrorReply(
        215,
        "same_account_as: is not an API key this emulator accepts (unknown or revoked)",
      );
    const hash = sha256(key);
    this.#store.addAccountKey(account.id, hash.toString("hex"), nowMs);
    this.#entries.push({ hash, account });
    return { account, keyCount: this.#count(account.id) };
  }

  /**
   * Revokes `key`: from now on it answers 401 / 203, as an unknown key does; the account's other
   * keys go on working. The store keeps its hash, marked revoked (a start with the key among its
   * keys makes it valid again). `nowMs` in **milliseconds** since the Unix epoch.
   *
   * @throws ErrorReply 404 when the app accepts no such key (unknown, revoked already, or of an
   * account not in use). The key is not quoted.
   */
  revoke(key: string, nowMs: number): KeyChange {
    const hash = sha256(key);
    const account = this.#find(hash);
    if (account === undefined)
      throw new ErrorReply(
        404,
        "api_key: is not an API key this emulator accepts (unknown or revoked already)",
      );
    this.#store.revokeAccountKey(hash.toString("hex"), nowMs);
    this.#entries = this.#entries.filter((e) => !timingSafeEqual(e.hash, hash));
    return { account, keyCount: this.#count(account.id) };
  }

  /** Whether an admin key is configured (without one, operator paths answer 404). */
  get hasAdmin(): boolean {
    return this.#adminHash !== undefined;
  }

  /** Whether `token` is the admin key. */
  isAdmin(token: string): boolean {
    return this.#adminHash !== undefined && timingSafeEqual(sha256(token), this.#adminHash);
  }
}

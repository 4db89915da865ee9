/**
 * The emulator's API keys: one account per key, registered in the store by the SHA-256 of the
 * key (keys themselves are never stored), and the admin key of the operator endpoints. Tokens are
 * compared in constant time with every key.
 *
 * @packageDocumentation
 */
import { createHash, timingSafeEqual } from "node:crypto";
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

/** The accounts of the API keys and the admin key, checked once when the app is built. */
export class AccountKeys {
  readonly #entries: { hash: Buffer; account: Account }[] = [];
  readonly #adminHash: Buffer | undefined;

  /**
   * Checks the keys and registers (or finds, by the SHA-256 of the key) one account per API key
   * in the store.
   *
   * @throws Error when a key is malformed (see `TOKEN_PATTERN`) or both authorized and restricted.
   */
  constructor(store: Store, opts: KeyOptions) {
    const restricted = new Set(opts.restrictedApiKeys ?? []);
    for (const key of [...(opts.apiKeys ?? []), ...restricted]) {
      if (!TOKEN_PATTERN.test(key))
        throw new Error("an API key is malformed: keys are 1-512 characters of A-Z a-z 0-9 . _ ~ + / = -");
    }
    for (const key of opts.apiKeys ?? []) {
      if (restricted.has(key)) throw new Error("an API key cannot be both authorized and restricted");
    }
    const seen = new Set<string>();
    for (const [key, authorized] of [
      ...(opts.apiKeys ?? []).map((k) => [k, true] as const),
      ...[...restricted].map((k) => [k, false] as const),
    ]) {
      if (seen.has(key)) continue;
      seen.add(key);
      const hash = sha256(key);
      this.#entries.push({ hash, account: store.registerAccount(hash.toString("hex"), authorized) });
    }
    if (opts.adminKey !== undefined && !TOKEN_PATTERN.test(opts.adminKey))
      throw new Error("the admin key is malformed");
    this.#adminHash = opts.adminKey === undefined ? undefined : sha256(opts.adminKey);
  }

  /** The account of a token; `undefined` when it names none. */
  accountOf(token: string): Account | undefined {
    const h = sha256(token);
    let found: Account | undefined;
    for (const e of this.#entries) if (timingSafeEqual(e.hash, h)) found = e.account;
    return found;
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

/**
 * The client's one owner of `Idempotency-Key`: the setting (`idempotencyKeys`), the key of each
 * create, whether a keyed POST may be sent again after a lost answer, and what the server's
 * answers showed about honouring keys. The transport and the resources consult it; the provider
 * reads `client.idempotency.honoured`. Reference: docs/service-api.md § Idempotency keys.
 *
 * @packageDocumentation
 */
import { randomUUID } from "node:crypto";

/** The client option: send keys (`true`), send them and trust them once echoed (`"auto"`), or not. */
export type IdempotencyKeysSetting = boolean | "auto";

/** `Idempotency-Key` for one client (see the module comment). */
export class Idempotency {
  readonly #setting: IdempotencyKeysSetting;
  #honoured: boolean | undefined;
  /** The keys whose create was answered with the replay of its first response (`Idempotent-Replayed: true`). */
  readonly #replayed = new Set<string>();

  /**
   * One per client.
   * @param setting - the client's `idempotencyKeys` option (default `false`).
   */
  constructor(setting: IdempotencyKeysSetting = false) {
    this.#setting = setting;
  }

  /** The key of a create: the caller's own, else a fresh UUID when the client sends keys, else none. */
  keyFor(explicit?: string): string | undefined {
    return explicit ?? (this.#setting === false ? undefined : randomUUID());
  }

  /**
   * Whether a POST sent with a key may be sent again after its answer was lost (reset, timeout):
   * always with `idempotencyKeys: true` or a caller's own key; with `"auto"` only once the server
   * has shown that it honours keys.
   */
  mayResend(): boolean {
    return this.#setting !== "auto" || this.#honoured === true;
  }

  /**
   * Records what a response to a keyed POST says: `true` when it echoed the key, `false` when a
   * 2xx response did not (other statuses say nothing). The latest such response wins. A 2xx
   * response that echoed the key and says `Idempotent-Replayed: true` (`replayed`) is the first
   * response of that key again: the create was made earlier, by an earlier request with the key.
   */
  observe(sentKey: string, echoedKey: string | undefined, status: number, replayed?: string): void {
    if (echoedKey === sentKey) this.#honoured = true;
    else if (status >= 200 && status < 300) this.#honoured = false;
    if (echoedKey === sentKey && status >= 200 && status < 300 && replayed?.trim().toLowerCase() === "true")
      this.#replayed.add(sentKey);
  }

  /**
   * True when a create sent with `key` was answered with the replay of the key's first response
   * (`Idempotent-Replayed: true`, the key echoed, a 2xx): the resource it returned was made by an
   * earlier request with that key, not by this one.
   */
  wasReplayed(key: string): boolean {
    return this.#replayed.has(key);
  }

  /**
   * Whether the server honours `Idempotency-Key`, as far as this client has seen: `true` once a
   * response to a keyed POST echoed the key, `false` once a 2xx response did not, `undefined`
   * before either.
   */
  get honoured(): boolean | undefined {
    return this.#honoured;
  }
}

/**
 * Which API key a resource was made or last seen with. Resources are private to their account,
 * and the service has no "who am I" call, so a 404 says "not here" only for the account of the
 * key that asked. A provider whose key changed without the engine seeing it (the dynamic door's
 * `service:apiKey`, a `SERVICE_API_KEY` of the provider process) would take another account's
 * 404 for "already gone": `refresh` would drop the resource from the state and `destroy` report a
 * delete that did not happen, orphaning it silently.
 *
 * So each resource's state carries a stamp of the key: {@link KEY_STAMP}, in the format
 * `s1.<salt>.<hash>` ({@link keyStamp}): a random salt and a scrypt derivation of the key with it
 * ({@link STAMP_SCRYPT}: 16 MiB and some 45 to 70 ms of one core a derivation), never the key.
 * Anyone who can read a state file can test a guess of the key only at that cost per guess and
 * per salt, and two stacks with the same key have different-looking stamps. A create, an update
 * or a read that finds the resource writes a stamp of the key it used (a key that can see the
 * resource is one of its account): each provider process salts the stamps it writes with one
 * salt of its own, so it derives once, and a refresh keeps a stamp that already verifies against
 * its key as it is (no churn in the state). Checking a stamp derives once per salt and key
 * ({@link stampMatches} keeps the derivations), so a refresh of thousands of resources costs one
 * derivation per run that wrote some of their stamps (one salt each), not one per resource.
 *
 * The stamps of earlier versions, 16 hex digits of an unsalted SHA-256 of the key
 * ({@link legacyKeyStamp}), still verify, and are replaced by a salted stamp the next time the
 * resource's outputs are written (create, update, refresh that finds it). `__` outputs are in no
 * diff, so the upgrade shows none.
 *
 * A 404 counts as "gone" only when the stamp is this provider's key's, or when the state has none
 * (states written before stamps); otherwise it is an error that names both stamps by a short form
 * ({@link shortStamp}: enough to tell two apart, useless to test guesses with) and what to run:
 * the key of the account that made it, or, for one run, `SERVICE_KEY_CHANGE=rotation` when the
 * key was rotated within the account and the resource is really gone (which warns:
 * {@link rotationInEffect}).
 *
 * @packageDocumentation
 */
import { createHash, randomBytes, scryptSync, timingSafeEqual } from "node:crypto";
import { KEY_CHANGE_ENV, rotationInEffect } from "./configChange";

/**
 * The output holding the stamp. Pulumi treats properties whose names start with `__` as internal:
 * the engine shows them in no diff, and the SDKs expose them as no output.
 */
export const KEY_STAMP = "__keyStamp";

/** The version tag that starts a salted stamp, `s1.<salt>.<hash>`; it fixes {@link STAMP_SCRYPT}. */
export const STAMP_VERSION = "s1";

/**
 * The derivation of a salted (`s1`) stamp: Node's `crypto.scryptSync` with cost `N` (2^14),
 * block size `r` and parallelism `p`, which needs 128 × N × r bytes (16 MiB, below `maxmem`) and
 * takes 45 to 70 ms (median 58 ms) of one core of a 2-core AMD EPYC cloud machine running other
 * work, so a guess of the key costs as much per salt; checking 1,000 stamps of one salt then
 * costs one derivation and about 4 ms. `saltBytes` random bytes of salt and `hashBytes` bytes of
 * hash, each written in base64url (22 characters). A stamp's version fixes these: changing them
 * needs a new {@link STAMP_VERSION}.
 */
export const STAMP_SCRYPT = Object.freeze({
  N: 16_384,
  r: 8,
  p: 1,
  maxmem: 32 * 1024 * 1024,
  saltBytes: 16,
  hashBytes: 16,
});

/** What the key is prefixed with before it is derived, so a stamp is of no use to any other scheme. */
const DOMAIN = "pulumi-service key stamp\n";
const B64 = "[A-Za-z0-9_-]{22}";
const SALTED = new RegExp(`^${STAMP_VERSION}\\.(${B64})\\.(${B64})$`);
const SALT = new RegExp(`^${B64}$`);
const LEGACY = /^[0-9a-f]{16}$/;

/** This process's salt, made on first use: every stamp the process writes shares it. */
let processSalt: string | undefined;

/**
 * Derivations already made: for each API key (the few most recent: a process normally has one),
 * the hash of each salt seen. The key is held only in this process's memory, as the runtime's
 * configuration holds it.
 */
const derivations = new Map<string, Map<string, Buffer>>();
const MAX_KEYS = 4;
const MAX_SALTS = 10_000;

/** The scrypt hash of `apiKey` with `salt` (base64url), from {@link derivations} when made before. */
function derive(apiKey: string, salt: string): Buffer {
  let bySalt = derivations.get(apiKey);
  if (!bySalt) {
    if (derivations.size >= MAX_KEYS) derivations.delete(derivations.keys().next().value!);
    bySalt = new Map();
    derivations.set(apiKey, bySalt);
  }
  let hash = bySalt.get(salt);
  if (!hash) {
    const { N, r, p, maxmem, hashBytes } = STAMP_SCRYPT;
    hash = scryptSync(DOMAIN + apiKey, Buffer.from(salt, "base64url"), hashBytes, { N, r, p, maxmem });
    if (bySalt.size >= MAX_SALTS) bySalt.clear();
    bySalt.set(salt, hash);
  }
  return hash;
}

/**
 * A salted stamp of `apiKey`: `s1.<salt>.<hash>` (47 characters; salt and hash in base64url, see
 * {@link STAMP_SCRYPT}). It is what a provider writes to {@link KEY_STAMP}.
 * @param salt - 22 base64url characters (16 bytes); by default this process's salt, drawn at
 *   random on first use, so a process derives once per key and two processes' stamps of one key
 *   differ.
 * @throws Error when `salt` is not 22 base64url characters.
 */
export function keyStamp(apiKey: string, salt: string = (processSalt ??= saltText())): string {
  if (!SALT.test(salt)) throw new Error("a key stamp's salt must be 22 base64url characters");
  return `${STAMP_VERSION}.${salt}.${derive(apiKey, salt).toString("base64url")}`;
}

/** 16 random bytes in base64url. */
function saltText(): string {
  return randomBytes(STAMP_SCRYPT.saltBytes).toString("base64url");
}

/**
 * The stamp of `apiKey` as versions before salted stamps wrote it: 16 lowercase hex digits (64
 * bits) of SHA-256 over a fixed prefix and the key. Read only, to verify such stamps
 * ({@link stampMatches}); never written any more.
 */
export function legacyKeyStamp(apiKey: string): string {
  return createHash("sha256")
    .update(DOMAIN + apiKey)
    .digest("hex")
    .slice(0, 16);
}

/** True when `stamp` is an unsalted stamp of an earlier version ({@link legacyKeyStamp}), to be rewritten. */
export function isLegacyStamp(stamp: string | undefined): boolean {
  return stamp !== undefined && LEGACY.test(stamp);
}

/**
 * The stamp in a resource's state (`props`: its outputs), salted or of an earlier version, or
 * `undefined` when it has none or none this provider can read.
 */
export function stampIn(props: unknown): string | undefined {
  const value = (props as Record<string, unknown> | undefined | null)?.[KEY_STAMP];
  return typeof value === "string" && (SALTED.test(value) || LEGACY.test(value)) ? value : undefined;
}

/**
 * Whether `stamp` was derived from `apiKey`: `true` when it was, `false` when it was derived from
 * another key, `undefined` when there is no stamp or it cannot be read (neither format). A salted
 * stamp costs one scrypt derivation the first time its salt is seen with `apiKey` (kept for the
 * next ones); a stamp of an earlier version, a SHA-256. Compared in constant time.
 */
export function stampMatches(stamp: string | undefined, apiKey: string): boolean | undefined {
  if (stamp === undefined) return undefined;
  const salted = SALTED.exec(stamp);
  if (salted) return timingSafeEqual(derive(apiKey, salted[1]), Buffer.from(salted[2], "base64url"));
  if (LEGACY.test(stamp)) return timingSafeEqual(Buffer.from(legacyKeyStamp(apiKey)), Buffer.from(stamp));
  return undefined;
}

/**
 * How an error names a stamp: the first 6 characters of a salted stamp's hash and an ellipsis
 * (e.g. `Qx9_aB…`), enough to tell two apart and useless to test guesses of the key with (the salt
 * is not shown, nor most of the hash); a stamp of an earlier version only as such, since any part
 * of an unsalted hash would let guesses be tested.
 */
export function shortStamp(stamp: string): string {
  const salted = SALTED.exec(stamp);
  if (salted) return `${salted[2].slice(0, 6)}…`;
  return "of an earlier provider version";
}

/** The stamps a 404 is judged by ({@link assertGoneForThisKey}). */
export interface StampCheck {
  /** The state's stamp ({@link stampIn}), `undefined` when it has none. */
  made: string | undefined;
  /** Whether `made` is of this provider's key ({@link stampMatches} with its key). */
  madeIsCurrent: boolean | undefined;
  /** The stamp this provider writes, for the error. */
  current: string;
}

/**
 * Whether the service's 404 for a resource may count as "gone": yes when the state has no stamp
 * (`made` is `undefined`) or one of this provider's key (`madeIsCurrent`), or, for this run, when
 * `env.SERVICE_KEY_CHANGE` is `rotation` (the user says the key was rotated within the account;
 * that warns once per process, see {@link rotationInEffect}).
 * @param what - the resource as the error names it, e.g. `event subscription sub_123`.
 * @param operation - what got the 404: `read` (a refresh) or `delete`.
 * @throws Error naming the resource, both stamps by their short forms ({@link shortStamp}) and
 *   what to run, when none holds.
 */
export function assertGoneForThisKey(
  what: string,
  operation: "read" | "delete",
  { made, madeIsCurrent, current }: StampCheck,
  env: NodeJS.ProcessEnv = process.env,
): void {
  if (made === undefined || madeIsCurrent !== false || rotationInEffect(env)) return;
  const counted = operation === "read" ? "dropped from the state" : "counted as deleted";
  throw new Error(
    `${what} was made with another service API key (key stamp ${shortStamp(made)}) than this provider's ` +
      `(key stamp ${shortStamp(current)}), and the service answers 404 to this key: it may belong to another ` +
      `account, so it is not ${counted}. Configure the provider with a key of the account that made it ` +
      `(service:apiKey or SERVICE_API_KEY) and run again; if the key was rotated within that account ` +
      `and the resource is really gone, run once with ${KEY_CHANGE_ENV}=rotation, which turns these checks ` +
      `off for that run: unset it afterwards.`,
  );
}

/**
 * Identifiers and timestamps of the emulator (docs/service-api.md § Requests).
 *
 * IDs are KSUID-like: 20 bytes (a 32-bit count of seconds since the KSUID epoch, then a 128-bit
 * payload) written as exactly 27 base62 characters (`0-9A-Za-z`, in ASCII order, left-padded with
 * `0`), after a prefix such as `esb_`. Because the alphabet is in ASCII order and the length is
 * fixed, comparing two IDs as strings (or with SQLite's BINARY collation) compares their
 * timestamps first.
 *
 * Unlike a plain KSUID the payload is monotonic within one generator: the first ID of a new second
 * gets a random payload, later IDs in the same second get the previous payload plus one. So IDs
 * made in the same second still sort in creation order. A generator can be told about IDs that
 * already exist ({@link KsuidGenerator.observe}) so that IDs made after a restart within the same
 * second still sort after them.
 *
 * @packageDocumentation
 */
import { randomBytes } from "node:crypto";
import { ID_BODY_LENGTH } from "service-contract";

/** Start of KSUID time, in seconds since the Unix epoch (2014-05-13T16:53:20Z). */
export const KSUID_EPOCH_SECONDS = 1_400_000_000;

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const BASE = 62n;
const PAYLOAD_BITS = 128n;
const PAYLOAD_MASK = (1n << PAYLOAD_BITS) - 1n;

/** Encodes a non-negative integer below 2^160 as exactly {@link ID_BODY_LENGTH} base62 characters. */
function encodeBase62(value: bigint): string {
  const out = new Array<string>(ID_BODY_LENGTH);
  let v = value;
  for (let i = ID_BODY_LENGTH - 1; i >= 0; i--) {
    out[i] = ALPHABET[Number(v % BASE)];
    v /= BASE;
  }
  return out.join("");
}

/** Decodes the 27 base62 characters of an ID body; `undefined` when they are not base62. */
function decodeBase62(body: string): bigint | undefined {
  let v = 0n;
  for (const ch of body) {
    const d = ALPHABET.indexOf(ch);
    if (d < 0) return undefined;
    v = v * BASE + BigInt(d);
  }
  return v;
}

function randomPayload(): bigint {
  // The top bit is left clear so that a second has 2^127 increments of room before overflowing.
  const b = randomBytes(16);
  b[0] &= 0x7f;
  return BigInt("0x" + b.toString("hex"));
}

/** A freshly minted ID and the creation time (whole seconds since the Unix epoch) encoded in it. */
export interface MintedId {
  /** Prefix followed by 27 base62 characters. */
  id: string;
  /** Creation time in whole **seconds** since the Unix epoch; equal to the ID's timestamp. */
  unixSeconds: number;
}

/**
 * Mints time-ordered, monotonic KSUID-like IDs (see the module comment).
 *
 * Not thread-safe in the abstract, but Node runs it on one thread, which is all it needs.
 */
export class KsuidGenerator {
  private lastSeconds = -1;
  private lastPayload = 0n;

  /** @param now - clock in **milliseconds** since the Unix epoch (injectable for tests). */
  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Returns a new ID with the given prefix, greater (as a string, after the prefix) than every ID
   * this generator minted or observed before.
   */
  next(prefix: string): MintedId {
    const seconds = Math.max(0, Math.floor(this.now() / 1000) - KSUID_EPOCH_SECONDS);
    if (seconds > this.lastSeconds) {
      this.lastSeconds = seconds;
      this.lastPayload = randomPayload();
    } else {
      this.lastPayload += 1n;
      if (this.lastPayload > PAYLOAD_MASK) {
        this.lastSeconds += 1;
        this.lastPayload = randomPayload();
      }
    }
    const value = (BigInt(this.lastSeconds) << PAYLOAD_BITS) | this.lastPayload;
    return { id: prefix + encodeBase62(value), unixSeconds: this.lastSeconds + KSUID_EPOCH_SECONDS };
  }

  /**
   * Makes later IDs sort after `id` (an ID minted earlier, e.g. read back from the data file after
   * a restart). Ignores values that are not an ID with the given prefix.
   */
  observe(id: string, prefix: string): void {
    if (!id.startsWith(prefix)) return;
    const value = decodeBase62(id.slice(prefix.length));
    if (value === undefined || id.length !== prefix.length + ID_BODY_LENGTH) return;
    const seconds = Number(value >> PAYLOAD_BITS);
    const payload = value & PAYLOAD_MASK;
    if (seconds > this.lastSeconds || (seconds === this.lastSeconds && payload > this.lastPayload)) {
      this.lastSeconds = seconds;
      this.lastPayload = payload;
    }
  }
}

/**
 * Formats whole seconds since the Unix epoch as an RFC 3339 UTC timestamp without fractional
 * seconds, e.g. `2026-11-21T09:30:00Z` (docs/service-api.md § Requests).
 */
export function rfc3339(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

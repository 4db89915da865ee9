/**
 * Fault injection and duration parsing of the emulator.
 *
 * @packageDocumentation
 */
import ms from "ms";

/**
 * Which share of public API requests fail, and how. Every share is a number from 0 to 1; all
 * absent (`{}`) switches injection off. Faults apply only to the public API, never to
 * `/_operator`, and are drawn in the first request hook, before authentication, body parsing or
 * any handler, so a faulted request changes nothing.
 *
 * One random number `r` in [0, 1) is drawn per request: `r < status503` answers 503;
 * `r < status503 + status429` answers 429; `r < status503 + status429 + reset` destroys the
 * connection without a response; `r < status503 + status429 + reset + resetAfter` lets the
 * request run to the end (its changes are committed) and then destroys the connection instead
 * of sending the response. The four shares must therefore add up to at most 1.
 */
export interface FaultConfig {
  /** Share answered `503` with body code `ERR_SERVICE_500` and `Retry-After: 1`. */
  status503?: number;
  /** Share answered `429` with body code `ERR_SERVICE_226` and `Retry-After: 1`. */
  status429?: number;
  /** Share whose TCP connection is destroyed before any response (logged with status 0). */
  reset?: number;
  /**
   * Share that is handled in full (authentication, validation, the store transaction is
   * committed) and whose TCP connection is then destroyed instead of sending the response: the
   * client sees a reset, but the request took effect (an "ambiguous" create). Logged with the
   * status the handler produced and `fault: "reset-after"`. Off unless set.
   */
  resetAfter?: number;
  /** Delay added to **every** public API request before anything else, in **milliseconds**. */
  latencyMs?: number;
  /** Seed of the pseudo-random generator (integer); without it `Math.random` is used. */
  seed?: number;
}

/**
 * Parses a duration such as `200ms`, `30s`, `1.5m`, `2h` or `1d` (the `ms` package's notation)
 * into **milliseconds**. A bare number is read in `defaultUnit`.
 *
 * @throws Error when `text` is not a non-negative duration.
 */
export function parseDuration(text: string, defaultUnit: "ms" | "s" = "ms"): number {
  const trimmed = text.trim();
  const value = /^\d+(?:\.\d+)?$/.test(trimmed)
    ? Number(trimmed) * (defaultUnit === "s" ? 1000 : 1)
    : trimmed === ""
      ? undefined
      : (ms as (value: string) => number | undefined)(trimmed);
  if (value === undefined || !Number.isFinite(value) || value < 0)
    throw new Error(`invalid duration ${JSON.stringify(text)} (expected e.g. 200ms, 30s, 1m)`);
  return Math.round(value);
}

/**
 * Parses a rate limit such as `120/60s` (at most 120 requests per rolling 60 seconds per account)
 * into `{ max, windowMs }`. A bare window number is read in **seconds**.
 *
 * @throws Error on any other form, or a zero max or window.
 */
export function parseRateLimit(text: string): { max: number; windowMs: number } {
  const m = /^\s*(\d+)\s*\/\s*(.+)$/.exec(text);
  if (!m) throw new Error(`invalid rate limit ${JSON.stringify(text)} (expected e.g. 120/60s)`);
  const max = Number(m[1]);
  const windowMs = parseDuration(m[2], "s");
  if (max < 1 || windowMs < 1)
    throw new Error(`invalid rate limit ${JSON.stringify(text)}: must be positive`);
  return { max, windowMs };
}

/** The share members of {@link FaultConfig}, in the order {@link drawFault} tries them. */
const SHARES = ["status503", "status429", "reset", "resetAfter"] as const;

/**
 * Checks a fault configuration: shares within 0..1 adding up to at most 1, latency ≥ 0 ms, seed
 * an integer. Returns a copy without `undefined` members.
 *
 * @throws Error naming the bad member.
 */
export function checkFaults(cfg: FaultConfig): FaultConfig {
  const out: FaultConfig = {};
  for (const key of SHARES) {
    const v = cfg[key];
    if (v === undefined) continue;
    if (typeof v !== "number" || !(v >= 0 && v <= 1))
      throw new Error(`${key}: must be a share between 0 and 1`);
    out[key] = v;
  }
  const total = SHARES.reduce((sum, key) => sum + (out[key] ?? 0), 0);
  if (total > 1 + 1e-9)
    throw new Error(`the shares of 503, 429, reset and reset-after add up to ${total}, more than 1`);
  if (cfg.latencyMs !== undefined) {
    if (typeof cfg.latencyMs !== "number" || !(cfg.latencyMs >= 0)) throw new Error("latencyMs: must be ≥ 0");
    out.latencyMs = cfg.latencyMs;
  }
  if (cfg.seed !== undefined) {
    if (!Number.isInteger(cfg.seed)) throw new Error("seed: must be an integer");
    out.seed = cfg.seed;
  }
  return out;
}

/**
 * Parses the command-line form of {@link FaultConfig}: comma-separated `kind:value` items, e.g.
 * `503:0.1,429:0.05,reset:0.02,reset-after:0.01,latency:200ms,seed:42`. `503`, `429`, `reset` and
 * `reset-after` take a share (0..1, or a percentage such as `10%`); `latency` a duration (bare
 * numbers are milliseconds);
 * `seed` an integer. An empty string, `off` or `none` gives `{}` (no faults).
 *
 * @throws Error on an unknown kind, a bad value, or shares adding up to more than 1.
 */
export function parseFaults(spec: string): FaultConfig {
  const text = spec.trim();
  if (text === "" || text === "off" || text === "none") return {};
  const cfg: FaultConfig = {};
  for (const item of text.split(",")) {
    const [rawKind, rawValue, ...rest] = item.split(":").map((s) => s.trim());
    if (rawValue === undefined || rest.length > 0 || rawValue === "") {
      throw new Error(`invalid fault ${JSON.stringify(item)} (expected kind:value, e.g. 503:0.1)`);
    }
    const kind = rawKind.toLowerCase();
    const shareOf = (v: string): number => {
      const pct = v.endsWith("%");
      const n = Number(pct ? v.slice(0, -1) : v);
      if (v === "" || !Number.isFinite(n)) throw new Error(`invalid share ${JSON.stringify(v)} for ${kind}`);
      return pct ? n / 100 : n;
    };
    switch (kind) {
      case "503":
        cfg.status503 = shareOf(rawValue);
        break;
      case "429":
        cfg.status429 = shareOf(rawValue);
        break;
      case "reset":
        cfg.reset = shareOf(rawValue);
        break;
      case "reset-after":
        cfg.resetAfter = shareOf(rawValue);
        break;
      case "latency":
        cfg.latencyMs = parseDuration(rawValue, "ms");
        break;
      case "seed": {
        const n = Number(rawValue);
        if (!Number.isInteger(n)) throw new Error(`invalid seed ${JSON.stringify(rawValue)}`);
        cfg.seed = n;
        break;
      }
      default:
        throw new Error(
          `unknown fault kind ${JSON.stringify(rawKind)} (expected 503, 429, reset, reset-after, latency or seed)`,
        );
    }
  }
  return checkFaults(cfg);
}

/**
 * A small seeded pseudo-random generator (mulberry32) returning numbers in [0, 1). Deterministic
 * for a given seed; not for cryptography.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What happens to one public request under a fault configuration. */
export type FaultOutcome = "none" | "503" | "429" | "reset" | "reset-after";

/** Draws the outcome for one request (see {@link FaultConfig} for the rule). */
export function drawFault(cfg: FaultConfig, random: () => number): FaultOutcome {
  const a = cfg.status503 ?? 0;
  const b = a + (cfg.status429 ?? 0);
  const c = b + (cfg.reset ?? 0);
  const d = c + (cfg.resetAfter ?? 0);
  if (d <= 0) return "none";
  const r = random();
  if (r < a) return "503";
  if (r < b) return "429";
  if (r < c) return "reset";
  if (r < d) return "reset-after";
  return "none";
}

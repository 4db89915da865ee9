/**
 * Fault injection and duration parsing of the emulator.
 *
 * @packageDocumentation
 */
import ms from "ms";
import { FAULT_SHARES, FaultConfig as ContractFaultConfig } from "service-contract";

/**
 * Which share of public API requests fail, and how (the contract's schema of the same name holds
 * the rules). Faults apply only to the public API, never to `/_operator`, and are drawn in the
 * first request hook, before authentication, body parsing or any handler, so a faulted request
 * changes nothing.
 *
 * One random number `r` in [0, 1) is drawn per request: `r < status503` answers 503 (body code
 * `ERR_SERVICE_500`, `Retry-After: 1`); `r < status503 + status429` answers 429 (226,
 * `Retry-After: 1`); `r < status503 + status429 + reset` destroys the connection without a
 * response (logged with status 0); `r < status503 + status429 + reset + resetAfter` lets the
 * request run to the end (its changes are committed, logged with the handler's status and
 * `fault: "reset-after"`) and then destroys the connection instead of sending the response: an
 * "ambiguous" create. `latencyMs` delays **every** public request first; `seed` seeds the
 * generator (without it `Math.random` is used).
 */
export type FaultConfig = ContractFaultConfig;

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

/**
 * Checks a fault configuration against the contract's schema (shares within 0..1 adding up to at
 * most 1, latency from 0 to `FAULT_LATENCY_MAX_MS` ms, seed an integer). Returns a copy without
 * `undefined` members.
 *
 * @throws Error naming the bad member and the rule, e.g. `status503: must be a share between 0 and 1`.
 */
export function checkFaults(cfg: FaultConfig): FaultConfig {
  const parsed = ContractFaultConfig.safeParse(cfg);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(issue.path.length === 0 ? issue.message : `${issue.path.join(".")}: ${issue.message}`);
  }
  return Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined));
}

/** The share member of {@link FaultConfig} each command-line kind sets. */
const SHARE_KINDS: ReadonlyMap<string, (typeof FAULT_SHARES)[number]> = new Map([
  ["503", "status503"],
  ["429", "status429"],
  ["reset", "reset"],
  ["reset-after", "resetAfter"],
]);

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
    const share = SHARE_KINDS.get(kind);
    if (share !== undefined) {
      cfg[share] = shareOf(rawValue);
      continue;
    }
    switch (kind) {
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

/**
 * The fault configuration in force and its generator (decorated as `app.faults`): replaced at
 * run time through `PUT /_operator/faults` or `app.emulator.setFaults`.
 */
export class Faults {
  #config: FaultConfig = {};
  #random: () => number = Math.random;

  /** @throws Error when `initial` breaks a rule of {@link checkFaults}. */
  constructor(initial: FaultConfig = {}) {
    this.set(initial);
  }

  /** A copy of the configuration in force. */
  get(): FaultConfig {
    return { ...this.#config };
  }

  /**
   * Replaces the configuration (`{}` switches injection off) and reseeds the generator.
   *
   * @throws Error when `cfg` breaks a rule of {@link checkFaults}; the configuration is kept.
   */
  set(cfg: FaultConfig): FaultConfig {
    this.#config = checkFaults(cfg);
    this.#random = this.#config.seed === undefined ? Math.random : seededRandom(this.#config.seed);
    return this.get();
  }

  /** Milliseconds of latency before each public request (0 when none). */
  get latencyMs(): number {
    return this.#config.latencyMs ?? 0;
  }

  /** Draws the outcome of one public request. */
  draw(): FaultOutcome {
    return drawFault(this.#config, this.#random);
  }
}

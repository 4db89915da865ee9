/**
 * Fault injection and duration parsing of the emulator.
 *
 * @packageDocumentation
 */
import ms from "ms";
import { FAULT_SHARES, FaultConfig as ContractFaultConfig } from "service-contract";

/**
 * Which share of public API requests fail, and how (the contract's schema of the same name holds
 * the rules). Faults apply only to the public API, never to `/_operator`. One random number `r`
 * in [0, 1) is drawn per request, in the first request hook, and compared with the running sum
 * of the shares in the order of `FAULT_SHARES`; the first share it falls under picks the
 * request's fault (`FAULT_OUTCOMES` gives each share's name in the request log):
 *
 * | share | when | what the client gets | changed? |
 * |---|---|---|---|
 * | `status503` | before anything runs | 503 (code 500), `Retry-After: 1` | no |
 * | `status429` | before anything runs | 429 (226), `Retry-After: 1` | no |
 * | `reset` | before anything runs | the connection destroyed, no response (logged with status 0) | no |
 * | `resetAfter` | after the handler | the connection destroyed instead of the response | yes (if the handler changed something) |
 * | `status500`, `status502` | before anything runs | 500 or 502 (code 500), no `Retry-After` | no |
 * | `status500After`, `status502After`, `status503After` | after the handler | 500, 502 or 503 (code 500) instead of its answer, no `Retry-After` | yes |
 * | `truncate` | after the handler | the answer's status and headers (its full `Content-Length`), the first half of its body, then the connection destroyed | yes |
 * | `slow` | before the handler, its body read | held `slowMs`, then runs and answers as usual (the client may have gone) | yes |
 * | `slowAfter` | after the handler | its answer held `slowMs`, then sent | yes |
 *
 * `latencyMs` (with `latencyJitterMs`) is the emulator's one latency: the round trip added to
 * **every** public request, half on the way in and half on the way back (plugins/latency.ts);
 * `seed` seeds the generator (without it `Math.random` is used).
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
 * most 1, latency and its jitter whole milliseconds from 0 to `LATENCY_MAX_MS`, the jitter at most
 * the latency, seed an integer). Returns a copy without
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

/** What happens to one public request under a fault configuration (its request log `fault`). */
export type FaultOutcome =
  | "none"
  | "503"
  | "429"
  | "reset"
  | "reset-after"
  | "500"
  | "502"
  | "500-after"
  | "502-after"
  | "503-after"
  | "truncate"
  | "slow"
  | "slow-after";

/**
 * The outcome each share of {@link FaultConfig} draws, which is also its command-line kind
 * (`--faults 500-after:0.05`) and its name in the request log.
 */
export const FAULT_OUTCOMES: Readonly<Record<(typeof FAULT_SHARES)[number], Exclude<FaultOutcome, "none">>> =
  Object.freeze({
    status503: "503",
    status429: "429",
    reset: "reset",
    resetAfter: "reset-after",
    status500: "500",
    status502: "502",
    status500After: "500-after",
    status502After: "502-after",
    status503After: "503-after",
    truncate: "truncate",
    slow: "slow",
    slowAfter: "slow-after",
  });

/** The share member of {@link FaultConfig} each command-line kind sets. */
const SHARE_KINDS: ReadonlyMap<string, (typeof FAULT_SHARES)[number]> = new Map(
  FAULT_SHARES.map((share) => [FAULT_OUTCOMES[share], share]),
);

/**
 * Parses the command-line form of {@link FaultConfig}: comma-separated `kind:value` items, e.g.
 * `503:0.1,429:0.05,reset:0.02,reset-after:0.01,500-after:0.01,slow:0.02,slow-ms:40s,latency:200ms,latency-jitter:20ms,seed:42`.
 * The kinds of `FAULT_OUTCOMES` (`503`, `429`, `reset`, `reset-after`, `500`, `502`,
 * `500-after`, `502-after`, `503-after`, `truncate`, `slow`, `slow-after`) take a share (0..1, or
 * a percentage such as `10%`); `latency`, `latency-jitter` and `slow-ms` a duration (bare numbers
 * are milliseconds); `seed` an integer. An empty string, `off` or `none` gives `{}` (no faults).
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
      case "latency-jitter":
        cfg.latencyJitterMs = parseDuration(rawValue, "ms");
        break;
      case "slow-ms":
        cfg.slowMs = parseDuration(rawValue, "ms");
        break;
      case "seed": {
        const n = Number(rawValue);
        if (!Number.isInteger(n)) throw new Error(`invalid seed ${JSON.stringify(rawValue)}`);
        cfg.seed = n;
        break;
      }
      default:
        throw new Error(
          `unknown fault kind ${JSON.stringify(rawKind)} (expected ${[...SHARE_KINDS.keys()].join(", ")}, latency, latency-jitter, slow-ms or seed)`,
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

/**
 * Draws the outcome for one request (see {@link FaultConfig} for the rule): one number from
 * `random` when any share is set, none otherwise.
 */
export function drawFault(cfg: FaultConfig, random: () => number): FaultOutcome {
  if (FAULT_SHARES.every((share) => (cfg[share] ?? 0) <= 0)) return "none";
  const r = random();
  let sum = 0;
  for (const share of FAULT_SHARES) {
    sum += cfg[share] ?? 0;
    if (r < sum) return FAULT_OUTCOMES[share];
  }
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

  /**
   * The round trip added to each public request and its jitter, in **milliseconds** (0 when
   * none): read by the latency plugin at each request, so a change applies to the next one.
   */
  get latency(): { latencyMs: number; jitterMs: number } {
    return { latencyMs: this.#config.latencyMs ?? 0, jitterMs: this.#config.latencyJitterMs ?? 0 };
  }

  /** Milliseconds a `slow` or `slow-after` request is held (0 when not set). */
  get slowMs(): number {
    return this.#config.slowMs ?? 0;
  }

  /** Draws the outcome of one public request. */
  draw(): FaultOutcome {
    return drawFault(this.#config, this.#random);
  }
}

/**
 * The options of `service-emulator` (packages/emulator/cli.ts): how each is parsed and checked,
 * and the keys the emulator starts with (from the command line and the environment).
 *
 * @packageDocumentation
 */
import { InvalidArgumentError } from "commander";
import type { CliIo } from "service-cli-kit";
import { TOKEN_PATTERN } from "./app";
import type { FaultConfig } from "./faults";
import { LATENCY_MAX_MS } from "./plugins/latency";
import { RATE_LIMIT_MAX } from "./plugins/rateLimit";
import { randomKey } from "./start";

/** Parsed command-line options. */
export interface CliOptions {
  port: number;
  host: string;
  data: string;
  apiKey: string[];
  restrictedApiKey: string[];
  adminKey?: string;
  publicUrl?: string;
  rateLimit?: { max: number; windowMs: number };
  /** `--rate-limit-burst`: the token bucket's size (only with `--rate-limit`). */
  rateLimitBurst?: number;
  /** `--latency-ms`: round trip added to every public answer, in milliseconds. */
  latencyMs?: number;
  /** `--latency-jitter-ms`: its jitter, in milliseconds (at most `--latency-ms`). */
  latencyJitterMs?: number;
  reviewDelay?: number;
  faults?: FaultConfig;
  /** `false` with `--no-idempotency-keys`. */
  idempotencyKeys: boolean;
  maxIdempotencyKeys?: number;
  maxAbuseReports?: number;
  verbose?: boolean;
  /** `--detach`: start in the background and exit once it listens. */
  detach?: boolean;
  /** `--pid-file`: where the PID goes once listening (default with `--detach`). */
  pidFile?: string;
  /** `--log-file`: the background server's stderr (only with `--detach`). */
  logFile?: string;
}

/**
 * A commander argument parser from `parse`: its error (an `Error` naming what is wrong) becomes
 * commander's `InvalidArgumentError`, which commander prints with the option's name.
 */
export function argParser<T>(parse: (s: string) => T): (s: string) => T {
  return (s) => {
    try {
      return parse(s);
    } catch (e) {
      throw new InvalidArgumentError((e as Error).message);
    }
  };
}

/** Collects the values of a repeatable option (`--api-key A --api-key B`) in order. */
export const collect = (value: string, previous: string[]) => [...previous, value];

/**
 * A TCP port: a whole number from 0 to 65535 (0 picks a free one).
 * @throws Error naming the value otherwise.
 */
export function parsePort(s: string): number {
  const n = Number(s);
  if (!/^\d+$/.test(s) || n > 65535) throw new Error(`invalid port ${JSON.stringify(s)}`);
  return n;
}

/**
 * A count: a whole number from 1 up.
 * @throws Error naming the value otherwise.
 */
export function parseCount(s: string): number {
  const n = Number(s);
  if (!/^\d+$/.test(s) || !Number.isSafeInteger(n) || n < 1)
    throw new Error(`must be a whole number from 1 up, got ${JSON.stringify(s)}`);
  return n;
}

/**
 * A whole number of milliseconds from 0 to {@link LATENCY_MAX_MS} (`--latency-ms`,
 * `--latency-jitter-ms`); commander names the flag in front of the message.
 * @throws Error naming the range and the value otherwise.
 */
export function parseLatencyMs(s: string): number {
  const n = Number(s);
  if (!/^\d+$/.test(s) || n > LATENCY_MAX_MS)
    throw new Error(
      `must be a whole number of milliseconds from 0 to ${LATENCY_MAX_MS}, got ${JSON.stringify(s)}`,
    );
  return n;
}

/**
 * A burst: a whole number of requests from 1 to {@link RATE_LIMIT_MAX} (`--rate-limit-burst`).
 * @throws Error naming the range and the value otherwise.
 */
export function parseBurst(s: string): number {
  const n = Number(s);
  if (!/^\d+$/.test(s) || n < 1 || n > RATE_LIMIT_MAX)
    throw new Error(
      `must be a whole number of requests from 1 to ${RATE_LIMIT_MAX}, got ${JSON.stringify(s)}`,
    );
  return n;
}

/**
 * What the latency and rate-limit flags mean together, or the reason they cannot be combined:
 * `--latency-jitter-ms` at most `--latency-ms` (and only with it), `--rate-limit-burst` only with
 * `--rate-limit`, `--latency-ms` and `--latency-jitter-ms` not with the `latency:` and
 * `latency-jitter:` of `--faults` (the same settings).
 * @throws Error naming both flags and the rule when they do not go together.
 */
export function combineLimits(o: CliOptions): {
  rateLimit?: { max: number; windowMs: number; burst?: number };
  latencyMs?: number;
  latencyJitterMs?: number;
} {
  if (o.rateLimitBurst !== undefined && o.rateLimit === undefined)
    throw new Error("--rate-limit-burst needs --rate-limit (the rate the bucket refills at, e.g. 20/1s)");
  for (const [flag, member, kind] of [
    ["--latency-ms", "latencyMs", "latency"],
    ["--latency-jitter-ms", "latencyJitterMs", "latency-jitter"],
  ] as const)
    if (o[member] !== undefined && o.faults?.[member] !== undefined)
      throw new Error(
        `${flag} and --faults ${kind}: are one setting, the emulator's latency: give one of them`,
      );
  if (o.latencyJitterMs !== undefined && o.latencyJitterMs > (o.latencyMs ?? 0))
    throw new Error(
      `--latency-jitter-ms must be at most --latency-ms (${o.latencyMs ?? 0}), got ${o.latencyJitterMs}`,
    );
  const rateLimit =
    o.rateLimit &&
    (o.rateLimitBurst === undefined ? o.rateLimit : { ...o.rateLimit, burst: o.rateLimitBurst });
  return { rateLimit, latencyMs: o.latencyMs, latencyJitterMs: o.latencyJitterMs };
}

/**
 * The base of `uri` fields: an http or https URL, without trailing slashes.
 * @throws Error (or `TypeError` from `URL`) when it is not an http(s) URL.
 */
export function parsePublicUrl(s: string): string {
  const u = new URL(s);
  if (u.protocol !== "http:" && u.protocol !== "https:")
    throw new Error("the public URL must be http or https");
  return s.replace(/\/+$/, "");
}

function envList(env: CliIo["env"], name: string): string[] {
  return (env[name] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** The keys the emulator starts with. */
export interface StartKeys {
  apiKeys: string[];
  restrictedApiKeys: string[];
  adminKey: string;
}

/**
 * The keys of the options and of the environment (`SERVICE_EMULATOR_API_KEYS`,
 * `SERVICE_EMULATOR_RESTRICTED_API_KEYS`, comma-separated; `SERVICE_EMULATOR_ADMIN_KEY`), without
 * repeats; one random authorized key when none is given, and a random admin key.
 *
 * @throws Error when a key is not 1-512 characters of the token alphabet.
 */
export function startKeys(o: CliOptions, env: CliIo["env"]): StartKeys {
  const apiKeys = [...new Set([...o.apiKey, ...envList(env, "SERVICE_EMULATOR_API_KEYS")])];
  const restrictedApiKeys = [
    ...new Set([...o.restrictedApiKey, ...envList(env, "SERVICE_EMULATOR_RESTRICTED_API_KEYS")]),
  ];
  if (apiKeys.length === 0 && restrictedApiKeys.length === 0) apiKeys.push(randomKey());
  const adminKey = o.adminKey ?? env.SERVICE_EMULATOR_ADMIN_KEY ?? randomKey("admin_");
  for (const k of [...apiKeys, ...restrictedApiKeys, adminKey]) {
    if (!TOKEN_PATTERN.test(k)) throw new Error("keys must be 1-512 characters of A-Z a-z 0-9 . _ ~ + / = -");
  }
  return { apiKeys, restrictedApiKeys, adminKey };
}

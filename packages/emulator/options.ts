/**
 * The options of `createApp`, the run-time controls it decorates the app with (`app.emulator`),
 * and the instance decorators every plugin reads (`app.store`, `app.faults`, `app.clock`,
 * `app.newOperationId`): what was once one context object passed to every plugin.
 *
 * @packageDocumentation
 */
import type { FastifyInstance } from "fastify";
import { API_KEY_PATTERN } from "service-contract";
import type { FaultConfig, Faults } from "./faults";
import type { RateLimitOptions } from "./plugins/rateLimit";
import type { Store } from "./store";

/**
 * Default of {@link StoreLimits.idempotencyKeysPerAccount}: 1,000 stored responses per account.
 * Far more creates than a client makes while it retries one (it resends within seconds, with a
 * few dozen creates in flight at most), while a stored response is at most about the size of
 * its request (1 MiB), so an account stays under about a GiB of them.
 */
export const IDEMPOTENCY_KEYS_PER_ACCOUNT = 1000;

/**
 * Default of {@link StoreLimits.abuseReportsPerAccount}: 1,000 reports per account. Reports are
 * never deleted, so this is all an account can ever file; tests and demos file a handful, and a
 * report can be as large as its request (up to 1 MiB), so this keeps an account under about a
 * GiB of reports.
 */
export const ABUSE_REPORTS_PER_ACCOUNT = 1000;

/**
 * Bounds on what an account can make the emulator store, so that no key holder can grow its
 * memory or data file without end. Counts, per account (the accounts are fixed at start: a key
 * added at run time joins an account in use, so the totals are bounded too).
 */
export interface StoreLimits {
  /**
   * Most `Idempotency-Key` responses remembered per account (default
   * {@link IDEMPOTENCY_KEYS_PER_ACCOUNT}). Storing one more forgets the account's oldest: a
   * retry that comes after this many newer keyed creates of the same account runs again.
   */
  idempotencyKeysPerAccount?: number;
  /**
   * Most abuse reports per account (default {@link ABUSE_REPORTS_PER_ACCOUNT}); a create beyond
   * it answers 409 / 241 and stores nothing.
   */
  abuseReportsPerAccount?: number;
}

/** Options of `createApp`. */
export interface CreateAppOptions {
  /** Where resources and the request log live; the caller opens and closes it. */
  store: Store;
  /**
   * API keys of accounts authorized for abuse reports; each key is its own account, unless it was
   * added to another key's account on this store (`POST /_operator/keys`).
   */
  apiKeys?: string[];
  /** API keys of accounts **not** authorized for abuse reports (they get 403 / 221 there). */
  restrictedApiKeys?: string[];
  /**
   * Key of the operator endpoints (`Authorization: Bearer <adminKey>`). Without it every
   * `/_operator` path answers 404.
   */
  adminKey?: string;
  /**
   * Absolute base of `uri` and `next_page_uri` fields, e.g. `http://127.0.0.1:8787` (a trailing
   * `/` is dropped). Without it the base is the address the app listens on
   * (`http://127.0.0.1:PORT` for a wildcard host); the request's `Host` header is never used,
   * so a page reaching the emulator under another name (DNS rebinding) cannot make it hand out
   * links to that name.
   */
  publicUrl?: string;
  /**
   * Per-account limit: at most `max` requests in any rolling `windowMs` **milliseconds**; with
   * `burst`, a token bucket refilled with `max` requests per `windowMs` that holds at most `burst`
   * (each a whole number from 1; `max` and `burst` up to 1,000,000, `windowMs` up to a day). Past
   * it: 429 / 226 with `Retry-After`. Off when absent.
   */
  rateLimit?: RateLimitOptions;
  /**
   * Round trip added to every answer of the public API, in **milliseconds** (a whole number from
   * 0 to 60,000): half before the request is handled, half before its answer is sent. Off when
   * absent or 0. The emulator's one latency: the same setting as `faults.latencyMs` (give one of
   * them), so it shows in `GET /_operator/faults` and `PUT /_operator/faults` changes it.
   */
  latencyMs?: number;
  /**
   * Jitter of {@link CreateAppOptions.latencyMs}, in **milliseconds**: each request's round trip
   * is drawn uniformly within `latencyMs ± latencyJitterMs` (a whole number from 0 to `latencyMs`).
   * Default 0. The same setting as `faults.latencyJitterMs` (give one of them).
   */
  latencyJitterMs?: number;
  /**
   * Automatic review: a hostname `PENDING` for at least this many **milliseconds** is reviewed
   * (by `autoReviewStatus`: BANNED, or IGNORE for reserved names) when its report is next read.
   * Off when absent.
   */
  reviewDelayMs?: number;
  /**
   * Fault injection at start, the latency included (`latencyMs`, `latencyJitterMs`); changeable
   * at run time through `PUT /_operator/faults`.
   */
  faults?: FaultConfig;
  /**
   * Honour `Idempotency-Key` on creates (default `true`). `false` simulates a server without the
   * feature: the header is ignored and never echoed. Changeable at run time
   * ({@link EmulatorControl.idempotencyKeys}).
   */
  idempotencyKeys?: boolean;
  /**
   * Fastify's request logging, to **stderr**: `true` for level `info`, or a level name. Off when
   * absent or `false`.
   */
  logger?: boolean | "debug" | "info" | "warn" | "error";
  /** Clock in **milliseconds** since the Unix epoch for review delays and rate limits (tests). */
  clock?: () => number;
  /** Bounds on stored idempotency responses and abuse reports (defaults in {@link StoreLimits}). */
  limits?: StoreLimits;
}

/** Run-time controls of an emulator app (`app.emulator`). */
export interface EmulatorControl {
  /** The store given to `createApp`. */
  readonly store: Store;
  /**
   * Base of `uri` fields; settable at run time. `undefined`: the address the app listens on
   * (`http://localhost` before it listens, e.g. under `inject`).
   */
  publicUrl: string | undefined;
  /** Current fault configuration (a copy). */
  getFaults(): FaultConfig;
  /**
   * Replaces the fault configuration (`{}` switches injection off) and reseeds the generator.
   *
   * @throws Error when `cfg` breaks a rule of the contract's `FaultConfig` (a share outside 0..1,
   * shares adding up to more than 1, a latency or jitter not a whole number of milliseconds from
   * 0 to `LATENCY_MAX_MS`, a jitter above the latency, a fractional seed); the configuration in
   * force is kept.
   */
  setFaults(cfg: FaultConfig): FaultConfig;
  /** Whether creates honour `Idempotency-Key` (see {@link CreateAppOptions.idempotencyKeys}); settable. */
  idempotencyKeys: boolean;
}

/** The Fastify instance returned by `createApp`, with its {@link EmulatorControl}. */
export type EmulatorApp = FastifyInstance & { readonly emulator: EmulatorControl };

declare module "fastify" {
  interface FastifyInstance {
    /** The store given to `createApp` (the caller opens and closes it). */
    readonly store: Store;
    /** Run-time controls (see {@link EmulatorControl}). */
    readonly emulator: EmulatorControl;
    /** The fault configuration in force and its random generator. */
    readonly faults: Faults;
    /** Current time in **milliseconds** since the Unix epoch (review delays, rate limit, key expiry). */
    readonly clock: () => number;
    /** A new operation ID (`op_…`), for the requests and for answers outside Fastify. */
    readonly newOperationId: () => string;
  }
}

/**
 * Well-formed API keys and admin keys: 1 to 512 characters of `A-Z a-z 0-9 . _ ~ + / = -` (the
 * contract's `API_KEY_PATTERN`). A token outside this set answers 202 (malformed).
 */
export const TOKEN_PATTERN: RegExp = API_KEY_PATTERN;

/**
 * The limits of the options with the defaults filled in.
 *
 * @throws Error when a limit is not a whole number from 1 up.
 */
export function resolveLimits(limits: StoreLimits = {}): Required<StoreLimits> {
  const out: Required<StoreLimits> = {
    idempotencyKeysPerAccount: limits.idempotencyKeysPerAccount ?? IDEMPOTENCY_KEYS_PER_ACCOUNT,
    abuseReportsPerAccount: limits.abuseReportsPerAccount ?? ABUSE_REPORTS_PER_ACCOUNT,
  };
  for (const [name, value] of Object.entries(out)) {
    if (!Number.isSafeInteger(value) || value < 1)
      throw new Error(`limits.${name} must be a whole number from 1 up, got ${String(value)}`);
  }
  return out;
}

/**
 * `http://host:port` of a listening address, with IPv6 hosts in brackets and the wildcard hosts
 * (`0.0.0.0`, `::`) replaced by loopback.
 */
export function listeningUrl(host: string, port: number): string {
  const h = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  return `http://${h.includes(":") ? `[${h}]` : h}:${port}`;
}

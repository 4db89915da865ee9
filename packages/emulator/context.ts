/**
 * What every part of the emulator app shares: the options, the store, the accounts and their
 * keys, the fault state, per-request state, and the run-time controls (`app.emulator`). Built
 * once by `createApp` and passed to each plugin and route module.
 *
 * @packageDocumentation
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { ServiceError } from "./errors";
import { checkFaults, seededRandom, type FaultConfig, type FaultOutcome } from "./faults";
import { KsuidGenerator } from "./ids";
import type { Account } from "./resources";
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
 * memory or data file without end. Counts, per account (each account is one API key, and the
 * keys are fixed at start, so the totals are bounded too).
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

/** Options of {@link createApp}. */
export interface CreateAppOptions {
  /** Where resources and the request log live; the caller opens and closes it. */
  store: Store;
  /** API keys of accounts authorized for abuse reports; each key is its own account. */
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
  /** Per-account limit: at most `max` requests in any rolling `windowMs` **milliseconds**. Off when absent. */
  rateLimit?: { max: number; windowMs: number };
  /**
   * Automatic review: a hostname `PENDING` for at least this many **milliseconds** is reviewed
   * (by `autoReviewStatus`: BANNED, or IGNORE for reserved names) when its report is next read.
   * Off when absent.
   */
  reviewDelayMs?: number;
  /** Fault injection at start; changeable at run time through `PUT /_operator/faults`. */
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
  /** The store given to {@link createApp}. */
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
   * @throws Error when a share is outside 0..1, the shares add up to more than 1, or the latency
   * is negative.
   */
  setFaults(cfg: FaultConfig): FaultConfig;
  /** Whether creates honour `Idempotency-Key` (see {@link CreateAppOptions.idempotencyKeys}); settable. */
  idempotencyKeys: boolean;
}

/** The Fastify instance returned by {@link createApp}, with its {@link EmulatorControl}. */
export type EmulatorApp = FastifyInstance & { readonly emulator: EmulatorControl };

/**
 * Well-formed API keys and admin keys: 1 to 512 characters of `A-Z a-z 0-9 . _ ~ + / = -`.
 * A token outside this set answers 202 (malformed).
 */
export const TOKEN_PATTERN = /^[A-Za-z0-9._~+/=-]{1,512}$/;

/** Prefix of the operator endpoints. */
export const OPERATOR_PREFIX = "/_operator";

/**
 * `http://host:port` of a listening address, with IPv6 hosts in brackets and the wildcard hosts
 * (`0.0.0.0`, `::`) replaced by loopback.
 */
export function listeningUrl(host: string, port: number): string {
  const h = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  return `http://${h.includes(":") ? `[${h}]` : h}:${port}`;
}

/** SHA-256 digest of a UTF-8 string. */
export function sha256(s: string): Buffer {
  return createHash("sha256").update(s, "utf8").digest();
}

/** Per-route data in Fastify's route `config`. */
export interface RouteInfo {
  /**
   * `public` API route, `operator` route, `document` (the OpenAPI document: no authentication),
   * or a `405` catch-all for wrong methods.
   */
  kind: "public" | "operator" | "document" | "405";
  /** The route (or the 405 catch-all) is on an operator path: admin key, not logged. */
  operator: boolean;
  /** Route needs an account authorized for abuse reports (221). */
  abuse?: boolean;
  /** `Allow` header of a 405 route. */
  allow?: string;
  /** A create that honours `Idempotency-Key`. */
  idempotent?: boolean;
}

/**
 * The route the router matched for `request`, or `undefined` when it matched none. Access, fault
 * injection and request logging are decided on this, never on the text of `request.url` (which
 * the router decodes and normalizes before matching).
 */
export function matchedRoute(request: FastifyRequest): RouteInfo | undefined {
  if (request.is404) return undefined;
  const info = request.routeOptions?.config as unknown as Partial<RouteInfo> | undefined;
  return info?.kind === undefined ? undefined : (info as RouteInfo);
}

/** Whether the request was routed to an operator endpoint (or to its 405 catch-all). */
export function isOperatorRoute(request: FastifyRequest): boolean {
  return matchedRoute(request)?.operator === true;
}

/** The one "no such route" error, used for unknown paths everywhere. */
export function routeNotFound(request: FastifyRequest): ServiceError {
  return new ServiceError(404, `no route for ${request.method} ${request.url.split("?")[0]}`);
}

/** Everything the parts of one emulator app share (see the module comment). */
export interface EmulatorContext {
  readonly opts: CreateAppOptions;
  readonly store: Store;
  /** Current time in **milliseconds** since the Unix epoch. */
  readonly clock: () => number;
  /** Generator of operation IDs (`op_…`). */
  readonly opIds: KsuidGenerator;
  readonly control: EmulatorControl;
  /** SHA-256 of the admin key; `undefined` when none is configured. */
  readonly adminHash: Buffer | undefined;
  /** The limits in force, defaults filled in. */
  readonly limits: Required<StoreLimits>;
  /** The fault configuration in force. */
  faults(): FaultConfig;
  /** The next number of the fault generator, in [0, 1). */
  random(): number;
  /** The account of a token, compared in constant time with every key; `undefined` when none. */
  accountOfToken(token: string): Account | undefined;
  /** The account a request authenticated as, per request. */
  readonly accounts: WeakMap<FastifyRequest, Account>;
  /** The injected fault drawn for a request, when one was. */
  readonly faultOf: WeakMap<FastifyRequest, FaultOutcome>;
  /** Requests answered with the replay of an idempotency key's first response. */
  readonly replays: WeakSet<FastifyRequest>;
  /** Requests already written to the request log. */
  readonly logged: WeakSet<FastifyRequest>;
  /** Rolling windows of request times (ms) per account, for the rate limit. */
  readonly windows: Map<string, number[]>;
  /** Methods of each route path, for the 405 catch-alls. */
  readonly routesByPath: Map<string, { operator: boolean; methods: string[] }>;
  /**
   * Base of `uri` fields for a request (no trailing `/`): the public URL, else the address the
   * request's server listens on. Never the request's `Host` header.
   */
  base(request: FastifyRequest): string;
  /** @throws ServiceError 500 when the request has no account (a route bug). */
  accountOf(request: FastifyRequest): Account;
}

/**
 * Checks the keys, registers (or finds, by the SHA-256 of the key) one account per API key in
 * the store, and builds the shared context.
 *
 * @throws Error when a key is malformed (see {@link TOKEN_PATTERN}), a key is both authorized and
 * restricted, a limit is not a whole number from 1 up, or the fault configuration is invalid.
 */
export function createContext(opts: CreateAppOptions): EmulatorContext {
  const { store } = opts;
  const limits: Required<StoreLimits> = {
    idempotencyKeysPerAccount: opts.limits?.idempotencyKeysPerAccount ?? IDEMPOTENCY_KEYS_PER_ACCOUNT,
    abuseReportsPerAccount: opts.limits?.abuseReportsPerAccount ?? ABUSE_REPORTS_PER_ACCOUNT,
  };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1)
      throw new Error(`limits.${name} must be a whole number from 1 up, got ${String(value)}`);
  }
  const keyEntries: { hash: Buffer; account: Account }[] = [];
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
    keyEntries.push({ hash, account: store.registerAccount(hash.toString("hex"), authorized) });
  }
  if (opts.adminKey !== undefined && !TOKEN_PATTERN.test(opts.adminKey))
    throw new Error("the admin key is malformed");

  let faults: FaultConfig = checkFaults(opts.faults ?? {});
  let random: () => number = faults.seed === undefined ? Math.random : seededRandom(faults.seed);
  const control: EmulatorControl = {
    store,
    publicUrl: opts.publicUrl?.replace(/\/+$/, ""),
    getFaults: () => ({ ...faults }),
    setFaults(cfg) {
      faults = checkFaults(cfg);
      random = faults.seed === undefined ? Math.random : seededRandom(faults.seed);
      return { ...faults };
    },
    idempotencyKeys: opts.idempotencyKeys ?? true,
  };
  const accounts = new WeakMap<FastifyRequest, Account>();
  return {
    opts,
    store,
    clock: opts.clock ?? Date.now,
    opIds: new KsuidGenerator(),
    control,
    adminHash: opts.adminKey === undefined ? undefined : sha256(opts.adminKey),
    limits,
    faults: () => faults,
    random: () => random(),
    accountOfToken(token) {
      const h = sha256(token);
      let found: Account | undefined;
      for (const e of keyEntries) if (timingSafeEqual(e.hash, h)) found = e.account;
      return found;
    },
    accounts,
    faultOf: new WeakMap(),
    replays: new WeakSet(),
    logged: new WeakSet(),
    windows: new Map(),
    routesByPath: new Map(),
    base(request) {
      if (control.publicUrl !== undefined) return control.publicUrl.replace(/\/+$/, "");
      const address = request.server.server.address();
      if (address === null || typeof address === "string") return "http://localhost";
      return listeningUrl(address.address, address.port);
    },
    accountOf(request) {
      const a = accounts.get(request);
      if (!a) throw new ServiceError(500, "request has no account");
      return a;
    },
  };
}

/** A plugin option carrying the shared context. */
export interface WithContext {
  ctx: EmulatorContext;
}

/** The Fastify instance type the plugins register on. */
export type App = FastifyInstance;

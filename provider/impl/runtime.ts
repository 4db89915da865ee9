/**
 * State of the dynamic-provider process: the configuration read in `configure()` and the one
 * client built from it. This module is loaded by package name inside the provider methods
 * (`require("pulumi-service/provider/impl/runtime")`), so nothing here is serialized into the
 * Pulumi state, and the API key lives only in this process's memory.
 *
 * Configuration: each stack config key first, then its environment variable in the provider
 * process (see {@link SETTINGS}; docs/real-service.md):
 * - `service:apiKey` (set it with `pulumi config set --secret service:apiKey …`) or `SERVICE_API_KEY`;
 * - `service:baseUrl` or `SERVICE_BASE_URL`;
 * - `service:caCertificate` or `SERVICE_CA_CERTIFICATE`: a private CA to trust (PEM text or a
 *   PEM file's path);
 * - `service:requestTimeoutMs`, `service:maxRetries`, `service:retryBudgetMs` or
 *   `SERVICE_REQUEST_TIMEOUT_MS`, `SERVICE_MAX_RETRIES`, `SERVICE_RETRY_BUDGET_MS`.
 *
 * The proxy variables (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`) and `NODE_EXTRA_CA_CERTS` of the
 * provider process are honoured by the client. Every request is logged at debug level through
 * Pulumi's log (`pulumi up --debug`, or `-v=3` or more with `--logtostderr`), and to stderr as
 * well with `SERVICE_LOG=debug`; `SERVICE_LOG=off` turns both off. The lines reach Pulumi's log in
 * batches, in order: see {@link flushDebugLog}.
 *
 * The client sends an `Idempotency-Key` with every create (`idempotencyKeys: "auto"`), so a
 * create whose connection is reset is retried safely once the service has shown that it honours
 * keys; `ambiguous.ts` handles the rest.
 *
 * @packageDocumentation
 */
import { readFileSync } from "node:fs";
// Pulumi's log module alone, not the package's root: the root loads the whole SDK (581 more
// modules, about 0.45 s more at every start of the plugin), of which the providers use the log.
import * as pulumiLog from "@pulumi/pulumi/log";
import type * as Client from "../../client/client";
import { readCaCertificates } from "../../client/ca";
import { NotFoundError } from "../../client/errors";
import { loggerFromEnv, type RequestLogger } from "../../client/log";
import { KEY_STAMP, assertGoneForThisKey, isLegacyStamp, keyStamp, stampIn, stampMatches } from "./keyStamp";

/** The bag `configure()` receives: the whole stack configuration, namespaces kept. */
export interface ConfigBag {
  get(key: string): string | undefined;
}

/** A whole-number setting: its unit as the error names it, its range, and its default. */
interface NumberSetting {
  unit: string;
  min: number;
  max: number;
  /** The range in words, after the number (e.g. `(10 minutes)`). */
  hint?: string;
}

/**
 * The provider's settings: stack config key, environment variable, and for numbers the unit and
 * range. Left unset, a setting takes the client's default (`ServiceClientOptions` in client/client.ts).
 */
export const SETTINGS = {
  apiKey: { key: "service:apiKey", env: "SERVICE_API_KEY" },
  baseUrl: { key: "service:baseUrl", env: "SERVICE_BASE_URL" },
  caCertificate: { key: "service:caCertificate", env: "SERVICE_CA_CERTIFICATE" },
  requestTimeoutMs: {
    key: "service:requestTimeoutMs",
    env: "SERVICE_REQUEST_TIMEOUT_MS",
    number: { unit: "milliseconds", min: 1, max: 600_000, hint: " (10 minutes)" } as NumberSetting,
  },
  maxRetries: {
    key: "service:maxRetries",
    env: "SERVICE_MAX_RETRIES",
    number: { unit: "retries", min: 0, max: 20 } as NumberSetting,
  },
  retryBudgetMs: {
    key: "service:retryBudgetMs",
    env: "SERVICE_RETRY_BUDGET_MS",
    number: { unit: "milliseconds", min: 0, max: 3_600_000, hint: " (1 hour)" } as NumberSetting,
  },
} as const;

type Name = keyof typeof SETTINGS;
/** A setting's value and how to name where it came from in an error. */
interface Setting {
  value: string;
  from: string;
}

let settings: Partial<Record<Name, Setting>> = {};
let client: Client.ServiceClient | undefined;

/** The value of `name`: stack config, else the environment (empty counts as unset). */
function read(config: ConfigBag | undefined, name: Name): Setting | undefined {
  const { key, env } = SETTINGS[name];
  const fromConfig = config?.get(key);
  if (fromConfig) return { value: fromConfig, from: key };
  const fromEnv = process.env[env];
  return fromEnv ? { value: fromEnv, from: `${env} (the fallback of ${key})` } : undefined;
}

/**
 * Reads the settings (see {@link SETTINGS}) from the stack configuration, falling back to the
 * environment. The engine calls it once per provider *type* in the provider process (each of
 * EventSubscription, EventDestination and AbuseReport is a provider of its own), so the client,
 * its connection pool and its warm connections are kept when the settings are the same; a
 * client built for other settings is closed. Values are checked by {@link getClient}.
 */
export async function configure(req: { config: ConfigBag }): Promise<void> {
  const next: Partial<Record<Name, Setting>> = {};
  for (const name of Object.keys(SETTINGS) as Name[]) {
    const s = read(req.config, name);
    if (s) next[name] = s;
  }
  const same = (Object.keys(SETTINGS) as Name[]).every((n) => next[n]?.value === settings[n]?.value);
  if (!same) {
    const previous = client;
    client = undefined;
    // Requests still in flight on the old pool finish before it closes.
    previous?.close().catch(() => {});
  }
  settings = next;
  connectLogToEngine();
}

/** A whole number within the setting's range. @throws Error naming the setting, unit and range. */
function whole(name: "requestTimeoutMs" | "maxRetries" | "retryBudgetMs"): number | undefined {
  const s = settings[name] ?? read(undefined, name);
  if (!s) return undefined;
  const { unit, min, max, hint = "" } = SETTINGS[name].number;
  const n = /^\s*\d+\s*$/.test(s.value) ? Number(s.value) : NaN;
  if (!(n >= min && n <= max)) {
    throw new Error(
      `${s.from} must be a whole number of ${unit} from ${min} to ${max}${hint}, got ${JSON.stringify(s.value)}`,
    );
  }
  return n;
}

/**
 * Longest a request's log line waits, in milliseconds, before the lines waiting go to Pulumi's
 * log as one debug message ({@link flushDebugLog}).
 */
export const DEBUG_LOG_FLUSH_MS = 500;

/** Characters of waiting lines past which they go at once, without waiting for the timer. */
export const DEBUG_LOG_BATCH_CHARS = 256 * 1024;

/** Longest a signal waits for the waiting lines to reach the engine before the process goes on ending. */
const SIGNAL_FLUSH_MS = 1_000;

/** The lines not yet handed to Pulumi's log, their characters, and the timer that will send them. */
const debugLog = {
  lines: [] as string[],
  chars: 0,
  timer: undefined as NodeJS.Timeout | undefined,
  /** Settles when every message handed to Pulumi's log so far has been sent (or failed). */
  sent: Promise.resolve(),
  /** The process's signal and exit hooks are installed (on the first line). */
  hooked: false,
};

/**
 * Sends the request lines waiting for Pulumi's log now, as one debug message (lines joined by
 * newlines, in the order they were logged), and resolves once it and every message before it
 * have been sent (a message that cannot be sent is dropped, never an error).
 *
 * Why batches: the engine shows debug messages only when asked (`pulumi up --debug`, or `-v=N`
 * with `--logtostderr`), and it does not tell a provider whether it was asked: `--debug` is an
 * option of the CLI's display, and `--logtostderr`/`-v` reach a plugin only with `--logflow`
 * (`buildPluginArguments` in Pulumi's `sdk/go/common/resource/plugin/plugin.go`). So the lines
 * are always sent, but a message per request cost a gRPC call each, about 1.1 s of CPU for an
 * `up` of 1,000 (docs/performance.md). Lines wait at most {@link DEBUG_LOG_FLUSH_MS} (or until
 * they reach {@link DEBUG_LOG_BATCH_CHARS}), and are sent before the provider ends: the native
 * plugin flushes on the engine's `Cancel`, which the engine sends to every provider before it
 * stops it, and any process flushes on `SIGINT` or `SIGTERM` (for up to a second, then ends as
 * the signal asks) and before it exits for want of work.
 */
export function flushDebugLog(): Promise<void> {
  if (debugLog.timer) clearTimeout(debugLog.timer);
  debugLog.timer = undefined;
  if (debugLog.lines.length > 0) {
    const message = debugLog.lines.join("\n");
    debugLog.lines = [];
    debugLog.chars = 0;
    // Pulumi's log sends its messages one after the other, in the order they were given.
    debugLog.sent = pulumiLog.debug(message).catch(() => {});
  }
  return debugLog.sent;
}

/** Queues `line` for Pulumi's log ({@link flushDebugLog}), starting the timer that sends it. */
function queueDebugLine(line: string): void {
  hookProcessEnd();
  debugLog.lines.push(line);
  debugLog.chars += line.length + 1;
  if (debugLog.chars >= DEBUG_LOG_BATCH_CHARS) void flushDebugLog();
  else if (!debugLog.timer) {
    debugLog.timer = setTimeout(() => void flushDebugLog(), DEBUG_LOG_FLUSH_MS);
    // The lines never keep a process alive: the exit and signal hooks send them.
    debugLog.timer.unref();
  }
}

/**
 * Once per process: the waiting lines are sent before it exits for want of work (`beforeExit`)
 * and on `SIGINT` or `SIGTERM` (how the engine stops a provider after `Cancel`), for up to
 * {@link SIGNAL_FLUSH_MS}; then the signal ends the process as it would have without this hook,
 * unless another listener of the process handles it.
 */
function hookProcessEnd(): void {
  if (debugLog.hooked) return;
  debugLog.hooked = true;
  process.on("beforeExit", () => {
    if (debugLog.lines.length > 0) void flushDebugLog();
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, SIGNAL_FLUSH_MS).unref());
      void Promise.race([flushDebugLog(), timeout]).then(() => {
        // Alone, this hook kept the signal from ending the process: raise it again, untrapped.
        if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
      });
    });
  }
}

/**
 * The request logger of the provider: each line at debug level to Pulumi's log (which the
 * engine shows only when asked: `pulumi up --debug`, or `-v=3` or more with `--logtostderr`), in
 * batches ({@link flushDebugLog}), and to stderr as well, at once, with `SERVICE_LOG=debug`; none
 * with `SERVICE_LOG=off`.
 * @throws Error (a ServiceError) naming SERVICE_LOG for any other value.
 */
function providerLogger(): RequestLogger | undefined {
  const value = (process.env.SERVICE_LOG ?? "").trim().toLowerCase();
  if (value === "off") return undefined;
  const stderr = loggerFromEnv();
  return (line, entry) => {
    stderr?.(line, entry);
    queueDebugLine(line);
  };
}

/**
 * The client of this process, built on first use.
 * @throws Error naming the config key and the variable to set when the key or URL is missing,
 *   or naming the setting (and for numbers its unit and range) when a value is malformed.
 */
export function getClient(): Client.ServiceClient {
  if (client) return client;
  const apiKey = settings.apiKey ?? read(undefined, "apiKey");
  const baseUrl = settings.baseUrl ?? read(undefined, "baseUrl");
  if (!apiKey) {
    throw new Error(
      "No API key for the service: run `pulumi config set --secret service:apiKey <key>` or set SERVICE_API_KEY.",
    );
  }
  if (!baseUrl) {
    throw new Error(
      "No base URL for the service: run `pulumi config set service:baseUrl <url>` (e.g. " +
        "https://… for the service, http://127.0.0.1:8787 for the emulator) or set SERVICE_BASE_URL.",
    );
  }
  let url: URL | undefined;
  try {
    url = new URL(baseUrl.value);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new Error(`${baseUrl.from} must be an absolute http:// or https:// URL`);
  }
  const ca = settings.caCertificate ?? read(undefined, "caCertificate");
  // Checked here to name the setting; the client reads the same text again.
  const caCertificate = ca ? readCaCertificates(ca.value, ca.from).join("\n") : undefined;
  const timeoutMs = whole("requestTimeoutMs");
  const maxRetries = whole("maxRetries");
  const retryBudgetMs = whole("retryBudgetMs");
  const logger = providerLogger();
  // Loaded here, not at the top: a preview or a run with no change sends no request, and
  // loading undici is a large part of the provider process's start (docs/performance.md
  // § Fixed cost gives the figures).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ServiceClient } = require("../../client/client") as typeof Client;
  client = new ServiceClient({
    apiKey: apiKey.value,
    baseUrl: baseUrl.value,
    caCertificate,
    timeoutMs,
    maxRetries,
    retryBudgetMs,
    logger,
    userAgent: "pulumi-service-provider",
    idempotencyKeys: "auto",
  });
  return client;
}

/** True when `err` is the service's "not found" (HTTP 404), whatever its body. */
export function isNotFound(err: unknown): boolean {
  return err instanceof NotFoundError;
}

/** A resource of the state, as the key-stamp checks name it: e.g. `event subscription sub_123`, and its outputs. */
export interface StateOf {
  what: string;
  props: unknown;
}

/**
 * This provider's API key.
 * @throws Error saying what to set when no key is configured (as {@link getClient}).
 */
function currentApiKey(): string {
  const apiKey = settings.apiKey ?? read(undefined, "apiKey");
  if (!apiKey) getClient(); // throws the missing-key error
  return apiKey!.value;
}

/**
 * The key stamp to write (keyStamp.ts): `s1.<salt>.<hash>`, this provider's API key derived with
 * scrypt and this process's salt. Derived once per process and key (tens of milliseconds), then kept.
 * @throws Error saying what to set when no key is configured (as {@link getClient}).
 */
export function currentKeyStamp(): string {
  return keyStamp(currentApiKey());
}

/**
 * Whether `stamp` (a state's {@link KEY_STAMP}, salted or of an earlier version) was derived from
 * this provider's API key: `true` when it was, `false` when from another key, `undefined` when
 * there is no stamp or it cannot be read. The one comparison every check of stamps uses; the
 * first stamp of each salt costs one scrypt derivation (kept for the others: keyStamp.ts
 * `stampMatches`).
 * @throws Error saying what to set when `stamp` is given and no key is configured (as {@link getClient}).
 */
export function isCurrentKeyStamp(stamp: string | undefined): boolean | undefined {
  if (stamp === undefined) return undefined;
  return stampMatches(stamp, currentApiKey());
}

/**
 * `outs` stamped with this provider's key ({@link KEY_STAMP}), as a create, an update, an
 * adoption or an import writes them. For a refresh, pass `refreshed`, the state's outputs: a
 * state written before stamps (outputs without one) keeps its shape, so an upgrade refreshes to no
 * change; a salted stamp of this key is kept as it is (no new salt, no churn in the state); a
 * stamp of an earlier version, or of another key (one rotated within the account: this key found
 * the resource), is replaced by {@link currentKeyStamp}.
 * @throws Error saying what to set when no key is configured (as {@link getClient}).
 */
export function stamped<T extends object>(outs: T, refreshed?: unknown): T {
  const earlier = refreshed as Record<string, unknown> | undefined;
  const stamp = stampIn(earlier);
  if (earlier && Object.keys(earlier).length > 0 && stamp === undefined) return outs;
  const kept = stamp !== undefined && !isLegacyStamp(stamp) && isCurrentKeyStamp(stamp) === true;
  return { ...outs, [KEY_STAMP]: kept ? stamp : currentKeyStamp() };
}

/** The stamps a 404 to this provider's key is judged by (keyStamp.ts `assertGoneForThisKey`). */
function stampCheck(state: StateOf) {
  const made = stampIn(state.props);
  return { made, madeIsCurrent: isCurrentKeyStamp(made), current: currentKeyStamp() };
}

/**
 * Runs a `get` for `read` (refresh): its result, or `undefined` when the service answers 404
 * (the resource was deleted outside Pulumi and leaves the state) to the key that made it.
 * @param state - the resource and its outputs: a 404 to another key than the one its stamp
 *   names is not taken for "gone" (see keyStamp.ts).
 * @throws Error naming both key stamps for a 404 to another key; any other client error, as is.
 */
export async function getUnlessGone<T>(get: () => Promise<T>, state?: StateOf): Promise<T | undefined> {
  try {
    return await get();
  } catch (err) {
    if (!isNotFound(err)) throw err;
    if (state) assertGoneForThisKey(state.what, "read", stampCheck(state));
    return undefined;
  }
}

/**
 * Runs a `delete`; a 404 (already gone) counts as deleted, but only when the provider deleting
 * is the one the resource was made through: the same service (`madeAt`, the resource's `uri` in
 * the state, `{base_url}/<collection>/<id>`, must lie below this provider's base URL) and the
 * same account (the state's key stamp, when it has one, is this provider's key's: keyStamp.ts).
 * Another service's or another key's 404 says nothing about the resource, so it is an error that
 * names both.
 * @param state - the resource and its outputs, for the key stamp.
 * @throws Error naming both services for a 404 from another service than the one in `madeAt`, or
 *   both key stamps for a 404 to another key; any other client error, as is.
 */
export async function deleteUnlessGone(
  del: () => Promise<unknown>,
  madeAt?: unknown,
  state?: StateOf,
): Promise<void> {
  try {
    await del();
  } catch (err) {
    if (!isNotFound(err)) throw err;
    const here = getClient().baseUrl;
    if (typeof madeAt === "string" && madeAt !== "" && !madeAt.startsWith(`${here}/`)) {
      throw new Error(
        `${madeAt} was made at another service than this provider's (${here}), which answers 404 for it: ` +
          "it cannot be counted as deleted. Delete it through a provider configured for the service that " +
          "made it, or remove it from the stack with `pulumi state delete` if it is gone.",
        { cause: err },
      );
    }
    if (state) assertGoneForThisKey(state.what, "delete", stampCheck(state));
  }
}

/**
 * The dynamic-provider process gets the engine's address as its last argument (after
 * `--logtostderr -v=N` with `pulumi up --logflow`) but does not hand it to `@pulumi/pulumi`'s
 * log; doing so makes `pulumi.log` messages reach the engine (its display, `--debug`, and
 * `-v=N --logtostderr`) instead of only the process's stderr, and debug messages at all (they
 * are dropped without an engine). `@pulumi/pulumi` reads `PULUMI_NODEJS_ENGINE` into its
 * settings once, when its state is first made, which may be before `configure`, so the address
 * is set there too (an internal of `@pulumi/pulumi` 3.x; where its layout differs, only the debug lines are lost).
 */
function connectLogToEngine(): void {
  const args = process.argv.slice(2);
  // Flags come first: `--logtostderr`, `-v=N`, `--tracing <endpoint>`.
  const addr = args.find((a, i) => !a.startsWith("-") && args[i - 1] !== "--tracing");
  if (!addr || !/^[\w.[\]:-]+:\d+$/.test(addr)) return;
  process.env.PULUMI_NODEJS_ENGINE ||= addr;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const state = require("@pulumi/pulumi/runtime/state") as {
      getStore(): { settings: { options: { engineAddr?: string } } };
    };
    const options = state.getStore().settings.options;
    options.engineAddr ||= process.env.PULUMI_NODEJS_ENGINE;
  } catch {
    // another layout of @pulumi/pulumi: warnings still reach stderr, debug lines are lost
  }
}

/**
 * Logs a warning through Pulumi's log (shown by `pulumi up`). Never fails: a log that cannot be
 * written (the engine connection gone, say) loses the note, never the operation it describes.
 */
export async function warn(message: string): Promise<void> {
  try {
    await pulumiLog.warn(message);
  } catch {
    // the note is lost; the operation it describes is not
  }
}

/**
 * The environment variable that turns on **recovery adoption** of the providers' creates: the
 * path of the file `service-recover --since TIME --found FILE` writes, listing the event
 * subscriptions and destinations the service made since an interrupted `pulumi up` started that
 * the stack holds nowhere. Set it in the environment of the `pulumi up` that finishes such a run
 * (the provider process inherits it from the CLI). See {@link adoptionCandidates}.
 */
export const ADOPT_FROM_ENV = "SERVICE_ADOPT_FROM";

/** The resources of one kind that recovery adoption may take (see {@link adoptionCandidates}). */
export interface AdoptionCandidates {
  /** Their IDs. */
  ids: ReadonlySet<string>;
  /** The oldest one's `created_at`, in **milliseconds** since the Unix epoch: a listing stops there. */
  oldestMs: number;
}

/** The file of {@link ADOPT_FROM_ENV}, read once per process. */
let candidates: { file: string; byKind: Record<string, AdoptionCandidates> } | undefined;

/**
 * When {@link ADOPT_FROM_ENV} is set: the resources of `kind` listed in its file. Every create
 * of an event subscription or destination then first looks among them for one with exactly its
 * values that no other resource of the deployment holds, and adopts it instead of creating one
 * (see `createOnce` in ambiguous.ts). This is how a deployment finishes one that was killed with
 * `PULUMI_SKIP_CHECKPOINTS=true`, whose creates the state does not record. Only resources the
 * stack did not hold when `service-recover` read it are listed, so none is ever taken from
 * another resource of the stack.
 *
 * @returns `undefined` when the variable is unset or empty, or the file lists nothing of `kind`.
 * @throws Error naming the variable and the file when it cannot be read or is not the JSON
 *   `service-recover --found` writes (`{ "since": …, "resources": [{ "kind", "id", "createdAt" }…] }`).
 */
export function adoptionCandidates(kind: "subscription" | "destination"): AdoptionCandidates | undefined {
  const file = process.env[ADOPT_FROM_ENV]?.trim();
  if (!file) return undefined;
  if (candidates?.file !== file) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, "utf8"));
    } catch (err) {
      throw new Error(
        `${ADOPT_FROM_ENV}=${file}: cannot read the file (${err instanceof Error ? err.message : String(err)}); give the file written by service-recover --found`,
      );
    }
    const resources = (parsed as { resources?: unknown } | null)?.resources;
    const valid =
      Array.isArray(resources) &&
      resources.every(
        (r: { kind?: unknown; id?: unknown; createdAt?: unknown }) =>
          (r?.kind === "subscription" || r?.kind === "destination") &&
          typeof r.id === "string" &&
          typeof r.createdAt === "string" &&
          !Number.isNaN(Date.parse(r.createdAt)),
      );
    if (!valid) {
      throw new Error(
        `${ADOPT_FROM_ENV}=${file}: not a file written by service-recover --found (it needs "resources": [{ "kind", "id", "createdAt" }, …])`,
      );
    }
    const byKind: Record<string, { ids: Set<string>; oldestMs: number }> = {};
    for (const r of resources as { kind: string; id: string; createdAt: string }[]) {
      const k = (byKind[r.kind] ??= { ids: new Set(), oldestMs: Infinity });
      k.ids.add(r.id);
      k.oldestMs = Math.min(k.oldestMs, Date.parse(r.createdAt));
    }
    candidates = { file, byKind };
  }
  return candidates.byKind[kind];
}

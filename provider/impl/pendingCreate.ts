/**
 * Pending creates: a create that timed out (`customTimeouts.create`, timeouts.ts) after its
 * request may have reached the service, which may still make the resource once the `up` has
 * failed. It must not be lost, nor made twice, and settling it must never touch a resource that
 * is not provably its own: another stack's twin with the same values, a sibling of the same
 * stack, a resource of another account.
 *
 * **The failed `up`.** The create fails with Pulumi's "initialization failed" error
 * ({@link PendingCreateError}: an ID, properties and reasons; the native door's server sends it
 * as an `ErrorResourceInitFailed` status detail, the dynamic door's host builds that detail from
 * the thrown error's `id`, `properties` and `reasons`). The engine records the resource in the
 * stack with that ID, those outputs and the reasons as init errors. The ID is a placeholder,
 * `pending-create-<uuid>` ({@link isPlaceholderId}), which no operation ever sends to the service.
 * The outputs are the create's inputs (what was sent: secrets stay secret as they do in any
 * create's outputs, by the engine's secret marks on the same names and, natively, the schema's
 * secret properties) plus the marker {@link PENDING_CREATE_OUTPUT} ({@link PendingCreateMarker}:
 * when it was sent, the `Idempotency-Key` it was sent with, the key stamp of the API key that sent
 * it, and how long after the send the service may have made it; no secret).
 *
 * **The next `up`.** `diff` sees the marker and answers a replacement (the changed and replaced
 * property is the marker; not delete-before-replace), so the engine creates the replacement, then
 * deletes the placeholder at the end of the deployment. `create` does not get the old state, so
 * `diff` hands it over in this process ({@link pendingDiff} records it, keyed by the new inputs;
 * {@link timedCreate} takes it): both doors run a resource's `diff` and `create` in one provider
 * process (the native plugin's, or the dynamic provider host's), in that order. The replacement's
 * create **sends the timed-out create again, with the same values and the same
 * `Idempotency-Key`** (refused under another API key than the one that sent it: the key stamp).
 * A service that honours keys answers with what that key made (`Idempotent-Replayed: true`), so
 * the resource the timed-out create made is taken, provably its own, or, when it made nothing, makes
 * it now; the program's values then follow with one `PATCH` when they differ from those sent (or
 * hold a write-only secret that cannot be compared). The placeholder's delete then makes no request.
 *
 * **Without proof** (the service ignores keys, or the key is older than the service keeps keys,
 * {@link KEY_RETENTION_MS}, or the placeholder predates the key in the marker), the replay is a new
 * create, and what the timed-out create made, if anything, cannot be told from another resource
 * with the same values. Nothing is adopted by resemblance. The placeholder's delete, at the end of
 * the deployment (when the engine has shown the provider every resource of the program), looks
 * for resources of the kind with exactly the values sent, made inside the window the marker bounds
 * on both sides in the service's time ({@link pendingWindow}), held by no resource of the
 * deployment, and names them in a warning with the command to delete them: it deletes none.
 *
 * **`refresh`** keeps a placeholder as it is ({@link readPending}: no request); the next `up`
 * resolves it. **`destroy`** (or removing the resource from the program) sends the timed-out create
 * again the same way and deletes what the key's answer names: the resource the timed-out create
 * made, or one the replay itself made; never a resource found by resemblance ({@link removePending}).
 * Without proof it deletes what its own replay made, if anything, and names the candidates in a
 * warning. With `deleteBeforeReplace` the engine deletes the placeholder first: that delete takes the
 * resource off the service and the replacement creates a new one (one resource, a new ID).
 *
 * Abuse reports cannot be listed, so a timed-out report is not kept this way: its error says it
 * may still be filed (timeouts.ts).
 *
 * @packageDocumentation
 */
import { randomUUID } from "node:crypto";
import { SERVICE_VERSION } from "service-contract";
import { monotonicNowMs } from "../../client/serviceClock";
import { CLOCK_SKEW_MS, SERVICE_CLOCK_MARGIN_MS, LISTINGS, maybeApplied, withArticle } from "./ambiguous";
import { processClaims, type ClaimRegistry } from "./claims";
import { KEY_CHANGE_ENV } from "./configChange";
import { listSince } from "./listing";
import type { ServiceDiffResult } from "./resourceOptions";
import { OperationTimeoutError, TIMEOUT_MARGIN_MS, timed } from "./timeouts";
import { currentKeyStamp, getClient, isCurrentKeyStamp, warn } from "./runtime";

/** Plain property values. */
type Props = Record<string, unknown>;

/** The output under which a placeholder's state holds its {@link PendingCreateMarker}. */
export const PENDING_CREATE_OUTPUT = "__pendingCreate";

/** How a placeholder ID starts: `pending-create-<uuid>`. */
export const PLACEHOLDER_PREFIX = "pending-create-";

/**
 * How long the service keeps an `Idempotency-Key`, in **milliseconds** (24 hours: docs/service-api.md
 * § Idempotency keys). A replay sent later may make a new resource even though the first create
 * made one, so its answer proves nothing about the first.
 */
export const KEY_RETENTION_MS = 24 * 60 * 60 * 1000;

/**
 * How long after the send a placeholder whose marker predates {@link PendingCreateMarker.windowMs}
 * may have been made, in **milliseconds** (1 hour): such markers only bound the warning's search.
 */
export const LEGACY_WINDOW_MS = 60 * 60 * 1000;

/** The marker of a pending create, in a placeholder's outputs. */
export interface PendingCreateMarker {
  /** When the create started (before anything was sent), in **milliseconds** since the Unix epoch, this machine's time. */
  sentAtMs: number;
  /** The same moment in the service's time (**milliseconds**), when the client knew the service's clock; absent otherwise. */
  serviceSentAtMs?: number;
  /**
   * How long after {@link sentAtMs} the service may have made the resource, in **milliseconds**:
   * until the timeout, plus the longest request the service may still have been running then.
   * Absent in markers written before it was recorded ({@link LEGACY_WINDOW_MS} then).
   */
  windowMs?: number;
  /** The `Idempotency-Key` of the last create request sent (a UUID); absent in markers written before it was recorded. */
  idempotencyKey?: string;
  /** The key stamp of the API key the create was sent with (keyStamp.ts); absent in markers written before it was recorded. */
  keyStamp?: string;
}

/** True when `id` is a placeholder of a pending create (`pending-create-…`), which the service never sees. */
export function isPlaceholderId(id: unknown): id is string {
  return typeof id === "string" && id.startsWith(PLACEHOLDER_PREFIX);
}

/** A finite number, or `undefined`. */
function finite(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** A non-empty string, or `undefined`. */
function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** The marker in `props` (a placeholder's outputs), or `undefined` when there is none (no finite `sentAtMs`). */
export function pendingMarker(props: unknown): PendingCreateMarker | undefined {
  const marker = (props as Props | undefined)?.[PENDING_CREATE_OUTPUT] as Props | undefined;
  const sentAtMs = finite(marker?.sentAtMs);
  if (sentAtMs === undefined) return undefined;
  const found: PendingCreateMarker = { sentAtMs };
  const serviceSentAtMs = finite(marker?.serviceSentAtMs);
  const windowMs = finite(marker?.windowMs);
  const idempotencyKey = text(marker?.idempotencyKey);
  const keyStamp = text(marker?.keyStamp);
  if (serviceSentAtMs !== undefined) found.serviceSentAtMs = serviceSentAtMs;
  if (windowMs !== undefined && windowMs >= 0) found.windowMs = windowMs;
  if (idempotencyKey !== undefined) found.idempotencyKey = idempotencyKey;
  if (keyStamp !== undefined) found.keyStamp = keyStamp;
  return found;
}

/** The values a placeholder's create sent: its outputs without the `__` properties (marker, forwarded options, dynamic provider). */
export function sentValues(props: Props): Props {
  return Object.fromEntries(Object.entries(props).filter(([k]) => !k.startsWith("__")));
}

/**
 * Where a placeholder's create may have been made, in the service's time (**milliseconds** since
 * the Unix epoch, as `created_at`): from the send less a margin to the send plus
 * {@link PendingCreateMarker.windowMs} plus the margin. The margin is
 * {@link SERVICE_CLOCK_MARGIN_MS} when the marker has the send in the service's time, else
 * {@link CLOCK_SKEW_MS} of this machine's.
 */
export function pendingWindow(marker: PendingCreateMarker): { fromMs: number; toMs: number } {
  const service = marker.serviceSentAtMs !== undefined;
  const sent = marker.serviceSentAtMs ?? marker.sentAtMs;
  const margin = service ? SERVICE_CLOCK_MARGIN_MS : CLOCK_SKEW_MS;
  return { fromMs: sent - margin, toMs: sent + (marker.windowMs ?? LEGACY_WINDOW_MS) + margin };
}

/**
 * Pulumi's "initialization failed" error for a create that timed out and may still be made:
 * the dynamic door's host reads `id`, `properties` and `reasons` off it; the native door's
 * server sends them as an `ErrorResourceInitFailed` detail.
 */
export class PendingCreateError extends Error {
  /**
   * @param id - the placeholder ID (`pending-create-<uuid>`).
   * @param properties - the create's inputs plus {@link PENDING_CREATE_OUTPUT}: the placeholder's outputs.
   * @param reasons - the init errors the engine records (the message).
   */
  constructor(
    message: string,
    readonly id: string,
    readonly properties: Props,
    readonly reasons: string[],
    cause: unknown,
  ) {
    super(message, { cause });
    this.name = "PendingCreateError";
  }
}

/**
 * What settling a placeholder needs to know of the provider and its client. {@link runtimeContext}
 * gives the provider process's; tests give their own.
 */
export interface PendingContext {
  /** The key stamp of the provider's API key, for a new marker. */
  keyStamp(): string;
  /** True when `stamp` was derived from the provider's API key, false when from another, `undefined` when unreadable. */
  isCurrentKeyStamp(stamp: string): boolean | undefined;
  /** The service's time at this machine's time `localMs` (**milliseconds**), `undefined` before any answer told it. */
  serviceNow(localMs: number): number | undefined;
  /** How long one request may take, in **milliseconds** (the client's `timeoutMs`). */
  requestTimeoutMs(): number;
  /** Whether the service honours `Idempotency-Key`, as far as the client has seen (`undefined`: not yet seen). */
  keysHonoured(): boolean | undefined;
  /** True when a create sent with `key` was answered with the replay of the key's first response. */
  wasReplayed(key: string): boolean;
  /** This machine's time, in **milliseconds** since the Unix epoch, from the clock the service's is estimated against (monotonic). */
  now(): number;
}

/** The provider process's {@link PendingContext}: its client (built on first use) and key stamp. */
export function runtimeContext(): PendingContext {
  return {
    keyStamp: () => currentKeyStamp(),
    isCurrentKeyStamp: (stamp) => isCurrentKeyStamp(stamp),
    serviceNow: (localMs) => getClient().serviceClock.now(localMs),
    requestTimeoutMs: () => getClient().timeoutMs,
    keysHonoured: () => getClient().idempotency.honoured,
    wasReplayed: (key) => getClient().idempotency.wasReplayed(key),
    now: monotonicNowMs,
  };
}

/** A placeholder whose replacement this process is about to create, as {@link pendingDiff} saw it. */
export interface PendingReplacement {
  /** The placeholder's ID. */
  placeholderId: string;
  /** When the timed-out create started, in **milliseconds** since the Unix epoch ({@link PendingCreateMarker.sentAtMs}). */
  sentAtMs: number;
  /** The placeholder's whole marker. */
  marker: PendingCreateMarker;
  /** The values it sent ({@link sentValues} of the placeholder's outputs). */
  sent: Props;
  /** True once a replacement's create has taken it. */
  taken: boolean;
  /**
   * True once the replacement's replay proved what the timed-out create made: the key's first
   * answer came back (that resource is the replacement's now), or the service, honouring keys
   * within {@link KEY_RETENTION_MS}, had made nothing under it. The placeholder's delete then has
   * nothing to look for.
   */
  settled: boolean;
}

/** JSON with object keys sorted: equal values give equal text whatever their keys' order. */
function stableJson(value: unknown): string {
  return JSON.stringify(canonical(value));
}

/**
 * `value` with every object's keys in sorted order (arrays keep theirs): equal values give
 * byte-identical JSON whatever order their keys came in (a program's, or the state's after a
 * round trip through the engine). A create's request is sent in this form, so that the
 * placeholder's replay, rebuilt from the state, repeats it byte for byte, as the service's
 * idempotency check compares it.
 */
export function canonical<T>(value: T): T {
  if (Array.isArray(value)) return value.map(canonical) as T;
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value as Props)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, canonical(v)]),
    ) as T;
  return value;
}

/**
 * This process's pending replacements: by placeholder ID, with the new inputs each was diffed
 * against (the key its replacement's create finds it by). Tests make their own.
 */
export class PendingReplacements {
  private readonly byId = new Map<string, { key: string; pending: PendingReplacement }>();

  /** Records (once per placeholder) that `placeholderId`, with `marker` and the sent values `sent`, is replaced by a create of `news`. */
  note(placeholderId: string, marker: PendingCreateMarker, sent: Props, news: unknown): void {
    if (this.byId.has(placeholderId)) return;
    const pending = { placeholderId, sentAtMs: marker.sentAtMs, marker, sent, taken: false, settled: false };
    this.byId.set(placeholderId, { key: stableJson(news), pending });
  }

  /** The first pending replacement not yet taken whose new inputs are `news`, now taken; `undefined` when none. */
  take(news: unknown): PendingReplacement | undefined {
    const key = stableJson(news);
    for (const entry of this.byId.values()) {
      if (entry.key === key && !entry.pending.taken) {
        entry.pending.taken = true;
        return entry.pending;
      }
    }
    return undefined;
  }

  /** The pending replacement of `placeholderId` once a replacement's create has taken it; else `undefined`. */
  taken(placeholderId: string): PendingReplacement | undefined {
    const pending = this.byId.get(placeholderId)?.pending;
    return pending?.taken ? pending : undefined;
  }
}

/** This process's pending replacements (see {@link PendingReplacements}). */
export const processPending = new PendingReplacements();

/**
 * `diff` of a placeholder: a replacement (see the module comment), recorded for the
 * replacement's create; `undefined` when `id` is no placeholder with a marker (the kind's own
 * diff answers).
 */
export function pendingDiff(
  id: string,
  olds: Props,
  news: unknown,
  pending: PendingReplacements = processPending,
): ServiceDiffResult | undefined {
  const marker = pendingMarker(olds);
  if (!isPlaceholderId(id) || !marker) return undefined;
  pending.note(id, marker, sentValues(olds), news);
  return {
    changes: true,
    diffs: [PENDING_CREATE_OUTPUT],
    replaces: [PENDING_CREATE_OUTPUT],
    stables: [],
    deleteBeforeReplace: false,
  };
}

/** `read` of a placeholder: kept as it is, with no request; `undefined` for a real ID. */
export function readPending(id: string, props: unknown): { id: string; props: Props } | undefined {
  return isPlaceholderId(id) ? { id, props: { ...(props as Props) } } : undefined;
}

/**
 * Runs a create (`fn`) under its timeout as `timed` does (timeouts.ts), handing it the pending
 * replacement of `news` when `diff` recorded one (the placeholder it replaces), and `sending`,
 * which `fn` calls with the `Idempotency-Key` of each create request before it sends it. A
 * timeout after a create request was sent (or while the service may still make the resource, as
 * `withTimeout` tells) fails with a {@link PendingCreateError}: a new placeholder whose marker
 * holds the earlier send time (the pending replacement's, else this create's start), the last
 * key sent, the provider's key stamp and the window in which the service may make it.
 * @param timeoutMs - the native door's create timeout in **milliseconds** (the dynamic door's
 *   travels in `news`).
 * @throws PendingCreateError as above; any other error of `fn` or of the timeout as it is.
 */
export async function timedCreate<R>(
  what: string,
  news: Props,
  timeoutMs: number | undefined,
  fn: (pending: PendingReplacement | undefined, sending: (idempotencyKey: string) => void) => Promise<R>,
  pendingReplacements: PendingReplacements = processPending,
  context: PendingContext = runtimeContext(),
): Promise<R> {
  const pending = pendingReplacements.take(news);
  const startedMs = context.now();
  const sentAtMs = Math.min(pending?.sentAtMs ?? Infinity, startedMs);
  let sent = false;
  let lastKey: string | undefined;
  try {
    return await timed("create", what, news, timeoutMs, () =>
      fn(pending, (key) => {
        sent = true;
        lastKey = key;
      }),
    );
  } catch (err) {
    if (!(err instanceof OperationTimeoutError) || !(sent || err.mayHaveBeenMade)) throw err;
    const id = `${PLACEHOLDER_PREFIX}${randomUUID()}`;
    const message =
      `${err.headline} after its request was sent. The service may still make it: the stack keeps it as ${id} (a placeholder), and the next ` +
      `\`pulumi up\` sends that create again under the same Idempotency-Key, which gives back the ${what} the service made ` +
      `(or makes it now), so it is neither lost nor made twice.`;
    const marker: PendingCreateMarker = { sentAtMs };
    const serviceSentAtMs = pending?.marker.serviceSentAtMs ?? context.serviceNow(sentAtMs);
    if (serviceSentAtMs !== undefined) marker.serviceSentAtMs = serviceSentAtMs;
    marker.windowMs = context.now() - sentAtMs + context.requestTimeoutMs() + TIMEOUT_MARGIN_MS;
    const key = lastKey ?? pending?.marker.idempotencyKey;
    if (key !== undefined) marker.idempotencyKey = key;
    marker.keyStamp = context.keyStamp();
    throw new PendingCreateError(message, id, { ...news, [PENDING_CREATE_OUTPUT]: marker }, [message], err);
  }
}

/** What settling a placeholder needs of its kind: how to list it, compare, and send a create again. */
export interface PendingKind<T extends { id: string; createdAt: string }> {
  /** Kind in words, e.g. `event subscription` (also the claims' gate of the kind, as in ambiguous.ts). */
  what: string;
  /** Every resource of the kind, newest first. */
  list(): AsyncIterable<T>;
  /** True when `live` has exactly the values `sent` (inputs). */
  matches(live: T, sent: Props): boolean;
  /**
   * Sends the create of the values `sent` again under `idempotencyKey`, as the timed-out create
   * sent it (the same request, byte for byte): the service's answer, which with a service that
   * honours keys is the resource that key made. Absent: the placeholder is never replayed.
   */
  replay?(sent: Props, idempotencyKey: string): Promise<T>;
}

/** A resource of the kind as a warning names it: its ID and, when it has one, the command that deletes it. */
function deleteCommand(live: { id: string; uri?: unknown }): string {
  return typeof live.uri === "string" && live.uri !== ""
    ? `${live.id} (\`curl -X DELETE ${live.uri} -H "Authorization: Bearer $SERVICE_API_KEY" -H "Service-Version: ${SERVICE_VERSION}"\`)`
    : live.id;
}

/**
 * The placeholder `id`'s key stamp against the provider's.
 * @throws Error naming the placeholder when its create was sent with another API key (whose
 *   account a replay or a lookup would not reach), unless `SERVICE_KEY_CHANGE=rotation` says the
 *   key was rotated within the account.
 */
function assertSameKey(what: string, id: string, marker: PendingCreateMarker, context: PendingContext): void {
  if (marker.keyStamp === undefined || process.env[KEY_CHANGE_ENV] === "rotation") return;
  if (context.isCurrentKeyStamp(marker.keyStamp) !== false) return;
  throw new Error(
    `${what} ${id} (the placeholder of a create that timed out) was sent with another service API key than this provider's: ` +
      `what it made would be in that key's account, which this provider cannot see, so it neither sends it again nor looks for it. ` +
      `Configure the provider with the key that sent it (service:apiKey or SERVICE_API_KEY) and run again; if the key was rotated ` +
      `within that account, run with ${KEY_CHANGE_ENV}=rotation.`,
  );
}

/**
 * The replay of the placeholder `pending` for its replacement's create: the `Idempotency-Key`
 * and the values to send again, or `undefined` when the marker has no key (a placeholder written
 * before keys were recorded: the replacement is a plain create).
 * @throws Error when the placeholder was sent with another API key (see the module comment).
 */
export function replayOf(
  what: string,
  pending: PendingReplacement,
  context: PendingContext = runtimeContext(),
): { idempotencyKey: string; sent: Props } | undefined {
  assertSameKey(what, pending.placeholderId, pending.marker, context);
  const key = pending.marker.idempotencyKey;
  return key === undefined ? undefined : { idempotencyKey: key, sent: pending.sent };
}

/**
 * True when the answer to a create sent again under `idempotencyKey` (a 2xx, or a refusal that is
 * no lost answer) proves what the timed-out create made: the key's first answer came back
 * (`Idempotent-Replayed`), or the service honours keys and the key is within {@link KEY_RETENTION_MS}
 * of the send, so it had made nothing under it.
 */
function replayProves(marker: PendingCreateMarker, idempotencyKey: string, context: PendingContext): boolean {
  if (context.wasReplayed(idempotencyKey)) return true;
  return context.keysHonoured() === true && context.now() - marker.sentAtMs < KEY_RETENTION_MS;
}

/**
 * Records the answer to the replacement's replay of `pending` (sent under `idempotencyKey`, the
 * marker's): the placeholder is settled when that answer proves what the timed-out create made.
 * @returns true when the answer was the first answer of the key (the resource the timed-out create made).
 */
export function replayAnswered(
  pending: PendingReplacement,
  idempotencyKey: string,
  context: PendingContext = runtimeContext(),
): boolean {
  if (idempotencyKey !== pending.marker.idempotencyKey) return false;
  if (replayProves(pending.marker, idempotencyKey, context)) pending.settled = true;
  return context.wasReplayed(idempotencyKey);
}

/**
 * The kind's resources with exactly the values `sent`, made inside the marker's window
 * ({@link pendingWindow}), held by no resource of the deployment, newest first, listed while no
 * other create or lookup of the kind runs.
 * @throws Error saying what to look for, when the listing fails {@link LISTINGS} times.
 */
async function candidates<T extends { id: string; createdAt: string }>(
  kind: PendingKind<T>,
  marker: PendingCreateMarker,
  sent: Props,
  registry: ClaimRegistry,
): Promise<T[]> {
  const gate = registry.gate(kind.what);
  const { fromMs, toMs } = pendingWindow(marker);
  await gate.enterLookup();
  try {
    return await listSince(
      () => kind.list(),
      fromMs,
      (live) =>
        Date.parse(live.createdAt) <= toMs && kind.matches(live, sent) && !registry.isClaimed(live.id),
      LISTINGS,
      (err) =>
        new Error(
          `${kind.what}: a create that timed out may have been made, and looking for it failed ${LISTINGS} times ` +
            `(last: ${err instanceof Error ? err.message : String(err)}). Look for ${withArticle(kind.what)} with these values made ` +
            `between ${new Date(fromMs).toISOString()} and ${new Date(toMs).toISOString()} (service-drift generate lists them).`,
        ),
    );
  } finally {
    gate.leaveLookup();
  }
}

/**
 * Names in a warning what the timed-out create of placeholder `id` may have made when nothing
 * proved it: the candidates of {@link candidates}, each with the command to delete it. Deletes
 * and adopts nothing.
 */
async function warnCandidates<T extends { id: string; createdAt: string }>(
  kind: PendingKind<T>,
  id: string,
  marker: PendingCreateMarker,
  sent: Props,
  registry: ClaimRegistry,
  why: string,
): Promise<void> {
  const found = await candidates(kind, marker, sent, registry);
  if (found.length === 0) return;
  const { fromMs, toMs } = pendingWindow(marker);
  await warn(
    `${kind.what} ${id} (the placeholder of a create that timed out): ${why}, so nothing tells whether the service made it. ` +
      `${found.length === 1 ? `One ${kind.what}` : `${found.length} ${kind.what}s`} with its values, made between ` +
      `${new Date(fromMs).toISOString()} and ${new Date(toMs).toISOString()} and held by no resource of this deployment, ` +
      `may be it, or another stack's or anyone's: ${found.map(deleteCommand).join(", ")}. The provider deletes none of them. ` +
      `If one is what this stack's create made, delete it with the command shown (or adopt it with adoptId).`,
  );
}

/**
 * `delete` of a placeholder. When its replacement's create took it in this process: nothing, if
 * the replay settled it; else the candidates are named in a warning ({@link warnCandidates}).
 * Otherwise (`destroy`, or the resource left the program): the timed-out create is sent again
 * under its `Idempotency-Key` and what the answer names is deleted with `remove`, being provably
 * this create's (the first answer of the key, or the replay's own resource); when that answer does
 * not prove what the timed-out create made (a service that ignores keys, a key past
 * {@link KEY_RETENTION_MS}, a marker without a key), the candidates are named in a warning and
 * deleted by no one.
 * @returns true when `id` is a placeholder (handled here), false for a real ID (the kind deletes it).
 * @throws Error when the placeholder was sent with another API key; Error saying to run `destroy`
 *   again when the replay's answer was lost; a listing's error as {@link candidates}.
 */
export async function removePending<T extends { id: string; createdAt: string }>(
  kind: PendingKind<T>,
  id: string,
  props: unknown,
  remove: (live: T) => Promise<void>,
  registry: ClaimRegistry = processClaims,
  pendingReplacements: PendingReplacements = processPending,
  context: PendingContext = runtimeContext(),
): Promise<boolean> {
  if (!isPlaceholderId(id)) return false;
  const marker = pendingMarker(props);
  if (!marker) return true;
  const sent = sentValues(props as Props);
  const placeholder = `${kind.what} ${id} (the placeholder of a create that timed out)`;
  const nameCandidates = (why: string) => warnCandidates(kind, id, marker, sent, registry, why);
  const taken = pendingReplacements.taken(id);
  if (taken) {
    if (!taken.settled)
      await nameCandidates("its replacement was created anew without proof of what it had made");
    return true;
  }
  assertSameKey(kind.what, id, marker, context);
  const key = marker.idempotencyKey;
  if (key === undefined || !kind.replay) {
    await nameCandidates("its marker holds no Idempotency-Key to send it again with");
    return true;
  }
  if (context.keysHonoured() === false) {
    await nameCandidates("the service does not honour Idempotency-Key");
    return true;
  }
  let live: T;
  try {
    live = await kind.replay(sent, key);
  } catch (err) {
    if (maybeApplied(err))
      throw new Error(
        `${placeholder}: sending its create again under the same Idempotency-Key, to find what it made, failed without ` +
          `an answer (${err instanceof Error ? err.message : String(err)}). Run pulumi destroy (or up) again.`,
        { cause: err },
      );
    // Refused (a destination it named is gone, say): under a key the service honours, nothing was made.
    if (!replayProves(marker, key, context))
      await nameCandidates("sending it again under its Idempotency-Key was refused");
    return true;
  }
  registry.claim(live.id);
  await remove(live);
  if (context.wasReplayed(key)) {
    await warn(`${placeholder}: the service had made ${live.id} under its Idempotency-Key; deleted it`);
  } else if (replayProves(marker, key, context)) {
    await warn(
      `${placeholder}: the service had made nothing under its Idempotency-Key; sending it again to find out made ${live.id}, which was deleted`,
    );
  } else {
    await warn(`${placeholder}: sending it again made ${live.id}, which was deleted`);
    await nameCandidates("the service did not show that it honours Idempotency-Key");
  }
  return true;
}

/**
 * Guards an operation that sends `id` to the service.
 * @throws Error naming the placeholder and saying to run `pulumi up` (which replaces it) when
 *   `id` is one: the service never sees a placeholder.
 */
export function notPlaceholder(id: string): void {
  if (isPlaceholderId(id))
    throw new Error(
      `${id} is the placeholder of a create that timed out, not a resource of the service: run pulumi up, which replaces it ` +
        `by the resource the service made (or a new one)`,
    );
}

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
 * `KEY_RETENTION_MS`, or the placeholder predates the key in the marker), the replay is a new
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
 * made, or one the replay itself made; never a resource found by resemblance (`removePending`, placeholderSettlement.ts, which holds these steps).
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
import { monotonicNowMs } from "../../../client/serviceClock";
import { CLOCK_SKEW_MS, SERVICE_CLOCK_MARGIN_MS } from "./lostAnswer";
import type { ServiceDiffResult } from "../resourceOptions";
import { OperationTimeoutError, TIMEOUT_MARGIN_MS, timed } from "../timeouts";
import { currentKeyStamp, isCurrentKeyStamp } from "../keyChecks";
import { getClient } from "../process/client";

/** Plain property values. */
type Props = Record<string, unknown>;

/** The output under which a placeholder's state holds its {@link PendingCreateMarker}. */
export const PENDING_CREATE_OUTPUT = "__pendingCreate";

/** How a placeholder ID starts: `pending-create-<uuid>`. */
export const PLACEHOLDER_PREFIX = "pending-create-";

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
   * within `KEY_RETENTION_MS` (placeholderSettlement.ts), had made nothing under it. The placeholder's delete then has
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

/**
 * Pending creates: a create that timed out (`customTimeouts.create`, timeouts.ts) after its
 * request may have reached the service, which may still make the resource once the `up` has
 * failed. It must not be lost, nor made twice: the next `up` finds it and takes it, as a lost
 * create's lookup does (ambiguous.ts).
 *
 * **The failed `up`.** The create fails with Pulumi's "initialization failed" error
 * ({@link PendingCreateError}: an ID, properties and reasons; the native door's server sends it
 * as an `ErrorResourceInitFailed` status detail, the dynamic door's host builds that detail from
 * the thrown error's `id`, `properties` and `reasons`). The engine records the resource in the
 * stack with that ID, those outputs and the reasons as init errors. The ID is a placeholder,
 * `pending-create-<uuid>` ({@link isPlaceholderId}), which no operation ever sends to the service.
 * The outputs are the create's inputs (what was sent: secrets stay secret as they do in any
 * create's outputs, by the engine's secret marks on the same names and, natively, the schema's
 * secret properties) plus the marker {@link PENDING_CREATE_OUTPUT} (`{ sentAtMs }`: when the
 * create started, in **milliseconds** since the Unix epoch; no secret).
 *
 * **The next `up`.** `diff` sees the marker and answers a replacement (the changed and replaced
 * property is the marker; not delete-before-replace), so the engine creates the replacement, then
 * deletes the placeholder. `create` does not get the old state, so `diff` hands it over in this
 * process ({@link pendingDiff} records it, keyed by the new inputs; {@link timedCreate} takes
 * it): both doors run a resource's `diff` and `create` in one provider process (the native
 * plugin's, or the dynamic provider host's), in that order. Check cannot carry it: it sees the old
 * *inputs*, which hold no marker. The replacement's create then looks, alone among its kind's
 * creates and lookups (claims.ts), for the resources of the kind made since
 * {@link CLOCK_SKEW_MS} before the send, with exactly the values sent, held by no resource of
 * the deployment ({@link adoptPending}). One (or several, no more than this process's pending
 * creates of those values): it adopts one, and sends the program's values with one `PATCH` when
 * they differ from those sent, or hold a write-only secret that cannot be compared. More: it fails
 * with an error naming them, and the placeholder stays for the next `up`. None: it creates anew.
 * A replacement create that times out again keeps the earlier send time in its own marker. Then
 * the placeholder's delete makes no request ({@link removePending}).
 *
 * **`refresh`** keeps a placeholder as it is ({@link readPending}: no request); the next `up`
 * resolves it. **`destroy`** (or removing the resource from the program) runs the same lookup in
 * the placeholder's delete and deletes the one resource it finds (none: nothing to delete;
 * several: an error naming them, to delete by hand before running `destroy` again), so no
 * resource the timed-out create made is left behind silently. With `deleteBeforeReplace` the
 * engine deletes the placeholder first: that delete takes the resource off the service and the
 * replacement creates a new one (one resource, a new ID).
 *
 * Abuse reports cannot be listed, so a timed-out report is not kept this way: its error says it
 * may still be filed (timeouts.ts). The limits of ambiguous.ts apply: an identical resource made by
 * another deployment since the send is indistinguishable from the timed-out create's.
 *
 * @packageDocumentation
 */
import { randomUUID } from "node:crypto";
import { CLOCK_SKEW_MS, LISTINGS, withArticle } from "./ambiguous";
import { processClaims, type ClaimRegistry } from "./claims";
import { listSince } from "./listing";
import type { ServiceDiffResult } from "./resourceOptions";
import { OperationTimeoutError, timed } from "./timeouts";
import { warn } from "./runtime";

/** Plain property values. */
type Props = Record<string, unknown>;

/** The output under which a placeholder's state holds its {@link PendingCreateMarker}. */
export const PENDING_CREATE_OUTPUT = "__pendingCreate";

/** How a placeholder ID starts: `pending-create-<uuid>`. */
export const PLACEHOLDER_PREFIX = "pending-create-";

/** The marker of a pending create, in a placeholder's outputs. */
export interface PendingCreateMarker {
  /** When the create started (before anything was sent), in **milliseconds** since the Unix epoch. */
  sentAtMs: number;
}

/** True when `id` is a placeholder of a pending create (`pending-create-…`), which the service never sees. */
export function isPlaceholderId(id: unknown): id is string {
  return typeof id === "string" && id.startsWith(PLACEHOLDER_PREFIX);
}

/** The marker in `props` (a placeholder's outputs), or `undefined` when there is none. */
export function pendingMarker(props: unknown): PendingCreateMarker | undefined {
  const marker = (props as Props | undefined)?.[PENDING_CREATE_OUTPUT] as Props | undefined;
  const sentAtMs = marker?.sentAtMs;
  return typeof sentAtMs === "number" && Number.isFinite(sentAtMs) ? { sentAtMs } : undefined;
}

/** The values a placeholder's create sent: its outputs without the `__` properties (marker, forwarded options, dynamic provider). */
export function sentValues(props: Props): Props {
  return Object.fromEntries(Object.entries(props).filter(([k]) => !k.startsWith("__")));
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

/** A placeholder whose replacement this process is about to create, as {@link pendingDiff} saw it. */
export interface PendingReplacement {
  /** The placeholder's ID. */
  placeholderId: string;
  /** When the timed-out create started, in **milliseconds** since the Unix epoch. */
  sentAtMs: number;
  /** The values it sent ({@link sentValues} of the placeholder's outputs). */
  sent: Props;
  /** True once a replacement's create has taken it. */
  taken: boolean;
  /** True once that create's lookup is over (adopted, or found none). */
  resolved: boolean;
}

/** JSON with object keys sorted: equal values give equal text whatever their keys' order. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Props).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * This process's pending replacements: by placeholder ID, with the new inputs each was diffed
 * against (the key its replacement's create finds it by). Tests make their own.
 */
export class PendingReplacements {
  private readonly byId = new Map<string, { key: string; pending: PendingReplacement }>();

  /** Records (once per placeholder) that `placeholderId`, sent at `sentAtMs` with `sent`, is replaced by a create of `news`. */
  note(placeholderId: string, sentAtMs: number, sent: Props, news: unknown): void {
    if (this.byId.has(placeholderId)) return;
    const pending = { placeholderId, sentAtMs, sent, taken: false, resolved: false };
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

  /** True when a replacement's create has taken `placeholderId`: its delete has nothing to do. */
  isTaken(placeholderId: string): boolean {
    return this.byId.get(placeholderId)?.pending.taken === true;
  }

  /** How many pending replacements whose lookup is not over sent values `sameValues` accepts. */
  unresolved(sameValues: (sent: Props) => boolean): number {
    return [...this.byId.values()].filter((e) => !e.pending.resolved && sameValues(e.pending.sent)).length;
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
  pending.note(id, marker.sentAtMs, sentValues(olds), news);
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
 * which `fn` calls before each create request it sends. A timeout after a create request was
 * sent (or while the service may still make the resource, as `withTimeout` tells) fails with a
 * {@link PendingCreateError}: a new placeholder whose marker holds the earlier send time (the
 * pending replacement's, else this create's start).
 * @param timeoutMs - the native door's create timeout in **milliseconds** (the dynamic door's
 *   travels in `news`).
 * @throws PendingCreateError as above; any other error of `fn` or of the timeout as it is.
 */
export async function timedCreate<R>(
  what: string,
  news: Props,
  timeoutMs: number | undefined,
  fn: (pending: PendingReplacement | undefined, sending: () => void) => Promise<R>,
  pendingReplacements: PendingReplacements = processPending,
  now: () => number = Date.now,
): Promise<R> {
  const pending = pendingReplacements.take(news);
  const sentAtMs = Math.min(pending?.sentAtMs ?? Infinity, now());
  let sent = false;
  try {
    return await timed("create", what, news, timeoutMs, () =>
      fn(pending, () => {
        sent = true;
      }),
    );
  } catch (err) {
    if (!(err instanceof OperationTimeoutError) || !(sent || err.mayHaveBeenMade)) throw err;
    const id = `${PLACEHOLDER_PREFIX}${randomUUID()}`;
    const message =
      `${err.headline} after its request was sent. The service may still make it: the stack keeps it as ${id} (a placeholder), and the next ` +
      `\`pulumi up\` takes the ${what} the service made (identical values, made since ${new Date(sentAtMs).toISOString()}, ` +
      `held by no other resource) or else creates it, so it is neither lost nor made twice.`;
    const marker: PendingCreateMarker = { sentAtMs };
    throw new PendingCreateError(message, id, { ...news, [PENDING_CREATE_OUTPUT]: marker }, [message], err);
  }
}

/** What the lookups of one kind need: how to list it and compare a live resource with sent values. */
export interface PendingKind<T extends { id: string; createdAt: string }> {
  /** Kind in words, e.g. `event subscription` (also the claims' gate of the kind, as in ambiguous.ts). */
  what: string;
  /** Every resource of the kind, newest first. */
  list(): AsyncIterable<T>;
  /** True when `live` has exactly the values `sent` (inputs). */
  matches(live: T, sent: Props): boolean;
}

/**
 * The kind's resources made since {@link CLOCK_SKEW_MS} before `sentAtMs` with exactly the
 * values `sent`, held by no resource of the deployment, newest first, listed while no other create
 * or lookup of the kind runs (`during` runs inside that, on what was found).
 * @throws Error saying what to look for, when the listing fails {@link LISTINGS} times.
 */
async function lookAlone<T extends { id: string; createdAt: string }, R>(
  kind: PendingKind<T>,
  sentAtMs: number,
  sent: Props,
  registry: ClaimRegistry,
  during: (found: T[]) => R,
): Promise<R> {
  const gate = registry.gate(kind.what);
  const since = sentAtMs - CLOCK_SKEW_MS;
  await gate.enterLookup();
  try {
    const found = await listSince(
      () => kind.list(),
      since,
      (live) => kind.matches(live, sent) && !registry.isClaimed(live.id),
      LISTINGS,
      (err) =>
        new Error(
          `${kind.what}: a create that timed out may have been made, and looking for it failed ${LISTINGS} times ` +
            `(last: ${err instanceof Error ? err.message : String(err)}). Run pulumi up again, or look for ${withArticle(kind.what)} ` +
            `with these values made since ${new Date(since).toISOString()} (service-drift generate lists them).`,
        ),
    );
    return during(found);
  } finally {
    gate.leaveLookup();
  }
}

/** The error when more resources match than pending creates of those values wait: names them. */
function severalError(what: string, found: { id: string }[], sentAtMs: number): Error {
  return new Error(
    `${what}: a create that timed out may have been made, and ${found.length} ${what}s made since ` +
      `${new Date(sentAtMs - CLOCK_SKEW_MS).toISOString()} have exactly its values and are held by no resource of this deployment: ` +
      `${found.map((f) => f.id).join(", ")}. The provider cannot tell which one (if any) it made, so it takes none. ` +
      `Delete the extra ones (or adopt one with adoptId) and run pulumi up again.`,
  );
}

/**
 * The replacement create's lookup for what the timed-out create of `pending` made: adopts (and
 * claims) one resource of the kind with exactly the sent values, made since the send, held by no
 * resource of the deployment, when there is one, or several but no more than this process's
 * pending creates of those values still looking.
 * @returns the adopted resource, or `undefined` when the service holds none (the create goes on).
 * @throws Error naming them when more match; Error saying what to look for when listing failed.
 */
export async function adoptPending<T extends { id: string; createdAt: string }>(
  kind: PendingKind<T>,
  pending: PendingReplacement,
  registry: ClaimRegistry = processClaims,
  pendingReplacements: PendingReplacements = processPending,
): Promise<T | undefined> {
  const adopted = await lookAlone(kind, pending.sentAtMs, pending.sent, registry, (found) => {
    if (found.length === 0) return undefined;
    const twins = pendingReplacements.unresolved((sent) => kind.matches(found[0], sent));
    if (found.length > Math.max(twins, 1)) throw severalError(kind.what, found, pending.sentAtMs);
    // Claimed before the lookup lets the kind go on.
    return found.find((f) => registry.tryClaim(f.id));
  }).finally(() => {
    pending.resolved = true;
  });
  if (adopted) {
    await warn(
      `${kind.what}: the create of ${pending.placeholderId} timed out earlier; the service made ${adopted.id} with its values ` +
        `(made since it was sent, held by no other resource of this deployment): adopted it`,
    );
  }
  return adopted;
}

/**
 * `delete` of a placeholder: none when its replacement's create took it in this process (the
 * resource, if any, is that create's now). Otherwise (`destroy`, or the resource left the
 * program) the same lookup as {@link adoptPending}: the one resource found is deleted with
 * `remove`; none, nothing to do.
 * @returns true when `id` is a placeholder (handled here), false for a real ID (the kind deletes it).
 * @throws Error naming them when several resources match: delete them by hand (or adopt one) and
 *   run `destroy` again.
 */
export async function removePending<T extends { id: string; createdAt: string }>(
  kind: PendingKind<T>,
  id: string,
  props: unknown,
  remove: (live: T) => Promise<void>,
  registry: ClaimRegistry = processClaims,
  pendingReplacements: PendingReplacements = processPending,
): Promise<boolean> {
  if (!isPlaceholderId(id)) return false;
  const marker = pendingMarker(props);
  if (!marker || pendingReplacements.isTaken(id)) return true;
  const found = await lookAlone(kind, marker.sentAtMs, sentValues(props as Props), registry, (f) => {
    if (f.length > 1)
      throw new Error(
        `${kind.what} ${id} (the placeholder of a create that timed out): ${f.length} ${kind.what}s with its values, made ` +
          `since it was sent, are held by no resource of this deployment: ${f.map((x) => x.id).join(", ")}. The provider ` +
          `cannot tell which one (if any) that create made, so it deletes none. Delete the one it made (service-drift generate ` +
          `lists them) and run pulumi destroy (or up) again.`,
      );
    if (f.length === 1) registry.claim(f[0].id);
    return f;
  });
  if (found.length === 1) {
    await remove(found[0]);
    await warn(
      `${kind.what} ${id} (the placeholder of a create that timed out): the service had made ${found[0].id} with its values; deleted it`,
    );
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

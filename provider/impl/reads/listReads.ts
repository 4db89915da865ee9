/**
 * Reads that scale: when an operation reads many resources of one kind (`pulumi refresh`,
 * `pulumi up --refresh`, `pulumi preview --refresh`, `service-drift`'s preview-only refresh), the
 * provider answers them from the kind's list endpoint, page by page ({@link PAGE_LIMIT_MAX}
 * resources a request), instead of one `GET` each; small operations keep their single `GET`s.
 *
 * **How a read is answered** ({@link readThroughListing}, called by `readListed` of listedKind.ts):
 * 1. Reads of one kind that arrive together are coalesced: a read that finds no listing of its
 *    kind waits for others (until none has come for {@link COALESCE_WINDOW_MS}). When {@link LIST_FROM_READS} reads or more
 *    of the kind have been seen in the last {@link LISTING_LIFETIME_MS} (the ones waiting
 *    included), a listing starts; otherwise each read sends its own `GET`, as before.
 * 2. A listing fetches pages on demand, newest first, one request in flight at a time: a read
 *    whose resource is not in the pages fetched so far waits for the next page. It never sends
 *    more page requests than the reads of its kind seen within {@link LISTING_LIFETIME_MS} (or,
 *    for `service-drift`, than the reads it announced: {@link EXPECTED_READS_ENV}), so it cannot
 *    list a 10,000-resource account for a few reads.
 * 3. A resource the listing does not hold (the listing ended, its page budget is spent, or it has
 *    passed the resource's `createdAt` without seeing it) is re-checked with a single `GET`, so a
 *    resource deleted outside Pulumi is reported gone only on the service's 404, and the key-stamp
 *    rule of keyStamp.ts (`getUnlessGone` in runtime.ts) applies exactly as before.
 *
 * List items are parsed by the client with the same schema as a `GET`'s answer (the contract's
 * `pageOf(key, Resource)`), so `outputs(live, props)` of each kind keeps write-only secrets as
 * before; a read gets its own copy of the item.
 *
 * **No stale answer.** A listing serves only the current burst of reads of this process, in
 * memory: it is dropped {@link LISTING_LIFETIME_MS} after its first page was requested, and at
 * the start and the end of every create, update or delete this process makes of any listed kind
 * ({@link whileWriting}); reads made while a write is in flight send single `GET`s. A new
 * operation (`pulumi` command) starts new provider processes, so it never sees an earlier
 * operation's listing.
 *
 * **Sharing.** The listings live in this module, keyed by the client (one per API key and base
 * URL: `getClient` of runtime.ts) and the kind. The native door runs one plugin process per
 * provider resource, so the reads of that provider's resources share its listings; the dynamic
 * door's provider process (`pulumi-resource-pulumi-nodejs`) is one per operation, shared by every
 * dynamic resource of the stack, and the serialized providers all `require` this module through
 * `pulumi-service/provider/impl/<kind>`, so they share one set of listings (Node's module cache).
 *
 * **Requests** (docs/performance.md § Requests per operation gives the measured figures): k reads
 * of one kind whose resources are among the newest `100·p` of the account cost `p` list requests
 * (plus one `GET` per resource deleted out of band) instead of k `GET`s; at worst (every resource
 * read is older than `100·k` others of the account) a listing sends k page requests that answer
 * nothing, then k `GET`s: 2·k requests.
 *
 * @packageDocumentation
 */
import { PAGE_LIMIT_MAX } from "service-contract";
import type { Page } from "../../../client/collections";
import { getClient } from "../process/client";

/**
 * How long a listing answers reads: **10 000 ms** (10 s) after its first page was requested.
 * A refresh that reads with single `GET`s already reports each resource as of its own `GET`,
 * spread over the whole operation: the reads of a 1,000-resource refresh span about 3 to 6 s on
 * the project's 2-core machine (bench/results/2026-11-24-scale-file.json: 3.9 to 6.9 s for the
 * whole `pulumi refresh`), and twice that when the machine is busy. 10 s keeps a listed answer no
 * older than about that spread, while the reads of such a refresh (answered from memory in about
 * a millisecond each) mostly fall within one listing: each new listing starts again from the
 * newest page. A write of this process drops it at once ({@link whileWriting}).
 */
export const LISTING_LIFETIME_MS = 10_000;

/**
 * How long, in **milliseconds** (20), reads of a kind that find no listing wait for other reads
 * of the kind before each decides between a listing and its own `GET`: the window closes once no
 * read of the kind has arrived for this long (at most {@link COALESCE_MAX_MS} after it opened),
 * or as soon as a listing starts. The engine sends a refresh's reads together (`--parallel`, by
 * default 4 × the machine's CPUs), and they reach the provider within a few milliseconds of each
 * other, more on a busy machine. It delays only the first reads of a burst.
 */
export const COALESCE_WINDOW_MS = 20;

/** The longest a coalescing window stays open (**milliseconds**, 100): see {@link COALESCE_WINDOW_MS}. */
export const COALESCE_MAX_MS = 100;

/**
 * The reads of one kind (**4**), seen within {@link LISTING_LIFETIME_MS} in this process, from
 * which a listing starts. The crossover: one list request answers up to {@link PAGE_LIMIT_MAX}
 * reads of the newest resources, so from 2 reads a listing costs fewer requests than `GET`s when
 * the resources are among the account's newest 100; at worst it costs 2·k (see the module's
 * comment). From 4 reads, the typical case saves at least 3 requests of 4, and 4 is the engine's
 * default parallelism on one CPU, so a refresh's first batch of reads starts the listing on any
 * machine. Below it (an import, a `get` in a program, a refresh of 1 to 3 resources of the kind),
 * single `GET`s.
 */
export const LIST_FROM_READS = 4;

/**
 * The environment variable through which an operation announces how many resources of each kind
 * it will read, as JSON: `{ "<ID prefix>": count }` (e.g. `{"sub_":1000,"ed_":1}`).
 * `service-drift` sets it for its preview-only refresh (it knows every ID from the state): a kind
 * announced with {@link LIST_FROM_READS} reads or more is listed from its first read, with no
 * wait, and its listing may send as many page requests as reads announced. Anything else in it
 * is ignored (the reads then behave as without it).
 */
// Stryker disable next-line StringLiteral: read once, when the module loads, where Stryker's run-time switch cannot reach; made by hand, listReads.test.ts's SERVICE_EXPECTED_READS test fails
export const EXPECTED_READS_ENV = "SERVICE_EXPECTED_READS";

/** A kind whose reads a listing may answer: what {@link readThroughListing} needs of it. */
export interface ListableKind<T extends { id: string; createdAt: string }> {
  /** The kind in words (`event subscription`): the key of its listings. */
  what: string;
  /** The prefix of its IDs (`sub_`): the key of {@link EXPECTED_READS_ENV}. */
  idPrefix: string;
  /** The client's pages of the kind (`client.<kind>.pages({ limit })`), newest first. */
  pages(limit: number): AsyncIterable<Page<T>>;
  /** The client's `get` of `id`. */
  get(id: string): Promise<T>;
}

/** One listing of a kind: the pages fetched so far and how to fetch the next. */
interface Listing<T> {
  /** {@link generation} when it started: a write since makes it unusable. */
  generation: number;
  /** When its first page was requested, **milliseconds** since the Unix epoch. */
  startedAtMs: number;
  /** The resources of the pages fetched, by ID. */
  found: Map<string, T>;
  /** The `createdAt` (ms) of the oldest resource fetched so far; `Infinity` before the first page. */
  oldestMs: number;
  /** The pages still to fetch; `undefined` once the last page has been read. */
  cursor: AsyncIterator<Page<T>> | undefined;
  /** The page request in flight, if any. */
  next: Promise<void> | undefined;
  /** Page requests sent. */
  pages: number;
  /** Reads that asked this listing. */
  reads: number;
  /** The most page requests it may send regardless of {@link Listing.reads} (announced reads, else 0). */
  announced: number;
  /** True when a page request failed: the listing answers nothing more. */
  failed: boolean;
}

/** The reads of one kind through one client. */
interface KindReads<T> {
  /** When each read of the last {@link LISTING_LIFETIME_MS} arrived (ms). */
  seen: number[];
  listing: Listing<T> | undefined;
  /** The coalescing window in progress, and how to close it at once. */
  window: { closed: Promise<void>; close: () => void } | undefined;
  /** When a listing of the kind last failed (ms): none is started again for {@link LISTING_LIFETIME_MS}. */
  failedAtMs: number;
}

/** Counts the writes of this process: a listing is usable only within one generation. */
let generation = 0;
/** Writes in flight in this process. */
let writesInFlight = 0;
/** The reads of each kind, by client (a new client, e.g. another API key, starts afresh). */
let byClient = new WeakMap<object, Map<string, KindReads<unknown>>>();

/**
 * Runs `write` (a create, update or delete of a listed kind) as a write of this process: every
 * listing is dropped when it starts and when it ends, and reads made meanwhile send single `GET`s.
 * @returns what `write` returns. @throws what `write` throws.
 */
export async function whileWriting<R>(write: () => Promise<R>): Promise<R> {
  generation++;
  writesInFlight++;
  try {
    return await write();
  } finally {
    writesInFlight--;
    generation++;
  }
}

/** The reads of `kind` through the current client. @throws what `getClient` throws. */
function readsOf<T extends { id: string; createdAt: string }>(kind: ListableKind<T>): KindReads<T> {
  const client = getClient();
  let kinds = byClient.get(client);
  if (!kinds) byClient.set(client, (kinds = new Map()));
  let reads = kinds.get(kind.what) as KindReads<T> | undefined;
  if (!reads) {
    reads = { seen: [], listing: undefined, window: undefined, failedAtMs: -Infinity };
    kinds.set(kind.what, reads as KindReads<unknown>);
  }
  return reads;
}

/** The reads of the kind with `idPrefix` that {@link EXPECTED_READS_ENV} announces; 0 when none. */
export function announcedReads(idPrefix: string, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[EXPECTED_READS_ENV];
  if (!raw) return 0;
  try {
    const count = (JSON.parse(raw) as Record<string, unknown> | null)?.[idPrefix];
    return typeof count === "number" && Number.isInteger(count) ? Math.max(count, 0) : 0;
  } catch {
    return 0;
  }
}

/** The listing of `reads` when it may still answer at `now` (ms): same generation, not expired, not failed. */
function usable<T>(reads: KindReads<T>, now: number): Listing<T> | undefined {
  const l = reads.listing;
  if (!l || l.failed || l.generation !== generation || now - l.startedAtMs > LISTING_LIFETIME_MS)
    return undefined;
  return l;
}

/** A new listing of `kind` (no request yet: pages are fetched as reads need them). */
function startListing<T extends { id: string; createdAt: string }>(
  kind: ListableKind<T>,
  now: number,
  announced: number,
): Listing<T> {
  return {
    generation,
    startedAtMs: now,
    found: new Map(),
    oldestMs: Infinity,
    cursor: kind.pages(PAGE_LIMIT_MAX)[Symbol.asyncIterator](),
    next: undefined,
    pages: 0,
    reads: 0,
    announced,
    failed: false,
  };
}

/** Fetches the next page of `listing` into it; a failure, or a write meanwhile, makes it unusable. */
async function fetchPage<T extends { id: string; createdAt: string }>(
  listing: Listing<T>,
  reads: KindReads<T>,
): Promise<void> {
  const cursor = listing.cursor!;
  listing.pages++;
  try {
    const page = await cursor.next();
    if (page.done) {
      listing.cursor = undefined;
      return;
    }
    for (const item of page.value.items) {
      listing.found.set(item.id, item);
      listing.oldestMs = Math.min(listing.oldestMs, Date.parse(item.createdAt));
    }
    if (page.value.nextPageUri === null) listing.cursor = undefined;
  } catch {
    // The reads fall back to their own GETs, which report the service's error as before.
    listing.failed = true;
    reads.failedAtMs = Date.now();
  }
}

/**
 * The live resource `id` of `kind` for a `read`: from a listing of the kind when enough reads of
 * it come together (see the module's comment), else, and whenever the listing does not hold it,
 * from `kind.get(id)`.
 * @param createdAtMs - the resource's `createdAt` in the state (**milliseconds** since the Unix
 *   epoch), when known: a listing that has passed it without the resource stops looking for it.
 * @returns the resource, as `kind.get(id)` returns it (a copy of the list item).
 * @throws what `kind.get(id)` throws (`NotFoundError` for a resource the service does not hold,
 *   which `getUnlessGone` of runtime.ts turns into "gone" or the key-stamp error); what
 *   `getClient` throws.
 */
export async function readThroughListing<T extends { id: string; createdAt: string }>(
  kind: ListableKind<T>,
  id: string,
  createdAtMs?: number,
): Promise<T> {
  const reads = readsOf(kind);
  const arrived = Date.now();
  reads.seen = reads.seen.filter((t) => arrived - t <= LISTING_LIFETIME_MS);
  reads.seen.push(arrived);
  if (writesInFlight > 0) return kind.get(id);
  const announced = announcedReads(kind.idPrefix);
  let listing = usable(reads, arrived);
  if (!listing && announced < LIST_FROM_READS && reads.seen.length < LIST_FROM_READS) {
    await coalescing(reads);
  }
  const now = Date.now();
  listing = usable(reads, now);
  if (!listing) {
    const recent = reads.seen.filter((t) => now - t <= LISTING_LIFETIME_MS).length;
    const wanted = recent >= LIST_FROM_READS || announced >= LIST_FROM_READS;
    if (!wanted || writesInFlight > 0 || now - reads.failedAtMs <= LISTING_LIFETIME_MS) return kind.get(id);
    listing = reads.listing = startListing(kind, now, announced);
    reads.window?.close();
  }
  return fromListing(kind, reads, listing, id, createdAtMs);
}

/**
 * The coalescing window of `reads` (opened by the first read that waits): it closes once no read
 * of the kind has arrived for {@link COALESCE_WINDOW_MS}, {@link COALESCE_MAX_MS} after it
 * opened, or when a listing starts.
 */
function coalescing<T>(reads: KindReads<T>): Promise<void> {
  if (!reads.window) {
    const opened = Date.now();
    let close!: () => void;
    const closed = new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      close = () => {
        // Called once per window, while it is the current one (its timer is cleared here).
        clearTimeout(timer);
        reads.window = undefined;
        resolve();
      };
      const tick = () => {
        const now = Date.now();
        const quiet = now - reads.seen[reads.seen.length - 1];
        if (quiet >= COALESCE_WINDOW_MS || now - opened >= COALESCE_MAX_MS) close();
        else timer = setTimeout(tick, COALESCE_WINDOW_MS - quiet);
      };
      timer = setTimeout(tick, COALESCE_WINDOW_MS);
    });
    reads.window = { closed, close };
  }
  return reads.window.closed;
}

/** `id` from `listing`, fetching pages while its budget allows; else `kind.get(id)`. */
async function fromListing<T extends { id: string; createdAt: string }>(
  kind: ListableKind<T>,
  reads: KindReads<T>,
  listing: Listing<T>,
  id: string,
  createdAtMs: number | undefined,
): Promise<T> {
  listing.reads++;
  for (;;) {
    const hit = listing.found.get(id);
    if (hit) return structuredClone(hit);
    if (usable(reads, Date.now()) !== listing || !listing.cursor) return kind.get(id);
    // Newest first: once past the resource's creation without it, the listing does not hold it.
    if (createdAtMs !== undefined && listing.oldestMs < createdAtMs) return kind.get(id);
    if (!listing.next) {
      // The budget: the reads of the kind seen within the lifetime (those that asked an earlier,
      // expired listing of the burst count too), or the reads announced.
      if (listing.pages >= Math.max(listing.reads, reads.seen.length, listing.announced)) return kind.get(id);
      listing.next = fetchPage(listing, reads).finally(() => {
        listing.next = undefined;
      });
    }
    await listing.next;
  }
}

/** Drops every listing of this process and forgets the reads seen (tests start from a clean state with it). */
export function forgetListings(): void {
  // Stryker disable next-line UpdateOperator: equivalent: byClient is replaced below, so no later read reaches an older listing; any change of generation does the rest
  generation++;
  byClient = new WeakMap();
}

/**
 * Claims: the IDs one deployment's resources hold, and one readers-writer gate per kind of
 * resource that lets creates be sent side by side while a lost create's lookup runs alone. The
 * rules they serve are in ambiguous.ts (see its module comment). Within a process they are held
 * in memory; shared with a {@link ClaimsFolder} (the native plugin does, see
 * {@link ClaimRegistry.share}), they hold across every provider process of the deployment.
 *
 * @packageDocumentation
 */
import type { ClaimsFolder } from "./claimsFolder";

/** A create of the kind whose answer was lost, waiting to look (see ambiguous.ts). */
export interface Waiter {
  /** True when `live` has exactly the values the create sent. */
  matches(live: unknown): boolean;
  /** The whole request, write-only secrets included (`CreateOnceSpec.fingerprint`). */
  fingerprint?: string;
  /** The values `matches` compares, in one canonical form (`CreateOnceSpec.matchKey`). */
  matchKey?: string;
}

/** A waiting create that looks like a lost create's twin: the same values, the same request or not. */
export interface Twin {
  /** True when its whole request equals the lost create's (write-only secrets included). */
  sameRequest: boolean;
}

/**
 * The creates of one kind waiting to look: this process's, and, when the registry is shared,
 * those of the deployment's other processes (as hashes: see claimsFolder.ts).
 */
class WaitingCreates {
  private readonly mine = new Map<Waiter, string | undefined>();

  constructor(
    private readonly kind: string,
    private readonly folder: () => ClaimsFolder | undefined,
  ) {}

  /** `w` waits to look (again: counted once). */
  add(w: Waiter): void {
    if (this.mine.has(w)) return;
    const folder = this.folder();
    this.mine.set(
      w,
      folder?.addWaiting(this.kind, {
        matchKey: w.matchKey === undefined ? undefined : folder.hash(w.matchKey),
        fingerprint: folder.hash(w.fingerprint ?? ""),
      }),
    );
  }

  /** `w` no longer waits (adopted, made, or failed). */
  delete(w: Waiter): void {
    if (!this.mine.has(w)) return;
    const token = this.mine.get(w);
    this.mine.delete(w);
    if (token !== undefined) this.folder()?.removeWaiting(token);
  }

  /** True when `w` waits. */
  has(w: Waiter): boolean {
    return this.mine.has(w);
  }

  /**
   * The waiting creates, `me` included, with the values of `live` (a resource `me` matches): this
   * process's by their `matches`, other processes' by their `matchKey` equal to `me`'s.
   */
  twinsOf(me: Waiter, live: unknown): Twin[] {
    const twins: Twin[] = [...this.mine.keys()]
      .filter((w) => w.matches(live))
      .map((w) => ({ sameRequest: w.fingerprint === me.fingerprint }));
    const folder = this.folder();
    if (folder && me.matchKey !== undefined) {
      const matchKey = folder.hash(me.matchKey);
      const fingerprint = folder.hash(me.fingerprint ?? "");
      for (const w of folder.othersWaiting(this.kind)) {
        if (w.matchKey === matchKey) twins.push({ sameRequest: w.fingerprint === fingerprint });
      }
    }
    return twins;
  }
}

/**
 * One kind's creates and lookups in a provider process, as a readers-writer lock: creates are
 * sent side by side (readers), a lookup runs alone (writer) once every create in flight has
 * settled, and while a lookup waits no new create is sent, so lookups are never starved.
 */
class KindGate {
  private sending = 0;
  private looking = false;
  private readonly lookups: (() => void)[] = [];
  private readonly sends: (() => void)[] = [];
  /** Creates of this kind whose answer was lost and that have not yet resolved (adopted, made or failed). */
  readonly waiting: WaitingCreates;

  constructor(
    private readonly kind: string,
    private readonly folder: () => ClaimsFolder | undefined,
  ) {
    this.waiting = new WaitingCreates(kind, folder);
  }

  /**
   * Resolves when a create may be sent (and, when shared, no lookup of the kind runs in another
   * process of the deployment); pair with {@link leaveSend}.
   */
  async enterSend(): Promise<void> {
    if (!this.looking && this.lookups.length === 0) this.sending++;
    else await new Promise<void>((resolve) => this.sends.push(resolve));
    await this.folder()?.enterSend(this.kind);
  }

  /** A create's request has settled (answered or failed). */
  leaveSend(): void {
    this.folder()?.leaveSend(this.kind);
    this.sending--;
    this.next();
  }

  /**
   * Resolves when no create of the kind is in flight and no other lookup runs (when shared: in
   * any process of the deployment); pair with {@link leaveLookup}.
   */
  async enterLookup(): Promise<void> {
    if (!this.looking && this.sending === 0) this.looking = true;
    else await new Promise<void>((resolve) => this.lookups.push(resolve));
    await this.folder()?.enterLookup(this.kind);
  }

  /** The lookup is done and has claimed what it adopts. */
  leaveLookup(): void {
    this.folder()?.leaveLookup(this.kind);
    this.looking = false;
    this.next();
  }

  private next(): void {
    if (this.looking) return;
    if (this.lookups.length > 0) {
      if (this.sending === 0) {
        this.looking = true;
        this.lookups.shift()!();
      }
      return;
    }
    while (this.sends.length > 0) {
      this.sending++;
      this.sends.shift()!();
    }
  }
}

/**
 * The IDs held by the resources of one deployment, and the coordination of its creates, kind by
 * kind. A provider process serves the resources of one deployment that its provider owns, so one
 * registry per process ({@link processClaims}) is what {@link createOnce} and the providers'
 * `diff`, `read`, `update` and `delete` use; the native plugin shares it with the deployment's
 * other provider processes ({@link ClaimRegistry.share}). Tests make their own.
 */
export class ClaimRegistry {
  private readonly ids = new Set<string>();
  private readonly gates = new Map<string, KindGate>();
  private readonly loads = new Map<string, Promise<unknown[]>>();
  private folder: ClaimsFolder | undefined;

  /**
   * Shares this registry with the other provider processes of the deployment through `folder`:
   * IDs claimed here or there are held for both, and each kind's lookup runs alone across them.
   * Call before any create; the IDs claimed so far are written to the folder.
   */
  share(folder: ClaimsFolder): void {
    this.folder = folder;
    for (const id of this.ids) folder.tryClaim(id);
  }

  /**
   * Records that `id` belongs to a resource of this deployment (created, adopted, or passed in by
   * the engine), so that no lookup adopts it for another resource. Empty IDs are ignored.
   */
  claim(id: string): void {
    if (typeof id !== "string" || id === "" || this.ids.has(id)) return;
    this.ids.add(id);
    this.folder?.hold(id);
  }

  /**
   * Claims `id` unless a resource of the deployment holds it already, in one step (across the
   * deployment's processes when shared).
   * @returns true when the caller now holds `id`, false when another resource did already.
   */
  tryClaim(id: string): boolean {
    if (this.ids.has(id)) return false;
    if (this.folder && !this.folder.tryClaim(id)) return false;
    this.ids.add(id);
    return true;
  }

  /** True when `id` was claimed in this registry (or, when shared, by another process of the deployment). */
  isClaimed(id: string): boolean {
    return this.ids.has(id) || (this.folder?.isClaimed(id) ?? false);
  }

  /**
   * Gives `id` back: a create that claimed it and then failed (before the engine recorded it)
   * leaves it for another create of the deployment, or the next `up`, to take.
   */
  release(id: string): void {
    this.ids.delete(id);
    this.folder?.release(id);
  }

  /**
   * The result of `load`, loaded once per `key` in this registry (a failed load is forgotten, so
   * the next caller loads again). Recovery adoption lists each kind once this way.
   */
  once<T>(key: string, load: () => Promise<T[]>): Promise<T[]> {
    let p = this.loads.get(key) as Promise<T[]> | undefined;
    if (!p) {
      p = load();
      this.loads.set(key, p);
      p.catch(() => this.loads.delete(key));
    }
    return p;
  }

  /** The gate of one kind of resource (named as a create names its kind, e.g. `event subscription`). */
  gate(kind: string): KindGate {
    let g = this.gates.get(kind);
    if (!g) this.gates.set(kind, (g = new KindGate(kind, () => this.folder)));
    return g;
  }
}

/** The registry of this provider process: every resource of the deployment it serves. */
export const processClaims = new ClaimRegistry();

/**
 * Records that `id` belongs to a resource of this deployment (created, adopted, or passed in by
 * the engine to `diff`, `read`, `update` or `delete`), so that a lost create's lookup never
 * adopts it for another resource.
 */
export function claimId(id: string): void {
  processClaims.claim(id);
}

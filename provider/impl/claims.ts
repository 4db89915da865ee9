/**
 * Claims: the IDs one deployment's resources hold, and one readers-writer gate per kind of
 * resource that lets creates be sent side by side while a lost create's lookup runs alone. The
 * rules they serve are in ambiguous.ts (see its module comment).
 *
 * @packageDocumentation
 */

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
  readonly waiting = new Set<{ matches(live: unknown): boolean; fingerprint?: string }>();

  /** Resolves when a create may be sent; pair with {@link leaveSend}. */
  enterSend(): Promise<void> {
    if (!this.looking && this.lookups.length === 0) {
      this.sending++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.sends.push(resolve));
  }

  /** A create's request has settled (answered or failed). */
  leaveSend(): void {
    this.sending--;
    this.next();
  }

  /** Resolves when no create of the kind is in flight and no other lookup runs; pair with {@link leaveLookup}. */
  enterLookup(): Promise<void> {
    if (!this.looking && this.sending === 0) {
      this.looking = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.lookups.push(resolve));
  }

  /** The lookup is done and has claimed what it adopts. */
  leaveLookup(): void {
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
 * kind. A provider process serves every resource of one deployment, so one registry per process
 * ({@link processClaims}) is what {@link createOnce} and the providers' `diff`, `read`, `update`
 * and `delete` use; tests make their own.
 */
export class ClaimRegistry {
  private readonly ids = new Set<string>();
  private readonly gates = new Map<string, KindGate>();
  private readonly loads = new Map<string, Promise<unknown[]>>();

  /**
   * Records that `id` belongs to a resource of this deployment (created, adopted, or passed in by
   * the engine), so that no lookup adopts it for another resource. Empty IDs are ignored.
   */
  claim(id: string): void {
    if (typeof id === "string" && id !== "") this.ids.add(id);
  }

  /**
   * Claims `id` unless it is held already, in one step.
   * @returns true when the caller now holds `id`, false when another resource did already.
   */
  tryClaim(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.claim(id);
    return true;
  }

  /** True when `id` was claimed in this registry. */
  isClaimed(id: string): boolean {
    return this.ids.has(id);
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
    if (!g) this.gates.set(kind, (g = new KindGate()));
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

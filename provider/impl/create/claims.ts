/**
 * Claims: the IDs one deployment's resources hold, and one readers-writer gate per kind of
 * resource that lets creates be sent side by side while a lost create's lookup runs alone. The
 * rules they serve are in createOnce.ts (see its module comment). Within a process they are held
 * in memory; shared with a {@link ClaimsFolder} (the native plugin does, see
 * {@link ClaimRegistry.share}), they hold across every provider process of the deployment.
 *
 * **The folder never fails a create.** The process's own claims come first: when the shared
 * folder fails (a full disk, the folder removed, a permission), every call goes on with them
 * alone and the registry warns ({@link ClaimRegistry.onWarning}) naming the ID or kind and the
 * cause. So a resource the service has made is always held by the create that made it; what is
 * lost is only the other processes' view of it, which the warning says. The one error the folder
 * passes on is a wait on another process's lock that reached its bound
 * (`ClaimsLockTimeoutError`, folderLocks.ts), thrown before a create is sent or a lookup runs.
 *
 * @packageDocumentation
 */
import type { ClaimsFolder } from "./claimsFolder";
import { KindGate, type Shared } from "./kindGate";
import { describe } from "./privateFiles";

export type { Twin, Waiter } from "./createOnceSpec";

/** Where a registry's warnings go: one message (no `warning:` prefix) per call. */
export type WarningSink = (message: string) => void;

/** The default {@link WarningSink}: one `warning: …` line on stderr. */
function toStderr(message: string): void {
  process.stderr.write(`warning: ${message}\n`);
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
  private sink: WarningSink = toStderr;
  /** The warnings given so far: each is given once. */
  private readonly warned = new Set<string>();
  private readonly shared: Shared = {
    folder: () => this.folder,
    attempt: (op, fallback, problem) => this.attempt(op, fallback, problem),
    warn: (message) => this.warn(message),
  };

  /**
   * Shares this registry with the other provider processes of the deployment through `folder`:
   * IDs claimed here or there are held for both, and each kind's lookup runs alone across them.
   * Call before any create; the IDs claimed so far are written to the folder (one that cannot be
   * is warned about and stays this process's). Never throws.
   */
  share(folder: ClaimsFolder): void {
    this.folder = folder;
    for (const id of this.ids) this.tryClaimInFolder(id);
  }

  /**
   * Sends this registry's warnings to `sink` from now on (default: a `warning: …` line on
   * stderr); the native plugin sends them to Pulumi's log, shown by `pulumi up`. A warning is
   * given once per registry, whatever the sink.
   */
  onWarning(sink: WarningSink): void {
    this.sink = sink;
  }

  /** Gives `message` to the warning sink, once (a repeat is dropped). Never throws, whatever the sink does. */
  warn(message: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    try {
      this.sink(message);
    } catch {
      // the note is lost, never the operation it describes
    }
  }

  /** `op` on the shared folder, or `fallback` when there is none or it throws (then warned: see {@link Shared.attempt}). */
  private attempt<T>(
    op: (f: ClaimsFolder) => T,
    fallback: T,
    problem: (where: string, cause: string) => string,
  ): T {
    const folder = this.folder;
    if (!folder) return fallback;
    try {
      return op(folder);
    } catch (err) {
      this.warn(problem(`claims folder ${folder.dir}`, describe(err)));
      return fallback;
    }
  }

  /**
   * `id` claimed in the shared folder: false when another process holds it; true when this one
   * does, or when the folder failed (the ID then stays this process's, and a warning names it).
   */
  private tryClaimInFolder(id: string): boolean {
    return this.attempt(
      (folder) => folder.tryClaim(id),
      true,
      (where, cause) =>
        `${where}: could not record that this deployment holds ${id} (${cause}). ${id} is kept in this process's ` +
        `claims, so its resource keeps it, but the deployment's other provider processes (explicit providers) do ` +
        `not see the claim: a lost create's lookup in one of them could adopt ${id}. Check the folder (ls -ld '${this.folder?.dir}'; df).`,
    );
  }

  /**
   * Records that `id` belongs to a resource of this deployment (created, adopted, or passed in by
   * the engine), so that no lookup adopts it for another resource. Empty IDs are ignored. A
   * shared folder that cannot record it is warned about (naming `id`); the claim stands here.
   */
  claim(id: string): void {
    if (typeof id !== "string" || id === "" || this.ids.has(id)) return;
    this.ids.add(id);
    this.attempt(
      (folder) => folder.hold(id),
      undefined,
      (where, cause) =>
        `${where}: could not record that this deployment holds ${id} (${cause}). It is kept in this process's claims; ` +
        `the deployment's other provider processes do not see it, so a lost create's lookup in one of them could adopt ${id}.`,
    );
  }

  /**
   * Claims `id` unless a resource of the deployment holds it already, in one step (across the
   * deployment's processes when shared). A shared folder that fails never makes this false: the
   * ID is kept in this process's claims and a warning names it and the cause.
   * @returns true when the caller now holds `id`, false when another resource did already.
   */
  tryClaim(id: string): boolean {
    if (this.ids.has(id)) return false;
    if (!this.tryClaimInFolder(id)) return false;
    this.ids.add(id);
    return true;
  }

  /**
   * True when `id` was claimed in this registry (or, when shared, by another process of the
   * deployment; a folder that cannot be read is warned about and this process's claims answer).
   */
  isClaimed(id: string): boolean {
    if (this.ids.has(id)) return true;
    return this.attempt(
      (folder) => folder.isClaimed(id),
      false,
      (where, cause) =>
        `${where}: could not read whether another provider process of the deployment holds ${id} (${cause}); ` +
        `only this process's claims were asked.`,
    );
  }

  /**
   * Gives `id` back: a create that claimed it and then failed (before the engine recorded it)
   * leaves it for another create of the deployment, or the next `up`, to take. A shared folder
   * that cannot give it back is warned about (naming `id`): there it stays held until the
   * deployment ends.
   */
  release(id: string): void {
    this.ids.delete(id);
    this.attempt(
      (folder) => folder.release(id),
      undefined,
      (where, cause) =>
        `${where}: could not give back ${id} (${cause}); the deployment's other provider processes still see it ` +
        `as held, so none of them adopts it: the next pulumi up can.`,
    );
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
    if (!g) this.gates.set(kind, (g = new KindGate(kind, this.shared)));
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

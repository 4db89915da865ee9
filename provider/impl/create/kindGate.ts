/**
 * One kind's gate in a deployment's claims (`ClaimRegistry`, claims.ts): its creates in flight
 * and its lookup as a readers-writer lock, and its creates waiting to look. Within a process they
 * are held in memory; shared with a claims folder, they hold across the deployment's processes
 * (folderLocks.ts), and a folder that fails is warned about and never fails a create (the one
 * error passed on is a wait that reached its bound, {@link ClaimsLockTimeoutError}).
 *
 * @packageDocumentation
 */
import type { ClaimsFolder } from "./claimsFolder";
import type { Twin, Waiter } from "./createOnceSpec";
import { ClaimsLockTimeoutError } from "./folderLocks";
import { describe } from "./privateFiles";

/**
 * The registry's shared folder as its gates and waiting lists reach it: the folder (when shared)
 * and how a failed call of it falls back.
 */
export interface Shared {
  folder(): ClaimsFolder | undefined;
  /**
   * `op` on the folder, when shared; when it throws, the registry warns (`problem` gets the
   * folder's path and the cause) and `fallback` is returned. Never throws.
   */
  attempt<T>(op: (f: ClaimsFolder) => T, fallback: T, problem: (where: string, cause: string) => string): T;
  /** Warns through the registry's sink. */
  warn(message: string): void;
}
/**
 * The creates of one kind waiting to look: this process's, and, when the registry is shared,
 * those of the deployment's other processes (as hashes: see claimsFolder.ts).
 */
class WaitingCreates {
  private readonly mine = new Map<Waiter, string | undefined>();

  constructor(
    private readonly kind: string,
    private readonly shared: Shared,
  ) {}

  /** `w` waits to look (again: counted once); a folder that fails sees it not. */
  add(w: Waiter): void {
    if (this.mine.has(w)) return;
    const token = this.shared.attempt<string | undefined>(
      (folder) =>
        folder.addWaiting(this.kind, {
          matchKey: w.matchKey === undefined ? undefined : folder.hash(w.matchKey),
          fingerprint: folder.hash(w.fingerprint ?? ""),
        }),
      undefined,
      (where, cause) =>
        `${where}: could not tell the deployment's other provider processes that a lost create of "${this.kind}" waits to look ` +
        `(${cause}); their lookups will not count it as a twin.`,
    );
    this.mine.set(w, token);
  }

  /** `w` no longer waits (adopted, made, or failed). */
  delete(w: Waiter): void {
    if (!this.mine.has(w)) return;
    const token = this.mine.get(w);
    this.mine.delete(w);
    if (token !== undefined)
      this.shared.attempt(
        (folder) => folder.removeWaiting(token),
        undefined,
        (where, cause) =>
          `${where}: could not remove the entry of a create of "${this.kind}" that no longer waits (${cause}); ` +
          `the deployment's other provider processes may count it as a twin until this process ends.`,
      );
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
    const folder = this.shared.folder();
    if (folder && me.matchKey !== undefined) {
      const matchKey = folder.hash(me.matchKey);
      const fingerprint = folder.hash(me.fingerprint ?? "");
      const others = this.shared.attempt(
        (f) => f.othersWaiting(this.kind),
        [],
        (where, cause) =>
          `${where}: could not read the lost creates of "${this.kind}" waiting in the deployment's other provider processes ` +
          `(${cause}); this lookup counts only this process's.`,
      );
      for (const w of others) {
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
export class KindGate {
  private sending = 0;
  private looking = false;
  private readonly lookups: (() => void)[] = [];
  private readonly sends: (() => void)[] = [];
  /** How many of the creates in flight are marked in the shared folder (the others fell back). */
  private folderSends = 0;
  /** True while the lookup running holds the shared folder's lock of the kind. */
  private folderLooking = false;
  /** Creates of this kind whose answer was lost and that have not yet resolved (adopted, made or failed). */
  readonly waiting: WaitingCreates;

  constructor(
    private readonly kind: string,
    private readonly shared: Shared,
  ) {
    this.waiting = new WaitingCreates(kind, shared);
  }

  /**
   * Resolves when a create may be sent (and, when shared, no lookup of the kind runs in another
   * process of the deployment); pair with {@link leaveSend}. A folder that fails is warned about
   * and the create goes on, coordinated within this process only.
   * @throws ClaimsLockTimeoutError when another process's lookup of the kind held its lock past
   *   the folder's bound (`LOCK_WAIT_MS`): the create must not be sent, and needs no leaveSend.
   */
  async enterSend(): Promise<void> {
    if (!this.looking && this.lookups.length === 0) this.sending++;
    else await new Promise<void>((resolve) => this.sends.push(resolve));
    const folder = this.shared.folder();
    if (!folder) return;
    try {
      await folder.enterSend(this.kind);
      this.folderSends++;
    } catch (err) {
      if (err instanceof ClaimsLockTimeoutError) {
        this.sending--;
        this.next();
        throw err;
      }
      this.shared.warn(
        `claims folder ${folder.dir}: could not mark a create of "${this.kind}" as in flight (${describe(err)}); ` +
          `it is sent without waiting for the lookups of the deployment's other provider processes.`,
      );
    }
  }

  /** A create's request has settled (answered or failed). */
  leaveSend(): void {
    if (this.folderSends > 0) {
      this.folderSends--;
      this.shared.attempt(
        (folder) => folder.leaveSend(this.kind),
        undefined,
        (where, cause) =>
          `${where}: could not remove this process's mark of creates of "${this.kind}" in flight (${cause}); ` +
          `the lookups of the deployment's other provider processes may wait for it until this process ends.`,
      );
    }
    this.sending--;
    this.next();
  }

  /**
   * Resolves when no create of the kind is in flight and no other lookup runs (when shared: in
   * any process of the deployment); pair with {@link leaveLookup}. A folder that fails is warned
   * about and the lookup goes on, alone within this process only.
   * @throws ClaimsLockTimeoutError when another process's lookup or creates of the kind held the
   *   folder's lock or mark past its bound (`LOCK_WAIT_MS`): the lookup must not run, and needs
   *   no leaveLookup.
   */
  async enterLookup(): Promise<void> {
    if (!this.looking && this.sending === 0) this.looking = true;
    else await new Promise<void>((resolve) => this.lookups.push(resolve));
    const folder = this.shared.folder();
    if (!folder) return;
    try {
      await folder.enterLookup(this.kind);
      this.folderLooking = true;
    } catch (err) {
      if (err instanceof ClaimsLockTimeoutError) {
        this.looking = false;
        this.next();
        throw err;
      }
      this.shared.warn(
        `claims folder ${folder.dir}: could not take the lookup lock of "${this.kind}" (${describe(err)}); ` +
          `the lookup runs without waiting for the creates of the deployment's other provider processes.`,
      );
    }
  }

  /** The lookup is done and has claimed what it adopts. */
  leaveLookup(): void {
    if (this.folderLooking) {
      this.folderLooking = false;
      this.shared.attempt(
        (folder) => folder.leaveLookup(this.kind),
        undefined,
        (where, cause) =>
          `${where}: could not remove this process's lookup lock of "${this.kind}" (${cause}); ` +
          `the deployment's other provider processes may wait for it until this process ends.`,
      );
    }
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

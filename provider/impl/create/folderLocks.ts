/**
 * The part of a deployment's claims folder (claimsFolder.ts) that coordinates its provider
 * processes' creates, kind by kind: a readers-writer lock of lock files (creates in flight side by
 * side, a lookup alone) and the creates waiting to look. An entry of a process that has died
 * counts as gone (processIdentity.ts), and a wait on another process's lock or mark ends after
 * {@link LOCK_WAIT_MS} with a {@link ClaimsLockTimeoutError} naming the lock file and its holder.
 *
 * @packageDocumentation
 */
import { readdirSync, rmSync } from "node:fs";
import * as path from "node:path";
import { ClaimsFolderError, createExclusive, readOr, touch } from "./privateFiles";
import { liveness, parseIdentity } from "./processIdentity";

/** How often a process waiting for another's lookup or creates looks again, in **milliseconds**. */
export const POLL_MS = 10;

/**
 * Longest a process waits for another process of the deployment to let go of a kind's lock or
 * mark (its lookup, its creates in flight), in **milliseconds**: 15 minutes. A create holds its
 * mark for at most the client's retry budget plus one request (60 s + 30 s by default) and a
 * lookup its lock for five listings of the kind, so a holder still running after this long is
 * stuck; the wait then ends with a {@link ClaimsLockTimeoutError} instead of hanging the `up`.
 */
export const LOCK_WAIT_MS = 15 * 60_000;

/** What a create waiting to look tells the other processes of the deployment about itself. */
export interface SharedWaiting {
  /** A hash of the values `matches` compares (`CreateOnceSpec.matchKey`); absent when the kind gives none. */
  matchKey?: string;
  /** A keyed hash of the whole request, write-only secrets included (`CreateOnceSpec.fingerprint`). */
  fingerprint: string;
}

/** Options of a {@link ClaimsFolder} (tests shorten the waits). */
export interface ClaimsFolderOptions {
  /** Longest wait on another process's lock or mark, in **milliseconds** (default {@link LOCK_WAIT_MS}). */
  lockWaitMs?: number;
}

/**
 * A wait on another process's lock or mark in a claims folder that reached its bound
 * ({@link ClaimsFolderOptions.lockWaitMs}): `path` is the lock file, `holder` the owner token in it.
 */
export class ClaimsLockTimeoutError extends ClaimsFolderError {
  constructor(
    path: string,
    /** The owner token of the process holding the lock (`<pid>.<start time>.<namespace>-<random>`). */
    readonly holder: string,
    message: string,
  ) {
    super(path, message);
    this.name = "ClaimsLockTimeoutError";
  }
}

/** The liveness of an owner token's process (a token that names none counts as dead). */
export function ownerLiveness(owner: string): "alive" | "dead" | "unknown" {
  const id = parseIdentity(owner);
  return id ? liveness(id) : "dead";
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A file name for any string (IDs and kinds hold no `/`, but nothing here relies on it). */
export function fileName(s: string): string {
  return encodeURIComponent(s);
}

/**
 * The locks and waiting lists of one owner (a process, or a registry in tests) in the claims
 * folder `dir`; `ClaimsFolder` adds the IDs held. The folder and its sub-folders `sending`,
 * `looking` and `waiting` are made and checked by `ClaimsFolder`.
 */
export class FolderLocks {
  /** Per kind: this owner's creates in flight (its sending file exists while this is above 0). */
  private readonly inFlight = new Map<string, number>();
  private seq = 0;

  constructor(
    /** The claims folder. */
    readonly dir: string,
    /** This owner's token: `<pid>.<start time>.<PID namespace>-<random>` (see `parseIdentity`). */
    readonly owner: string,
    /** Longest wait on another process's lock or mark, in **milliseconds**. */
    protected readonly lockWaitMs: number,
  ) {}

  // The readers-writer lock of a kind: creates in flight side by side, a lookup alone.

  private lookingFile(kind: string): string {
    return path.join(this.dir, "looking", fileName(kind));
  }

  private sendingFile(kind: string, owner = this.owner): string {
    return path.join(this.dir, "sending", `${fileName(kind)}.${owner}`);
  }

  /**
   * The owner of the kind's lookup lock when it is another owner that runs (or may: a process of
   * another PID namespace); a dead owner's lock is removed.
   */
  private othersLooking(kind: string): string | undefined {
    const file = this.lookingFile(kind);
    const owner = readOr(file, "");
    if (owner === "" || owner === this.owner) return undefined;
    if (ownerLiveness(owner) !== "dead") return owner;
    rmSync(file, { force: true });
    return undefined;
  }

  /** Another owner, still running, with creates of the kind in flight (its mark's file and token). */
  private othersSending(kind: string): { owner: string; file: string } | undefined {
    const prefix = `${fileName(kind)}.`;
    for (const name of readdirSync(path.join(this.dir, "sending"))) {
      if (!name.startsWith(prefix) || name.endsWith(".tmp")) continue;
      const owner = name.slice(prefix.length);
      if (owner === this.owner) continue;
      const file = path.join(this.dir, "sending", name);
      if (ownerLiveness(owner) !== "dead") return { owner, file };
      rmSync(file, { force: true });
    }
    return undefined;
  }

  /** The error of a wait that reached its bound: names the lock `file`, its `holder`, and what to run. */
  private lockTimeout(
    file: string,
    holder: string,
    waitedFor: string,
    outcome: string,
  ): ClaimsLockTimeoutError {
    const id = parseIdentity(holder);
    const who = !id
      ? "an owner this provider cannot name"
      : ownerLiveness(holder) === "unknown"
        ? `process ${id.pid} of another PID namespace, which this provider cannot see`
        : `process ${id.pid}, still running`;
    const end = id ? `If that process is stuck, end it (kill ${id.pid}); if` : "If";
    return new ClaimsLockTimeoutError(
      file,
      holder,
      `claims folder: waited ${this.lockWaitMs} ms for ${waitedFor}, held by ${holder} (${who}) in ${file}. ${outcome} ` +
        `${end} no pulumi operation of this stack is running, remove the file (rm '${file}'). Then run pulumi up again.`,
    );
  }

  /** Waits while `holder()` names one, until `deadline` (**milliseconds** since the epoch); then throws `timeout`'s error. */
  private async waitWhile<H>(
    deadline: number,
    holder: () => H | undefined,
    timeout: (h: H) => Error,
  ): Promise<void> {
    for (let h = holder(); h !== undefined; h = holder()) {
      if (Date.now() >= deadline) throw timeout(h);
      await sleep(POLL_MS);
    }
  }

  /**
   * Resolves when a create of `kind` may be sent: no other owner's lookup of the kind runs. Marks
   * this owner as sending until the matching {@link leaveSend}; while a lookup of another owner
   * waits, no new create is sent.
   * @throws ClaimsLockTimeoutError naming the lookup's lock file and holder after waiting
   *   {@link ClaimsFolderOptions.lockWaitMs} (the create is not sent); the file system's error
   *   when the mark cannot be made (this owner is then not marked).
   */
  async enterSend(kind: string): Promise<void> {
    const deadline = Date.now() + this.lockWaitMs;
    const timeout = (holder: string) =>
      this.lockTimeout(
        this.lookingFile(kind),
        holder,
        `another provider process's lookup of "${kind}" to end`,
        `The create of a "${kind}" was not sent: nothing was made.`,
      );
    for (;;) {
      await this.waitWhile(deadline, () => this.othersLooking(kind), timeout);
      const n = (this.inFlight.get(kind) ?? 0) + 1;
      if (n === 1) touch(this.sendingFile(kind));
      this.inFlight.set(kind, n);
      // A lookup that took the lock between the check and the mark waits for the mark: step back.
      if (!this.othersLooking(kind)) return;
      this.leaveSend(kind);
    }
  }

  /**
   * A create of `kind` entered with {@link enterSend} has settled.
   * @throws the file system's error when the mark cannot be removed (it is no longer counted).
   */
  leaveSend(kind: string): void {
    const n = (this.inFlight.get(kind) ?? 1) - 1;
    this.inFlight.set(kind, n);
    if (n === 0) rmSync(this.sendingFile(kind), { force: true });
  }

  /**
   * Resolves when this owner runs the lookup of `kind` alone: it holds the kind's lock and no
   * other owner has a create of the kind in flight. Pair with {@link leaveLookup}.
   * @throws ClaimsLockTimeoutError naming the lock file (another owner's lookup lock, or its mark
   *   of creates in flight) and its holder after waiting {@link ClaimsFolderOptions.lockWaitMs};
   *   the file system's error when the lock cannot be taken. Either way this owner holds no lock.
   */
  async enterLookup(kind: string): Promise<void> {
    const deadline = Date.now() + this.lockWaitMs;
    const outcome =
      `This lookup, of a create whose answer was lost, did not run: that create may have made a "${kind}" ` +
      `this deployment does not hold. Look for one with its values and delete it or adopt it with adoptId.`;
    const file = this.lookingFile(kind);
    while (!createExclusive(file, this.owner)) {
      const holder = this.othersLooking(kind) ?? readOr(file, "");
      if (Date.now() >= deadline)
        throw this.lockTimeout(
          file,
          holder,
          `another provider process's lookup of "${kind}" to end`,
          outcome,
        );
      await sleep(POLL_MS);
    }
    try {
      await this.waitWhile(
        deadline,
        () => this.othersSending(kind),
        (h) =>
          this.lockTimeout(
            h.file,
            h.owner,
            `another provider process's creates of "${kind}" in flight to settle`,
            outcome,
          ),
      );
    } catch (err) {
      try {
        this.leaveLookup(kind);
      } catch {
        // the lock of a folder that failed: its owner's death frees it
      }
      throw err;
    }
  }

  /**
   * The lookup of `kind` is done.
   * @throws the file system's error when the lock cannot be removed.
   */
  leaveLookup(kind: string): void {
    const file = this.lookingFile(kind);
    if (readOr(file, "") === this.owner) rmSync(file, { force: true });
  }

  // Creates waiting to look.

  /**
   * Tells the other owners that a create of `kind` waits to look.
   * @returns the entry's token, for {@link removeWaiting}.
   * @throws the file system's error when the entry cannot be written.
   */
  addWaiting(kind: string, entry: SharedWaiting): string {
    const token = `${fileName(kind)}.${this.owner}.${++this.seq}`;
    createExclusive(path.join(this.dir, "waiting", token), JSON.stringify(entry));
    return token;
  }

  /**
   * The create of `token` no longer waits.
   * @throws the file system's error when the entry cannot be removed.
   */
  removeWaiting(token: string): void {
    rmSync(path.join(this.dir, "waiting", token), { force: true });
  }

  /**
   * The creates of `kind` that other owners, still running, have waiting to look.
   * @throws the file system's error when the folder cannot be read.
   */
  othersWaiting(kind: string): SharedWaiting[] {
    const prefix = `${fileName(kind)}.`;
    const found: SharedWaiting[] = [];
    for (const name of readdirSync(path.join(this.dir, "waiting"))) {
      if (!name.startsWith(prefix) || name.endsWith(".tmp")) continue;
      const owner = name.slice(prefix.length, name.lastIndexOf("."));
      if (owner === this.owner) continue;
      if (ownerLiveness(owner) === "dead") {
        rmSync(path.join(this.dir, "waiting", name), { force: true });
        continue;
      }
      const text = readOr(path.join(this.dir, "waiting", name), "");
      try {
        found.push(JSON.parse(text) as SharedWaiting);
      } catch {
        // Removed while read: it no longer waits.
      }
    }
    return found;
  }
}

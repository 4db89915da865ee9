/**
 * The claims of one deployment shared by its provider processes. The engine runs one plugin
 * process per provider instance (the default provider and every explicit `Provider` of the
 * package), so two resources of one deployment can be created by two processes. A
 * {@link ClaimsFolder} holds what claims.ts holds per process, in a folder every process of the
 * deployment opens: the IDs claimed by creates and adoptions (one file each, made with an
 * exclusive create, so one process wins), the IDs the engine passed in (one list per process,
 * appended to), each kind's creates in flight and its lookup (a readers-writer lock of lock
 * files), and each kind's creates waiting to look. The folder of a deployment is named after its
 * engine (its process and its address): see {@link deploymentClaimsFolder}.
 *
 * **Private to one user.** The folders live under {@link claimsRoot}, a folder of this user's own
 * (`$XDG_RUNTIME_DIR/pulumi-service-claims`, else `<tmpdir>/pulumi-service-claims-<uid>`). Every
 * folder opened here is made without `recursive` and then checked with `lstat`: a real directory
 * (not a symbolic link), owned by this user, with no permission for group or others; the
 * deployment's hashing `key` likewise (a regular file of this user's, mode 0600, opened without
 * following a link). Anything else is refused with a {@link ClaimsFolderError} that names it and
 * says what to run, and nothing in it is read, written or removed. Clean-up removes only
 * directories this user owns, never through a link.
 *
 * **Liveness.** Entries of a process that has died count as gone. A process is named by its PID,
 * its start time (field 22 of `/proc/<pid>/stat`) and its PID namespace (`/proc/self/ns/pid`), so
 * a PID used again by a later process does not keep a dead entry alive, and a process of another
 * container sharing the folder is never taken for dead (its entries are left alone). Where `/proc`
 * is missing (macOS), a process is judged by its PID alone.
 *
 * **Bounded waits.** A wait on another process's lock or mark ends after {@link LOCK_WAIT_MS}
 * with a {@link ClaimsLockTimeoutError} naming the lock file and its holder.
 *
 * Nothing here holds a secret: a create's request is kept as a keyed hash whose key is made per
 * deployment (mode 0600).
 *
 * @packageDocumentation
 */
import { createHash, createHmac, randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  type Stats,
} from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import {
  ClaimsFolderError,
  O_NOFOLLOW,
  createExclusive,
  createOnly,
  describe,
  myUid,
  openPrivateDir,
  privateDirProblem,
  readOr,
  touch,
  writeAll,
} from "./privateFiles";
import { formatIdentity, liveness, parseIdentity, processIdentity } from "./processIdentity";

export { ClaimsFolderError } from "./privateFiles";
export {
  formatIdentity,
  liveness,
  parseIdentity,
  processAlive,
  processIdentity,
  processStartTime,
  type ProcessIdentity,
} from "./processIdentity";

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
function ownerLiveness(owner: string): "alive" | "dead" | "unknown" {
  const id = parseIdentity(owner);
  return id ? liveness(id) : "dead";
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A file name for any string (IDs and kinds hold no `/`, but nothing here relies on it). */
function fileName(s: string): string {
  return encodeURIComponent(s);
}

/**
 * Reads what was appended to a list of held IDs (`file`) since `read.bytes`, up to its last whole
 * line (a line being written is read the next time), into `read.ids`. A list that cannot be read
 * adds nothing.
 */
function readMoreHeld(file: string, read: { bytes: number; ids: Set<string> }): void {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | O_NOFOLLOW);
  } catch {
    return;
  }
  try {
    const size = fstatSync(fd).size;
    if (size <= read.bytes) return;
    const buf = Buffer.alloc(size - read.bytes);
    const n = readSync(fd, buf, 0, buf.length, read.bytes);
    const text = buf.subarray(0, n).toString("utf8");
    const end = text.lastIndexOf("\n");
    if (end < 0) return;
    for (const line of text.slice(0, end).split("\n")) if (line !== "") read.ids.add(line);
    read.bytes += Buffer.byteLength(text.slice(0, end + 1));
  } finally {
    closeSync(fd);
  }
}

/**
 * One deployment's claims, shared by every provider process that opens the same folder. Each
 * instance is one owner (a process, or a registry in tests) with a token of its own.
 */
export class ClaimsFolder {
  /** This owner's token: `<pid>.<start time>.<PID namespace>-<random>` (see {@link parseIdentity}). */
  readonly owner: string;
  private readonly key: Buffer;
  private readonly lockWaitMs: number;
  /** Per kind: this owner's creates in flight (its sending file exists while this is above 0). */
  private readonly inFlight = new Map<string, number>();
  private seq = 0;
  /** This owner's list of held IDs (`held/<owner>`), open for appending once the first is written. */
  private heldFd: number | undefined;
  /** Set when a write to this owner's list failed: the next line starts on a line of its own. */
  private heldCut = false;
  /** What has been read of each owner's list of held IDs: bytes read so far, and the IDs in them. */
  private readonly heldRead = new Map<string, { bytes: number; ids: Set<string> }>();

  /**
   * Opens (making it when needed) the claims folder `dir`, whose parent must exist, as the owner
   * process `pid`. The folder and its sub-folders must be directories of this user's with no
   * permission for group or others, and its `key` a regular file of this user's, mode 0600.
   * @throws ClaimsFolderError naming the folder or file, what is wrong and what to run, when one
   *   is not so or cannot be made or read.
   */
  constructor(
    readonly dir: string,
    pid: number = process.pid,
    options: ClaimsFolderOptions = {},
  ) {
    this.owner = `${formatIdentity(processIdentity(pid))}-${randomBytes(6).toString("hex")}`;
    this.lockWaitMs = options.lockWaitMs ?? LOCK_WAIT_MS;
    openPrivateDir(dir, "the claims folder");
    for (const sub of ["ids", "held", "sending", "looking", "waiting"]) {
      openPrivateDir(path.join(dir, sub), "the claims folder");
    }
    this.key = this.deploymentKey();
  }

  /**
   * The deployment's hashing key: made by the first owner, read by every other, never through a
   * link, and only from a regular file of this user's that no one else may read.
   * @throws ClaimsFolderError when the key cannot be made or read, or is not such a file.
   */
  private deploymentKey(): Buffer {
    const file = path.join(this.dir, "key");
    const refuse = (what: string, cause?: unknown) =>
      new ClaimsFolderError(
        file,
        `the claims folder's key ${file} ${what}, so it is not used. If it is yours, remove the folder ` +
          `(rm -r '${this.dir}') and run the operation again.`,
        { cause },
      );
    try {
      createExclusive(file, randomBytes(32).toString("hex"));
    } catch (err) {
      throw refuse(`cannot be made (${describe(err)})`, err);
    }
    let fd: number;
    try {
      fd = openSync(file, constants.O_RDONLY | O_NOFOLLOW);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw refuse(code === "ELOOP" ? "is a symbolic link" : `cannot be read (${describe(err)})`, err);
    }
    try {
      const st = fstatSync(fd);
      const uid = myUid();
      if (!st.isFile()) throw refuse("is not a regular file");
      if (uid !== undefined && st.uid !== uid)
        throw refuse(`is owned by uid ${st.uid}, not by this user (uid ${uid})`);
      if (uid !== undefined && (st.mode & 0o077) !== 0)
        throw refuse(`has mode ${(st.mode & 0o777).toString(8).padStart(4, "0")}, not 0600`);
      const text = readFileSync(fd, "utf8");
      if (!/^[0-9a-f]{64}$/.test(text)) throw refuse("does not hold a key (64 hexadecimal digits)");
      return Buffer.from(text, "hex");
    } finally {
      closeSync(fd);
    }
  }

  /** A keyed hash of `value`, the same in every process of the deployment (hex). */
  hash(value: string): string {
    return createHmac("sha256", this.key).update(value).digest("hex");
  }

  // IDs

  /**
   * Claims `id` for this owner unless another owner holds it, in one step (an exclusive create).
   * A write that fails leaves no file behind.
   * @returns true when this owner holds `id` now (made now, or held already), false when another does.
   * @throws the file system's error when the ID's file cannot be made or written (the folder
   *   removed, a full disk).
   */
  tryClaim(id: string): boolean {
    if (this.heldBy(fileName(id), true)) return false;
    const file = path.join(this.dir, "ids", fileName(id));
    // One open, where createExclusive takes three. A reader that finds the token half written
    // takes it for another owner's, which it is.
    return createOnly(file, this.owner) || readOr(file, "") === this.owner;
  }

  /**
   * Records that this owner holds `id` without asking whether another does: for an ID the engine
   * passed in (the state gives each ID to one resource), where no exclusive create is needed. One
   * line appended to this owner's list (`held/<owner>`), where {@link tryClaim} takes one file per
   * ID: a no-change `up` records every ID it diffs.
   * @throws the file system's error when the list cannot be written (a line cut short by a full
   *   disk is ended by the next one, so the lines after it still read).
   */
  hold(id: string): void {
    this.heldFd ??= openSync(
      path.join(this.dir, "held", fileName(this.owner)),
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | O_NOFOLLOW,
      0o600,
    );
    try {
      writeAll(this.heldFd, `${this.heldCut ? "\n" : ""}${fileName(id)}\n`);
      this.heldCut = false;
    } catch (err) {
      this.heldCut = true;
      throw err;
    }
  }

  /** True when some owner of the deployment holds `id`: claimed ({@link tryClaim}) or held ({@link hold}). */
  isClaimed(id: string): boolean {
    return existsSync(path.join(this.dir, "ids", fileName(id))) || this.heldBy(fileName(id), false);
  }

  /**
   * True when `name` (an ID's file name) is in some owner's list of held IDs (another owner's only
   * with `othersOnly`), each list read up to its last whole line.
   */
  private heldBy(name: string, othersOnly: boolean): boolean {
    let owners: string[];
    try {
      owners = readdirSync(path.join(this.dir, "held"));
    } catch {
      return false;
    }
    return owners.some((owner) => {
      if (othersOnly && owner === fileName(this.owner)) return false;
      let read = this.heldRead.get(owner);
      if (!read) this.heldRead.set(owner, (read = { bytes: 0, ids: new Set() }));
      if (!read.ids.has(name)) readMoreHeld(path.join(this.dir, "held", owner), read);
      return read.ids.has(name);
    });
  }

  /** Closes this owner's list of held IDs (its lines stay for the other owners). */
  close(): void {
    if (this.heldFd !== undefined) closeSync(this.heldFd);
    this.heldFd = undefined;
  }

  /**
   * Gives `id` back when this owner holds it, so that another create (or the next `up`) may take it.
   * @throws the file system's error when the ID's file cannot be removed.
   */
  release(id: string): void {
    const file = path.join(this.dir, "ids", fileName(id));
    if (readOr(file, "") === this.owner) rmSync(file, { force: true });
  }

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

/**
 * Where this user's deployments' claims folders live: `$XDG_RUNTIME_DIR/pulumi-service-claims`
 * when `XDG_RUNTIME_DIR` (of `env`) is an absolute path to a directory of this user's with no
 * permission for group or others, else `<tmpdir>/pulumi-service-claims-<uid>` (`os.tmpdir()`:
 * `TMPDIR`, else `/tmp`). Where there are no user IDs (Windows, whose temporary folder is per
 * user already): `<tmpdir>/pulumi-service-claims`. Nothing is made or checked here: see
 * {@link deploymentClaimsFolder}.
 */
export function claimsRoot(env: NodeJS.ProcessEnv = process.env): string {
  const uid = myUid();
  if (uid === undefined) return path.join(tmpdir(), "pulumi-service-claims");
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && path.isAbsolute(runtime)) {
    try {
      if (!privateDirProblem(lstatSync(runtime), uid)) return path.join(runtime, "pulumi-service-claims");
    } catch {
      // not there: the temporary folder instead
    }
  }
  return path.join(tmpdir(), `pulumi-service-claims-${uid}`);
}

/**
 * Removes the deployments' folders in `root` whose engine has died: only directories this user
 * owns (a link, a file, another user's folder or a name not made here is left alone, and nothing
 * is followed through a link), whose name's process is dead by PID and start time (a process of
 * another PID namespace is left to its own). A folder that cannot be removed is left for the next
 * time.
 */
function removeDeadFolders(root: string): void {
  const uid = myUid();
  for (const name of readdirSync(root)) {
    const entry = path.join(root, name);
    let st: Stats;
    try {
      st = lstatSync(entry);
    } catch {
      continue;
    }
    if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) continue;
    const id = name.includes("-") ? parseIdentity(name) : undefined;
    if (!id || liveness(id) !== "dead") continue;
    try {
      rmSync(entry, { recursive: true, force: true });
    } catch {
      // left for the next time
    }
  }
}

/**
 * The claims folder of the deployment run by the engine at `engineAddress` (the plugin's
 * argument), whose process is `enginePid` (the plugin's parent):
 * `<root>/<pid>.<start time>.<PID namespace>-<hash of the address>`. The root is made (mode 0700)
 * and checked first (a directory of this user's, not a link, no permission for group or others),
 * and the folders of engines no longer running are removed from it (see {@link ClaimsFolder} for
 * what is checked in the deployment's own).
 *
 * @param root - where the folders live (default {@link claimsRoot}; tests pass their own).
 * @param options - the folder's options (tests shorten its waits).
 * @returns the opened folder, or `undefined` without an engine address (a plugin started by hand).
 * @throws ClaimsFolderError naming the root or folder, what is wrong and what to run, when one
 *   cannot be made or is not private to this user; nothing under it is then removed.
 */
export function deploymentClaimsFolder(
  engineAddress: string | undefined,
  enginePid: number = process.ppid,
  root: string = claimsRoot(),
  options: ClaimsFolderOptions = {},
): ClaimsFolder | undefined {
  if (!engineAddress) return undefined;
  openPrivateDir(root, "the claims root");
  try {
    removeDeadFolders(root);
  } catch {
    // a root that cannot be listed: the folders of dead engines stay until the next time
  }
  const address = createHash("sha256").update(engineAddress).digest("hex").slice(0, 16);
  const name = `${formatIdentity(processIdentity(enginePid))}-${address}`;
  return new ClaimsFolder(path.join(root, name), process.pid, options);
}

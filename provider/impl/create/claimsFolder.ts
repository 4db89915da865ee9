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
  writeAll,
} from "./privateFiles";
import { formatIdentity, liveness, parseIdentity, processIdentity } from "./processIdentity";

import { FolderLocks, LOCK_WAIT_MS, fileName, type ClaimsFolderOptions } from "./folderLocks";

export { ClaimsFolderError } from "./privateFiles";
export {
  ClaimsLockTimeoutError,
  FolderLocks,
  LOCK_WAIT_MS,
  POLL_MS,
  type ClaimsFolderOptions,
  type SharedWaiting,
} from "./folderLocks";
export {
  formatIdentity,
  liveness,
  parseIdentity,
  processAlive,
  processIdentity,
  processStartTime,
  type ProcessIdentity,
} from "./processIdentity";

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
 * One deployment's claims, shared by every provider process that opens the same folder: the IDs
 * held here, the kinds' locks and waiting lists in {@link FolderLocks}. Each instance is one owner
 * (a process, or a registry in tests) with a token of its own.
 */
export class ClaimsFolder extends FolderLocks {
  private readonly key: Buffer;
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
  constructor(dir: string, pid: number = process.pid, options: ClaimsFolderOptions = {}) {
    super(
      dir,
      `${formatIdentity(processIdentity(pid))}-${randomBytes(6).toString("hex")}`,
      options.lockWaitMs ?? LOCK_WAIT_MS,
    );
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

  /**
   * True when some owner of the deployment holds `id`: claimed ({@link tryClaim}) or held
   * ({@link hold}). No one holds the empty ID (whose path would be the folder of IDs itself).
   */
  isClaimed(id: string): boolean {
    if (id === "") return false;
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

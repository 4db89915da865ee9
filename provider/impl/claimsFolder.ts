/**
 * The claims of one deployment shared by its provider processes. The engine runs one plugin
 * process per provider instance (the default provider and every explicit `Provider` of the
 * package), so two resources of one deployment can be created by two processes. A
 * {@link ClaimsFolder} holds what claims.ts holds per process, in a folder every process of the
 * deployment opens: the IDs claimed by creates and adoptions (one file each, made with an
 * exclusive create, so one process wins), the IDs the engine passed in (one list per process,
 * appended to), each kind's creates in flight and its lookup (a readers-writer lock of lock
 * files), and each kind's creates waiting to look. The folder of a deployment is named after its engine (its
 * process ID and its address): see {@link deploymentClaimsFolder}.
 *
 * Entries of a process that has died count as gone. Nothing here holds a secret: a create's
 * request is kept as a keyed hash whose key is made per deployment (mode 0600).
 *
 * @packageDocumentation
 */
import { createHash, createHmac, randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";

/** How often a process waiting for another's lookup or creates looks again, in **milliseconds**. */
export const POLL_MS = 10;

/** What a create waiting to look tells the other processes of the deployment about itself. */
export interface SharedWaiting {
  /** A hash of the values `matches` compares (`CreateOnceSpec.matchKey`); absent when the kind gives none. */
  matchKey?: string;
  /** A keyed hash of the whole request, write-only secrets included (`CreateOnceSpec.fingerprint`). */
  fingerprint: string;
}

/** True when process `pid` is running (or exists under another user). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The process ID at the start of an owner token (`<pid>-<random>`). */
function ownerPid(owner: string): number {
  return Number(owner.split("-")[0]);
}

/** A file name for any string (IDs and kinds hold no `/`, but nothing here relies on it). */
function fileName(s: string): string {
  return encodeURIComponent(s);
}

/**
 * Creates `file` holding `content` unless it exists, in one step: the content is written to a
 * file of its own and linked in place, so a reader never sees a file half written.
 * @returns true when this call made it.
 */
function createExclusive(file: string, content: string): boolean {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(tmp, content, { mode: 0o600 });
  try {
    linkSync(tmp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  } finally {
    unlinkSync(tmp);
  }
}

/**
 * Creates `file` holding `content` unless it exists, with one exclusive open (no temporary file).
 * A reader may find the file empty while it is being written: use it only where an empty or
 * partial content reads as "made by another owner", as an ID's owner token does.
 * @returns true when this call made it.
 * @throws the file system's error other than the file existing.
 */
function createOnly(file: string, content: string): boolean {
  try {
    writeFileSync(file, content, { flag: "wx", mode: 0o600 });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
}

/**
 * Reads what was appended to a list of held IDs (`file`) since `read.bytes`, up to its last whole
 * line (a line being written is read the next time), into `read.ids`. A list that cannot be read
 * adds nothing.
 */
function readMoreHeld(file: string, read: { bytes: number; ids: Set<string> }): void {
  let fd: number;
  try {
    fd = openSync(file, "r");
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

function readOr(file: string, fallback: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return fallback;
  }
}

/**
 * One deployment's claims, shared by every provider process that opens the same folder. Each
 * instance is one owner (a process, or a registry in tests) with a token of its own.
 */
export class ClaimsFolder {
  /** This owner's token: `<pid>-<random>`. */
  readonly owner: string;
  private readonly key: Buffer;
  /** Per kind: this owner's creates in flight (its sending file exists while this is above 0). */
  private readonly inFlight = new Map<string, number>();
  private seq = 0;
  /** This owner's list of held IDs (`held/<owner>`), open for appending once the first is written. */
  private heldFd: number | undefined;
  /** What has been read of each owner's list of held IDs: bytes read so far, and the IDs in them. */
  private readonly heldRead = new Map<string, { bytes: number; ids: Set<string> }>();

  /**
   * Opens (making it when needed) the claims folder `dir`.
   * @throws the file system's error when the folder cannot be made or written.
   */
  constructor(
    readonly dir: string,
    pid: number = process.pid,
  ) {
    this.owner = `${pid}-${randomBytes(6).toString("hex")}`;
    for (const sub of ["ids", "held", "sending", "looking", "waiting"]) {
      mkdirSync(path.join(dir, sub), { recursive: true, mode: 0o700 });
    }
    this.key = this.deploymentKey();
  }

  /** The deployment's hashing key: made by the first owner, read by every other. */
  private deploymentKey(): Buffer {
    const file = path.join(this.dir, "key");
    createExclusive(file, randomBytes(32).toString("hex"));
    return Buffer.from(readFileSync(file, "utf8"), "hex");
  }

  /** A keyed hash of `value`, the same in every process of the deployment (hex). */
  hash(value: string): string {
    return createHmac("sha256", this.key).update(value).digest("hex");
  }

  // IDs

  /**
   * Claims `id` for this owner unless another owner holds it, in one step (an exclusive create).
   * @returns true when this owner holds `id` now (made now, or held already), false when another does.
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
   * @throws the file system's error when the list cannot be written.
   */
  hold(id: string): void {
    this.heldFd ??= openSync(path.join(this.dir, "held", fileName(this.owner)), "a", 0o600);
    writeSync(this.heldFd, `${fileName(id)}\n`);
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

  /** Gives `id` back when this owner holds it, so that another create (or the next `up`) may take it. */
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

  /** True when another owner, still running, holds the kind's lookup; a dead owner's lock is removed. */
  private othersLooking(kind: string): boolean {
    const file = this.lookingFile(kind);
    const owner = readOr(file, "");
    if (owner === "" || owner === this.owner) return false;
    if (processAlive(ownerPid(owner))) return true;
    rmSync(file, { force: true });
    return false;
  }

  /** True when another owner, still running, has creates of the kind in flight. */
  private othersSending(kind: string): boolean {
    const prefix = `${fileName(kind)}.`;
    for (const name of readdirSync(path.join(this.dir, "sending"))) {
      if (!name.startsWith(prefix) || name.endsWith(".tmp")) continue;
      const owner = name.slice(prefix.length);
      if (owner === this.owner) continue;
      if (processAlive(ownerPid(owner))) return true;
      rmSync(path.join(this.dir, "sending", name), { force: true });
    }
    return false;
  }

  /**
   * Resolves when a create of `kind` may be sent: no other owner's lookup of the kind runs. Marks
   * this owner as sending until the matching {@link leaveSend}; while a lookup of another owner
   * waits, no new create is sent.
   */
  async enterSend(kind: string): Promise<void> {
    for (;;) {
      while (this.othersLooking(kind)) await sleep(POLL_MS);
      const n = (this.inFlight.get(kind) ?? 0) + 1;
      this.inFlight.set(kind, n);
      if (n === 1) writeFileSync(this.sendingFile(kind), "", { mode: 0o600 });
      // A lookup that took the lock between the check and the mark waits for the mark: step back.
      if (!this.othersLooking(kind)) return;
      this.leaveSend(kind);
    }
  }

  /** A create of `kind` entered with {@link enterSend} has settled. */
  leaveSend(kind: string): void {
    const n = (this.inFlight.get(kind) ?? 1) - 1;
    this.inFlight.set(kind, n);
    if (n === 0) rmSync(this.sendingFile(kind), { force: true });
  }

  /**
   * Resolves when this owner runs the lookup of `kind` alone: it holds the kind's lock and no
   * other owner has a create of the kind in flight. Pair with {@link leaveLookup}.
   */
  async enterLookup(kind: string): Promise<void> {
    while (!createExclusive(this.lookingFile(kind), this.owner)) {
      this.othersLooking(kind);
      await sleep(POLL_MS);
    }
    while (this.othersSending(kind)) await sleep(POLL_MS);
  }

  /** The lookup of `kind` is done. */
  leaveLookup(kind: string): void {
    const file = this.lookingFile(kind);
    if (readOr(file, "") === this.owner) rmSync(file, { force: true });
  }

  // Creates waiting to look.

  /**
   * Tells the other owners that a create of `kind` waits to look.
   * @returns the entry's token, for {@link removeWaiting}.
   */
  addWaiting(kind: string, entry: SharedWaiting): string {
    const token = `${fileName(kind)}.${this.owner}.${++this.seq}`;
    createExclusive(path.join(this.dir, "waiting", token), JSON.stringify(entry));
    return token;
  }

  /** The create of `token` no longer waits. */
  removeWaiting(token: string): void {
    rmSync(path.join(this.dir, "waiting", token), { force: true });
  }

  /** The creates of `kind` that other owners, still running, have waiting to look. */
  othersWaiting(kind: string): SharedWaiting[] {
    const prefix = `${fileName(kind)}.`;
    const found: SharedWaiting[] = [];
    for (const name of readdirSync(path.join(this.dir, "waiting"))) {
      if (!name.startsWith(prefix) || name.endsWith(".tmp")) continue;
      const owner = name.slice(prefix.length, name.lastIndexOf("."));
      if (owner === this.owner) continue;
      if (!processAlive(ownerPid(owner))) {
        rmSync(path.join(this.dir, "waiting", name), { force: true });
        continue;
      }
      try {
        found.push(JSON.parse(readFileSync(path.join(this.dir, "waiting", name), "utf8")) as SharedWaiting);
      } catch {
        // Removed while read: it no longer waits.
      }
    }
    return found;
  }
}

/** Where the deployments' claims folders live: `<tmpdir>/pulumi-service-claims`. */
export function claimsRoot(): string {
  return path.join(tmpdir(), "pulumi-service-claims");
}

/**
 * The claims folder of the deployment run by the engine at `engineAddress` (the plugin's
 * argument), whose process is `enginePid` (the plugin's parent): `<claimsRoot>/<pid>-<hash of the
 * address>`. Folders of engines no longer running are removed first.
 *
 * @param root - where the folders live (tests).
 * @returns the opened folder, or `undefined` without an engine address (a plugin started by hand).
 * @throws the file system's error when the folder cannot be made.
 */
export function deploymentClaimsFolder(
  engineAddress: string | undefined,
  enginePid: number = process.ppid,
  root: string = claimsRoot(),
): ClaimsFolder | undefined {
  if (!engineAddress) return undefined;
  mkdirSync(root, { recursive: true, mode: 0o700 });
  for (const name of readdirSync(root)) {
    if (!processAlive(Number(name.split("-")[0])))
      rmSync(path.join(root, name), { recursive: true, force: true });
  }
  const address = createHash("sha256").update(engineAddress).digest("hex").slice(0, 16);
  return new ClaimsFolder(path.join(root, `${enginePid}-${address}`));
}

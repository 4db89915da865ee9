/**
 * The file system steps of a private claims folder (claimsFolder.ts): folders made and checked as
 * this user's alone (not a link, owned by this uid, no permission for group or others), files
 * opened without following links and created in one step, and the error that names a folder or
 * file this user cannot safely use.
 *
 * @packageDocumentation
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
  type Stats,
} from "node:fs";
import * as path from "node:path";

/** `O_NOFOLLOW` where the platform has it (an open of a link then fails), else 0. */
export const O_NOFOLLOW: number = constants.O_NOFOLLOW ?? 0;

/** An error's message (Node.js's own errors included, whatever realm made them). */
export function describe(err: unknown): string {
  return typeof err === "object" && err !== null && "message" in err ? String(err.message) : String(err);
}

/**
 * A claims folder (or its root, a sub-folder, or its key) that this user cannot safely use, or
 * whose file system failed: the message says where (`path`), what is wrong, and what to run.
 */
export class ClaimsFolderError extends Error {
  constructor(
    /** The folder or file at fault. */
    readonly path: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "ClaimsFolderError";
  }
}

/** This user's ID, or `undefined` where there is none (Windows: owner and mode are not checked). */
export function myUid(): number | undefined {
  return process.getuid?.();
}

/** What makes `st` (as `lstat` gave it) unfit for a private folder of user `uid`, or `undefined`. */
export function privateDirProblem(st: Stats, uid: number | undefined): string | undefined {
  if (st.isSymbolicLink()) return "is a symbolic link";
  if (!st.isDirectory()) return "is not a directory";
  if (uid === undefined) return undefined;
  if (st.uid !== uid) return `is owned by uid ${st.uid}, not by this user (uid ${uid})`;
  if ((st.mode & 0o077) !== 0)
    return `has mode ${(st.mode & 0o777).toString(8).padStart(4, "0")}, which lets other users in`;
  return undefined;
}

/** What to run about a folder refused for `problem`. */
function remedy(p: string, problem: string): string {
  if (problem.startsWith("is owned by"))
    return (
      `Another user may have made it to reach this user's deployments. Ask its owner or an administrator to remove it ` +
      `(sudo rm -r '${p}'), or point TMPDIR (or XDG_RUNTIME_DIR) at a folder only you can use.`
    );
  if (problem.startsWith("has mode"))
    return `Others may have written in it: remove it (rm -r '${p}'); the next operation makes it again, private.`;
  return (
    `If it is yours, remove it (rm '${p}'); the next operation makes a private folder there. ` +
    `Else ask its owner or an administrator to, or point TMPDIR (or XDG_RUNTIME_DIR) at a folder only you can use.`
  );
}

/**
 * Makes the folder `dir` (mode 0700) unless it exists, without `recursive`, then checks it with
 * `lstat`: a directory, not a link, owned by this user, no permission for group or others.
 * @param what - what the folder is, for the error (`the claims root`, `the claims folder`).
 * @throws ClaimsFolderError naming `dir`, what is wrong and what to run, when it cannot be made or
 *   is not such a folder; nothing in it is then touched.
 */
export function openPrivateDir(dir: string, what: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST")
      throw new ClaimsFolderError(
        dir,
        `${what} ${dir} cannot be made (${describe(err)}): check that ${path.dirname(dir)} exists and this user may write in it, ` +
          `or point TMPDIR (or XDG_RUNTIME_DIR) at a folder that does.`,
        { cause: err },
      );
  }
  let st: Stats;
  try {
    st = lstatSync(dir);
  } catch (err) {
    throw new ClaimsFolderError(
      dir,
      `${what} ${dir} cannot be read (${describe(err)}): check it (ls -ld '${dir}').`,
      {
        cause: err,
      },
    );
  }
  const problem = privateDirProblem(st, myUid());
  if (problem)
    throw new ClaimsFolderError(
      dir,
      `${what} ${dir} ${problem}, so it is not used and nothing in it is touched. ${remedy(dir, problem)}`,
    );
}

/** Writes all of `text` at `fd`'s position (a short write is continued). */
export function writeAll(fd: number, text: string): void {
  const buf = Buffer.from(text);
  for (let done = 0; done < buf.length;) done += writeSync(fd, buf, done, buf.length - done);
}

/** Creates `file` (mode 0600) unless it exists, never through a link. @returns its descriptor, or `undefined` when it exists. */
function openNew(file: string): number | undefined {
  try {
    return openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    throw err;
  }
}

/**
 * Creates `file` holding `content` unless it exists, in one step: the content is written to a
 * file of its own and linked in place, so a reader never sees a file half written.
 * @returns true when this call made it.
 * @throws the file system's error other than the file existing (nothing is left behind).
 */
export function createExclusive(file: string, content: string): boolean {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const fd = openNew(tmp);
  if (fd === undefined) throw new Error(`${tmp} exists already: run the operation again`);
  try {
    try {
      writeAll(fd, content);
    } finally {
      closeSync(fd);
    }
    linkSync(tmp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * Creates `file` holding `content` unless it exists, with one exclusive open (no temporary file).
 * A reader may find the file empty while it is being written: use it only where an empty or
 * partial content reads as "made by another owner", as an ID's owner token does. A write that
 * fails (a full disk) removes the file, so that no empty file is left to read as another's.
 * @returns true when this call made it.
 * @throws the file system's error other than the file existing.
 */
export function createOnly(file: string, content: string): boolean {
  const fd = openNew(file);
  if (fd === undefined) return false;
  try {
    try {
      writeAll(fd, content);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    rmSync(file, { force: true });
    throw err;
  }
  return true;
}

/** Makes `file` (empty, mode 0600) unless it exists, never through a link. */
export function touch(file: string): void {
  closeSync(openSync(file, constants.O_WRONLY | constants.O_CREAT | O_NOFOLLOW, 0o600));
}

/** The text of `file`, read without following a link; `fallback` when it cannot be read. */
export function readOr(file: string, fallback: string): string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | O_NOFOLLOW);
  } catch {
    return fallback;
  }
  try {
    return readFileSync(fd, "utf8");
  } catch {
    return fallback;
  } finally {
    closeSync(fd);
  }
}

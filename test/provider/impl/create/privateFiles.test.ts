/**
 * The file system steps of a claims folder (provider/impl/create/privateFiles.ts): a folder is used
 * only when it is this user's alone, and a refusal names it, what is wrong and what to run; files
 * are made in one step, never through a link, and a failed write leaves nothing behind.
 */
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  type Stats,
} from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { runInNewContext } from "node:vm";
import {
  ClaimsFolderError,
  createExclusive,
  createOnly,
  describe as describeError,
  openPrivateDir,
  privateDirProblem,
  readOr,
  touch,
  writeAll,
} from "../../../../provider/impl/create/privateFiles";
import { noSpaceError, openFiles, removedJustBefore, thrown } from "../../../helpers/claims-fixtures";

/** Node.js's own modules (not copies), whose functions privateFiles.ts calls: faults are injected there. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs = require("node:fs") as typeof import("node:fs");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const crypto = require("node:crypto") as typeof import("node:crypto");

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "private-files-"));
});
afterEach(() => {
  jest.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

describe("openPrivateDir", () => {
  it("makes a folder only this user may use, and opens one that is already so", () => {
    const made = path.join(dir, "claims");
    openPrivateDir(made, "the claims folder");
    expect(statSync(made).mode & 0o777).toBe(0o700);
    expect(() => openPrivateDir(made, "the claims folder")).not.toThrow();
  });

  it("refuses a folder others may use, naming it, its mode and what to run, and leaves what is in it", () => {
    const open = path.join(dir, "open");
    mkdirSync(open);
    writeFileSync(path.join(open, "theirs"), "x");
    chmodSync(open, 0o755);
    const err = thrown(() => openPrivateDir(open, "the claims root"));
    expect(err).toBeInstanceOf(ClaimsFolderError);
    expect((err as ClaimsFolderError).path).toBe(open);
    expect(err.message).toBe(
      `the claims root ${open} has mode 0755, which lets other users in, so it is not used and nothing in it is touched. ` +
        `Others may have written in it: remove it (rm -r '${open}'); the next operation makes it again, private.`,
    );
    expect(readdirSync(open)).toEqual(["theirs"]);
  });

  it("refuses a folder of another user's, saying who may remove it", () => {
    const theirs = path.join(dir, "theirs");
    mkdirSync(theirs, { mode: 0o700 });
    const owner = lstatSync(theirs).uid;
    jest.spyOn(process, "getuid").mockReturnValue(owner + 1);
    expect(thrown(() => openPrivateDir(theirs, "the claims root")).message).toBe(
      `the claims root ${theirs} is owned by uid ${owner}, not by this user (uid ${owner + 1}), so it is not used and ` +
        `nothing in it is touched. Another user may have made it to reach this user's deployments. Ask its owner or an ` +
        `administrator to remove it (sudo rm -r '${theirs}'), or point TMPDIR (or XDG_RUNTIME_DIR) at a folder only you can use.`,
    );
  });

  it("refuses a link to a folder and a file, following neither", () => {
    const target = path.join(dir, "project");
    mkdirSync(target, { mode: 0o700 });
    const link = path.join(dir, "link");
    symlinkSync(target, link);
    expect(thrown(() => openPrivateDir(link, "the claims folder")).message).toBe(
      `the claims folder ${link} is a symbolic link, so it is not used and nothing in it is touched. If it is yours, ` +
        `remove it (rm '${link}'); the next operation makes a private folder there. Else ask its owner or an administrator ` +
        `to, or point TMPDIR (or XDG_RUNTIME_DIR) at a folder only you can use.`,
    );
    const file = path.join(dir, "file");
    writeFileSync(file, "mine");
    expect(thrown(() => openPrivateDir(file, "the claims folder")).message).toMatch(
      new RegExp(`^the claims folder ${file} is not a directory, so it is not used`),
    );
    expect(readFileSync(file, "utf8")).toBe("mine");
  });

  it("says what to check when the folder cannot be made or read", () => {
    const orphan = path.join(dir, "missing", "claims");
    const err = thrown(() => openPrivateDir(orphan, "the claims folder"));
    expect(err).toBeInstanceOf(ClaimsFolderError);
    expect(err.message).toMatch(
      new RegExp(
        `^the claims folder ${orphan} cannot be made \\(ENOENT: .*\\): check that ${path.dirname(orphan)} exists and this ` +
          `user may write in it, or point TMPDIR \\(or XDG_RUNTIME_DIR\\) at a folder that does\\.$`,
      ),
    );
    expect((err as Error & { cause: unknown }).cause).toMatchObject({ code: "ENOENT" });
    const made = path.join(dir, "unreadable");
    jest.spyOn(fs, "lstatSync").mockImplementation(() => {
      throw Object.assign(new Error("EIO: i/o error, lstat"), { code: "EIO" });
    });
    expect(thrown(() => openPrivateDir(made, "the claims folder")).message).toBe(
      `the claims folder ${made} cannot be read (EIO: i/o error, lstat): check it (ls -ld '${made}').`,
    );
  });
});

describe("privateDirProblem", () => {
  const stats = (over: Partial<{ link: boolean; dir: boolean; uid: number; mode: number }>) =>
    ({
      isSymbolicLink: () => over.link ?? false,
      isDirectory: () => over.dir ?? true,
      uid: over.uid ?? 1000,
      mode: over.mode ?? 0o40700,
    }) as unknown as Stats;

  it("accepts this user's directory with no permission for group or others", () => {
    expect(privateDirProblem(stats({}), 1000)).toBeUndefined();
  });

  it("names any group or other permission, as four octal digits of the permission bits", () => {
    expect(privateDirProblem(stats({ mode: 0o40701 }), 1000)).toBe(
      "has mode 0701, which lets other users in",
    );
    expect(privateDirProblem(stats({ mode: 0o40770 }), 1000)).toBe(
      "has mode 0770, which lets other users in",
    );
    expect(privateDirProblem(stats({ mode: 0o41777 }), 1000)).toBe(
      "has mode 0777, which lets other users in",
    );
  });

  it("checks neither owner nor mode where there are no user IDs, but still refuses a link or a file", () => {
    expect(privateDirProblem(stats({ uid: 0, mode: 0o40777 }), undefined)).toBeUndefined();
    expect(privateDirProblem(stats({ link: true }), undefined)).toBe("is a symbolic link");
    expect(privateDirProblem(stats({ dir: false }), undefined)).toBe("is not a directory");
    expect(privateDirProblem(stats({ uid: 0 }), 1000)).toBe("is owned by uid 0, not by this user (uid 1000)");
  });
});

describe("createExclusive", () => {
  it("makes the file with its content, once; the second call finds it and changes nothing", () => {
    const file = path.join(dir, "lock");
    expect(createExclusive(file, "owner 1")).toBe(true);
    expect(createExclusive(file, "owner 2")).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("owner 1");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(["lock"]);
  });

  it("never writes through a link in the file's place", () => {
    const target = path.join(dir, "project.txt");
    writeFileSync(target, "another user's file");
    const file = path.join(dir, "lock");
    symlinkSync(target, file);
    expect(createExclusive(file, "owner 1")).toBe(false);
    expect(readFileSync(target, "utf8")).toBe("another user's file");
    expect(readdirSync(dir).sort()).toEqual(["lock", "project.txt"]);
  });

  it("a write that fails throws and leaves nothing behind", () => {
    const file = path.join(dir, "lock");
    jest.spyOn(fs, "writeSync").mockImplementation(() => {
      throw noSpaceError();
    });
    expect(thrown(() => createExclusive(file, "owner 1")).message).toMatch(/^ENOSPC/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("a folder that is gone throws the file system's error", () => {
    expect(
      (thrown(() => createExclusive(path.join(dir, "gone", "lock"), "x")) as NodeJS.ErrnoException).code,
    ).toBe("ENOENT");
  });

  it("a temporary file of the same name already there (not made by this call) is neither used nor removed", () => {
    const file = path.join(dir, "lock");
    jest.spyOn(crypto, "randomBytes").mockImplementation(() => Buffer.from("abcd"));
    const tmp = `${file}.${process.pid}.${Buffer.from("abcd").toString("hex")}.tmp`;
    writeFileSync(tmp, "someone's");
    expect(thrown(() => createExclusive(file, "owner 1")).message).toBe(
      `${tmp} exists already: run the operation again`,
    );
    expect(readFileSync(tmp, "utf8")).toBe("someone's");
    expect(readdirSync(dir)).toEqual([path.basename(tmp)]);
  });
});

describe("createOnly", () => {
  it("makes the file with its content once, and finds it the second time", () => {
    const file = path.join(dir, "id");
    expect(createOnly(file, "owner 1")).toBe(true);
    expect(createOnly(file, "owner 2")).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("owner 1");
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("a write that fails removes the file, so that no empty file reads as another owner's", () => {
    const file = path.join(dir, "id");
    jest.spyOn(fs, "writeSync").mockImplementation(() => {
      throw noSpaceError();
    });
    expect(thrown(() => createOnly(file, "owner 1")).message).toMatch(/^ENOSPC/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("writeAll", () => {
  it("goes on after a short write until every byte is written", () => {
    const file = path.join(dir, "list");
    const real = fs.writeSync.bind(fs) as (fd: number, buf: Buffer, offset: number, length: number) => number;
    const writes: number[] = [];
    jest.spyOn(fs, "writeSync").mockImplementation(((
      fd: number,
      buf: Buffer,
      offset: number,
      length: number,
    ) => {
      writes.push(offset);
      return real(fd, buf, offset, Math.min(3, length));
    }) as unknown as typeof fs.writeSync);
    const fd = fs.openSync(file, "w");
    try {
      writeAll(fd, "esb_1\nesb_é\n");
    } finally {
      fs.closeSync(fd);
    }
    jest.restoreAllMocks();
    expect(readFileSync(file, "utf8")).toBe("esb_1\nesb_é\n");
    expect(writes).toEqual([0, 3, 6, 9, 12]);
  });
});

describe("touch and readOr", () => {
  it("touch makes an empty private file, keeps one that is there, and refuses a link", () => {
    const file = path.join(dir, "mark");
    touch(file);
    expect(readFileSync(file, "utf8")).toBe("");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    writeFileSync(file, "kept");
    touch(file);
    expect(readFileSync(file, "utf8")).toBe("kept");
    const target = path.join(dir, "project.txt");
    writeFileSync(target, "another user's file");
    symlinkSync(target, path.join(dir, "link"));
    expect((thrown(() => touch(path.join(dir, "link"))) as NodeJS.ErrnoException).code).toBe("ELOOP");
  });

  it("readOr reads a file, and gives the fallback for one that is missing, a link or a folder", () => {
    const file = path.join(dir, "owner");
    writeFileSync(file, "owner 1");
    expect(readOr(file, "none")).toBe("owner 1");
    expect(readOr(path.join(dir, "missing"), "none")).toBe("none");
    symlinkSync(file, path.join(dir, "link"));
    expect(readOr(path.join(dir, "link"), "none")).toBe("none");
    mkdirSync(path.join(dir, "folder"));
    expect(readOr(path.join(dir, "folder"), "none")).toBe("none");
  });
});

describe("describe (an error's message in a warning)", () => {
  it("reads the message of an error of any realm or of an object that has one, and writes anything else as a string", () => {
    expect(describeError(new Error("EIO: i/o error"))).toBe("EIO: i/o error");
    expect(describeError(runInNewContext('new Error("from another realm")'))).toBe("from another realm");
    expect(describeError({ message: 42 })).toBe("42");
    expect(describeError("a thrown string")).toBe("a thrown string");
    expect(describeError(null)).toBe("null");
    expect(describeError(undefined)).toBe("undefined");
    expect(describeError({ code: "EIO" })).toBe("[object Object]");
  });
});

describe("no file left open, and errors that say what they are", () => {
  it("leaves no file open, whether a step succeeds, finds the file there or fails", () => {
    const before = openFiles();
    const file = path.join(dir, "lock");
    createExclusive(file, "owner 1");
    createExclusive(file, "owner 2");
    createOnly(path.join(dir, "id"), "owner 1");
    readOr(file, "none");
    mkdirSync(path.join(dir, "folder"));
    readOr(path.join(dir, "folder"), "none");
    const write = jest.spyOn(fs, "writeSync").mockImplementation(() => {
      throw noSpaceError();
    });
    expect(() => createExclusive(path.join(dir, "lock 2"), "x")).toThrow(/ENOSPC/);
    expect(() => createOnly(path.join(dir, "id 2"), "x")).toThrow(/ENOSPC/);
    write.mockRestore();
    expect(openFiles()).toBe(before);
  });

  it("a refusal is a ClaimsFolderError by name, and one of a folder that cannot be read keeps its cause", () => {
    const made = path.join(dir, "unreadable");
    const eio = Object.assign(new Error("EIO: i/o error, lstat"), { code: "EIO" });
    jest.spyOn(fs, "lstatSync").mockImplementation(() => {
      throw eio;
    });
    const err = thrown(() => openPrivateDir(made, "the claims folder"));
    expect(err.name).toBe("ClaimsFolderError");
    expect(err.cause).toBe(eio);
  });
});

describe("a file another process removes at the same moment", () => {
  it("is no error: createExclusive still reports the file made, createOnly still throws the write's error", () => {
    removedJustBefore();
    const file = path.join(dir, "lock");
    expect(createExclusive(file, "owner 1")).toBe(true);
    expect(readFileSync(file, "utf8")).toBe("owner 1");
    jest.spyOn(fs, "writeSync").mockImplementation(() => {
      throw noSpaceError();
    });
    expect(thrown(() => createOnly(path.join(dir, "id"), "owner 1")).message).toMatch(/^ENOSPC/);
  });
});

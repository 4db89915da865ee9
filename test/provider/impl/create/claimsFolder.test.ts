/**
 * Claims shared by the provider processes of one deployment (provider/impl/create/claimsFolder.ts):
 * IDs held once across owners, each kind's lookup alone across them, lost creates of other
 * owners counted as twins, entries of dead processes ignored, and nothing secret on disk. Two
 * registries on one folder stand for two plugin processes (the default provider and an explicit
 * one); without the folder, the same scenarios leave orphans, which is what the folder is for.
 *
 * And the folder never touches what is not this user's: a root (or folder, or key) of another
 * user, a link, or one open to others is refused and nothing under it is removed; clean-up
 * removes only this user's directories of dead engines, judged by PID and start time. (The waits on
 * another process's lock: folderLocks.test.ts.)
 */
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { ClaimRegistry, createOnce } from "../../../../provider/impl/create/createOnce";
import {
  ClaimsFolder,
  claimsRoot,
  deploymentClaimsFolder,
  formatIdentity,
  processIdentity,
} from "../../../../provider/impl/create/claimsFolder";
import {
  ClaimsService as Service,
  anotherUsersProject,
  claimsSpecFor as specFor,
  contents,
  deadPid,
  openFiles,
  state,
  thrown,
  type Thing as R,
} from "../../../helpers/claims-fixtures";

/** A user ID other than this process's, for folders "another user" made (the tests run as root). */
const OTHER_UID = 65534;

/** `text` as a regular expression matching it literally. */
const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function outcome(svc: Service, results: PromiseSettledResult<R>[]) {
  const held = results.flatMap((r) => (r.status === "fulfilled" ? [r.value.id] : []));
  return {
    failed: results.filter((r) => r.status === "rejected").length,
    shared: held.length - new Set(held).size,
    orphans: svc.stored.map((r) => r.id).filter((id) => !held.includes(id)).length,
  };
}

describe("ClaimsFolder: one deployment's claims across provider processes", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "claims-test-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("holds an ID for one owner only, shows it to the others, and lets only its holder give it back", () => {
    const a = new ClaimsFolder(dir);
    const b = new ClaimsFolder(dir);
    expect(a.tryClaim("thing_1")).toBe(true);
    expect(a.tryClaim("thing_1")).toBe(true);
    expect(b.tryClaim("thing_1")).toBe(false);
    expect(b.isClaimed("thing_1")).toBe(true);
    b.release("thing_1");
    expect(a.isClaimed("thing_1")).toBe(true);
    a.release("thing_1");
    expect(b.tryClaim("thing_1")).toBe(true);
  });

  it("takes an ID file another owner is still writing (empty) for that owner's: no one else claims or removes it", () => {
    const a = new ClaimsFolder(dir);
    writeFileSync(path.join(dir, "ids", "thing_2"), "");
    expect(a.tryClaim("thing_2")).toBe(false);
    expect(a.isClaimed("thing_2")).toBe(true);
    a.release("thing_2");
    expect(readdirSync(path.join(dir, "ids"))).toEqual(["thing_2"]);
  });

  it("writes one file per ID claimed, holding the owner's token, and nothing else", () => {
    const a = new ClaimsFolder(dir);
    for (let i = 0; i < 5; i++) expect(a.tryClaim(`thing_${i}`)).toBe(true);
    const ids = readdirSync(path.join(dir, "ids")).sort();
    expect(ids).toEqual(["thing_0", "thing_1", "thing_2", "thing_3", "thing_4"]);
    for (const id of ids) expect(readFileSync(path.join(dir, "ids", id), "utf8")).toBe(a.owner);
  });

  it("an ID the engine passed to one owner (held, one line in its list) is claimed for every other owner", () => {
    const a = new ClaimsFolder(dir);
    const b = new ClaimsFolder(dir);
    a.hold("thing_3");
    a.hold("thing_4");
    expect([b.isClaimed("thing_3"), b.isClaimed("thing_4"), b.isClaimed("thing_5")]).toEqual([
      true,
      true,
      false,
    ]);
    expect(b.tryClaim("thing_3")).toBe(false);
    expect(b.tryClaim("thing_5")).toBe(true);
    b.hold("thing_6"); // read by a, whose lists were read before
    expect(a.tryClaim("thing_6")).toBe(false);
    expect(readdirSync(path.join(dir, "ids"))).toEqual(["thing_5"]);
    a.close();
    b.close();
  });

  it("a line of another owner's list still being written is not read until it is whole", () => {
    const a = new ClaimsFolder(dir);
    const list = path.join(dir, "held", "9-other");
    writeFileSync(list, "thing_7");
    expect(a.isClaimed("thing_7")).toBe(false);
    writeFileSync(list, "thing_7\nthing_8");
    expect([a.isClaimed("thing_7"), a.isClaimed("thing_8")]).toEqual([true, false]);
  });

  it("runs a kind's lookup alone: it waits for the others' creates in flight, and new creates wait for it", async () => {
    const a = new ClaimsFolder(dir);
    const b = new ClaimsFolder(dir);
    await a.enterSend("thing");
    const lookup = b.enterLookup("thing");
    expect(await state(lookup)).toBe("pending");
    a.leaveSend("thing");
    expect(await state(lookup)).toBe("settled");
    const send = a.enterSend("thing");
    expect(await state(send)).toBe("pending");
    // Another kind is not held up.
    expect(await state(a.enterSend("other"))).toBe("settled");
    b.leaveLookup("thing");
    expect(await state(send)).toBe("settled");
  });

  it("ignores the lock, the creates in flight and the waiting creates of a process that has died", async () => {
    const dead = new ClaimsFolder(dir, deadPid());
    const live = new ClaimsFolder(dir);
    await dead.enterLookup("thing");
    expect(await state(live.enterSend("thing"))).toBe("settled");
    live.leaveSend("thing");
    dead.addWaiting("thing", { fingerprint: "f" });
    expect(live.othersWaiting("thing")).toEqual([]);
    await dead.enterSend("thing");
    expect(await state(live.enterLookup("thing"))).toBe("settled");
  });

  it("lists the other owners' waiting creates of a kind, not its own, until they are removed", () => {
    const a = new ClaimsFolder(dir);
    const b = new ClaimsFolder(dir);
    const token = a.addWaiting("thing", { matchKey: "m", fingerprint: "f" });
    a.addWaiting("other", { fingerprint: "g" });
    expect(b.othersWaiting("thing")).toEqual([{ matchKey: "m", fingerprint: "f" }]);
    expect(a.othersWaiting("thing")).toEqual([]);
    a.removeWaiting(token);
    expect(b.othersWaiting("thing")).toEqual([]);
  });

  it("hashes with one key per deployment: the same in every owner, another in another folder", () => {
    const other = mkdtempSync(path.join(tmpdir(), "claims-test-"));
    try {
      expect(new ClaimsFolder(dir).hash("x")).toBe(new ClaimsFolder(dir).hash("x"));
      expect(new ClaimsFolder(other).hash("x")).not.toBe(new ClaimsFolder(dir).hash("x"));
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("names a deployment's folder after its engine (PID and start time), and removes those of engines no longer running", () => {
    expect(deploymentClaimsFolder(undefined, process.pid, dir)).toBeUndefined();
    // Named as before start times were kept (`<pid>-<hash>`), and as now.
    const stale = path.join(dir, `${deadPid()}-0123456789abcdef`);
    const staleNow = path.join(dir, `${formatIdentity(processIdentity(deadPid()))}-0123456789abcdef`);
    mkdirSync(stale);
    mkdirSync(staleNow);
    const first = deploymentClaimsFolder("127.0.0.1:4000", process.pid, dir)!;
    expect(path.basename(first.dir)).toMatch(new RegExp(`^${process.pid}\\.\\d+\\.\\d+-[0-9a-f]{16}$`));
    expect(first.tryClaim("thing_1")).toBe(true);
    const again = deploymentClaimsFolder("127.0.0.1:4000", process.pid, dir)!;
    expect(again.dir).toBe(first.dir);
    expect(again.isClaimed("thing_1")).toBe(true);
    expect(deploymentClaimsFolder("127.0.0.1:4001", process.pid, dir)!.dir).not.toBe(first.dir);
    expect(readdirSync(dir)).not.toContain(path.basename(stale));
    expect(readdirSync(dir)).not.toContain(path.basename(staleNow));
  });
});

describe("claimsRoot: a folder of this user's own", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "claims-root-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("is under XDG_RUNTIME_DIR when that is a private folder of this user's, else in the temporary folder, named after the user", () => {
    const uid = process.getuid!();
    const privateRoot = claimsRoot({ XDG_RUNTIME_DIR: dir });
    expect(privateRoot).toBe(path.join(dir, "pulumi-service-claims"));
    const fallback = path.join(tmpdir(), `pulumi-service-claims-${uid}`);
    expect(claimsRoot({})).toBe(fallback);
    // An XDG_RUNTIME_DIR others may enter, or another user's, is not used.
    chmodSync(dir, 0o755);
    expect(claimsRoot({ XDG_RUNTIME_DIR: dir })).toBe(fallback);
    chmodSync(dir, 0o700);
    chownSync(dir, OTHER_UID, OTHER_UID);
    expect(claimsRoot({ XDG_RUNTIME_DIR: dir })).toBe(fallback);
  });
});

describe("deploymentClaimsFolder never touches what is not this user's", () => {
  let base: string;
  let project: string;
  beforeEach(() => {
    base = mkdtempSync(path.join(tmpdir(), "claims-refuse-"));
    project = anotherUsersProject(mkdtempSync(path.join(tmpdir(), "claims-project-")));
  });
  afterEach(() => {
    rmSync(base, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  });

  it("refuses a root owned by another user, saying where, what is wrong and what to run, and removes nothing under it", () => {
    const root = path.join(base, "pulumi-service-claims-0");
    mkdirSync(root, { mode: 0o700 });
    // Named as a dead engine's folder: the old clean-up removed it.
    const theirs = path.join(root, `${deadPid()}-0123456789abcdef`);
    mkdirSync(theirs);
    writeFileSync(path.join(theirs, "notes"), "theirs");
    chownSync(theirs, OTHER_UID, OTHER_UID);
    chownSync(root, OTHER_UID, OTHER_UID);
    const before = contents(root);
    expect(() => deploymentClaimsFolder("127.0.0.1:4000", process.pid, root)).toThrow(
      new RegExp(
        `the claims root ${literally(root)} is owned by uid ${OTHER_UID}, not by this user \\(uid ${process.getuid!()}\\).*sudo rm -r '${literally(root)}'`,
      ),
    );
    expect(contents(root)).toBe(before);
  });

  it("refuses a root that is a link (to another user's project): the project keeps every file", () => {
    const root = path.join(base, "pulumi-service-claims-0");
    symlinkSync(project, root);
    const before = contents(project);
    expect(() => deploymentClaimsFolder("127.0.0.1:4000", process.pid, root)).toThrow(
      new RegExp(
        `the claims root ${literally(root)} is a symbolic link, so it is not used and nothing in it is touched.*rm '${literally(root)}'`,
      ),
    );
    expect(contents(project)).toBe(before);
    expect(lstatSync(root).isSymbolicLink()).toBe(true);
  });

  it("refuses a root that others may write in (mode 0777), and removes nothing under it", () => {
    const root = path.join(base, "pulumi-service-claims-0");
    mkdirSync(root);
    chmodSync(root, 0o777);
    mkdirSync(path.join(root, `${deadPid()}-0123456789abcdef`));
    const before = contents(root);
    expect(() => deploymentClaimsFolder("127.0.0.1:4000", process.pid, root)).toThrow(
      new RegExp(
        `the claims root ${literally(root)} has mode 0777, which lets other users in.*rm -r '${literally(root)}'`,
      ),
    );
    expect(contents(root)).toBe(before);
  });

  it("cleans only this user's directories of dead engines: a link named as one, and another user's folder, are left, and nothing is followed", () => {
    const root = path.join(base, "root");
    mkdirSync(root, { mode: 0o700 });
    const link = path.join(root, `${deadPid()}-0123456789abcdef`);
    symlinkSync(project, link);
    const othersFolder = path.join(root, `${deadPid()}-1111111111111111`);
    mkdirSync(othersFolder);
    chownSync(othersFolder, OTHER_UID, OTHER_UID);
    const mine = path.join(root, `${deadPid()}-2222222222222222`);
    mkdirSync(mine);
    const before = contents(project);
    deploymentClaimsFolder("127.0.0.1:4000", process.pid, root);
    expect(contents(project)).toBe(before);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(existsSync(othersFolder)).toBe(true);
    expect(existsSync(mine)).toBe(false);
  });

  it("cleans the folder of an engine whose PID now runs another process (another start time), keeps the live engine's, and leaves another container's", () => {
    const root = path.join(base, "root");
    mkdirSync(root, { mode: 0o700 });
    const me = processIdentity(process.pid);
    const live = path.join(root, `${formatIdentity(me)}-aaaaaaaaaaaaaaaa`);
    const reused = path.join(
      root,
      `${formatIdentity({ ...me, startTime: String(Number(me.startTime) + 1) })}-bbbbbbbbbbbbbbbb`,
    );
    const otherContainer = path.join(
      root,
      `${formatIdentity({ pid: deadPid(), startTime: "1", pidNamespace: "1" })}-cccccccccccccccc`,
    );
    for (const d of [live, reused, otherContainer]) {
      mkdirSync(d);
      writeFileSync(path.join(d, "key"), "k");
    }
    deploymentClaimsFolder("127.0.0.1:4000", process.pid, root);
    expect([existsSync(live), existsSync(reused), existsSync(otherContainer)]).toEqual([true, false, true]);
  });

  it("refuses a deployment folder whose sub-folder or key is a link (to another user's project), and writes nothing there", () => {
    const dir = path.join(base, "deployment");
    mkdirSync(dir, { mode: 0o700 });
    symlinkSync(project, path.join(dir, "ids"));
    const before = contents(project);
    expect(() => new ClaimsFolder(dir)).toThrow(
      new RegExp(`the claims folder ${literally(path.join(dir, "ids"))} is a symbolic link`),
    );
    rmSync(path.join(dir, "ids"));
    symlinkSync(path.join(project, "index.ts"), path.join(dir, "key"));
    expect(() => new ClaimsFolder(dir)).toThrow(
      new RegExp(
        `the claims folder's key ${literally(path.join(dir, "key"))} is a symbolic link, so it is not used.*rm -r '${literally(dir)}'`,
      ),
    );
    expect(contents(project)).toBe(before);
  });

  it("refuses a deployment folder's key that others may read", () => {
    const dir = path.join(base, "deployment");
    new ClaimsFolder(dir);
    chmodSync(path.join(dir, "key"), 0o644);
    expect(() => new ClaimsFolder(dir)).toThrow(/key .* has mode 0644, not 0600/);
  });
});

describe("createOnce in two provider processes of one deployment (two registries, one folder)", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "claims-test-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Two registries, sharing `dir` when `shared`. */
  function processes(shared: boolean): [ClaimRegistry, ClaimRegistry] {
    const a = new ClaimRegistry();
    const b = new ClaimRegistry();
    if (shared) {
      a.share(new ClaimsFolder(dir));
      b.share(new ClaimsFolder(dir));
    }
    return [a, b];
  }

  const BOTH_LOST = [
    { lost: true, afterMs: 20 },
    { lost: true, afterMs: 20 },
  ];
  const ONE_LOST_ONE_IN_FLIGHT = [
    { lost: true, afterMs: 5 },
    { lost: false, afterMs: 300 },
  ];
  it.each([
    ["both answers lost: each process adopts one of the two identical resources", BOTH_LOST, true, 0],
    ["both answers lost, one registry per process as before: both fail, both orphaned", BOTH_LOST, false, 2],
    [
      "one answer lost while the other process's create is still in flight: the lookup waits for it",
      ONE_LOST_ONE_IN_FLIGHT,
      true,
      0,
    ],
    [
      "one answer lost while the other's is in flight, one registry per process: the lookup fails",
      ONE_LOST_ONE_IN_FLIGHT,
      false,
      1,
    ],
  ])("%s", async (_name, answers, shared, lost) => {
    const svc = new Service();
    const registries = processes(shared);
    const results = await Promise.allSettled(
      registries.map((registry, i) => createOnce(specFor(svc, registry, answers[i]))),
    );
    // Every create that fails leaves the resource it made behind, named in its error.
    expect(outcome(svc, results)).toEqual({ failed: lost, shared: 0, orphans: lost });
  });

  it("two lost creates that differ only in a write-only secret: neither process takes what they made, and no secret reaches the folder", async () => {
    const svc = new Service();
    const [a, b] = processes(true);
    const results = await Promise.allSettled([
      createOnce(specFor(svc, a, { lost: true, afterMs: 20 }, "dd-secret-of-a")),
      createOnce(specFor(svc, b, { lost: true, afterMs: 20 }, "dd-secret-of-b")),
    ]);
    // The first lookup names both and takes neither; the other create then finds none free and makes its own.
    expect(results[0].status).toBe("rejected");
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/write-only secret/);
    expect(results[1]).toMatchObject({ status: "fulfilled", value: { id: "thing_3" } });
    expect(contents(dir)).not.toMatch(/dd-secret/);
  });

  it("an ID one process holds is never adopted by the other's lookup", async () => {
    const svc = new Service();
    const [a, b] = processes(true);
    const held = await svc.create("same", { lost: false, afterMs: 0 });
    a.claim(held.id);
    const results = await Promise.allSettled([createOnce(specFor(svc, b, { lost: true, afterMs: 5 }))]);
    expect(results[0]).toMatchObject({ status: "fulfilled", value: { id: "thing_2" } });
    expect(b.isClaimed(held.id)).toBe(true);
  });
});

describe("ClaimsFolder's lists of held IDs and its key, byte by byte", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "claims-lists-"));
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Node.js's own file system module (not a copy), whose functions the claims folder calls: faults are injected there. */
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const fs = require("node:fs") as typeof import("node:fs");

  it("writes one line per ID held, and an owner's own held ID is its to claim and is claimed", () => {
    const a = new ClaimsFolder(dir);
    a.hold("thing_1");
    a.hold("thing_2");
    expect(readFileSync(path.join(dir, "held", a.owner), "utf8")).toBe("thing_1\nthing_2\n");
    expect(a.isClaimed("thing_1")).toBe(true);
    expect(a.tryClaim("thing_1")).toBe(true);
    a.close();
  });

  it("reads another owner's list from where it stopped, a line only once it is whole, and no ID from the middle of a line", () => {
    const a = new ClaimsFolder(dir);
    const list = path.join(dir, "held", "9-other");
    writeFileSync(list, "thing_7\nthing_8");
    expect([a.isClaimed("thing_7"), a.isClaimed("thing_8"), a.isClaimed("thing_")]).toEqual([
      true,
      false,
      false,
    ]);
    writeFileSync(list, "thing_7\nthing_8\n");
    expect(a.isClaimed("thing_8")).toBe(true);
    writeFileSync(list, "thing_7\nthing_8\nthing_9\n");
    expect([a.isClaimed("thing_9"), a.isClaimed("7"), a.isClaimed("8")]).toEqual([true, false, false]);
  });

  it("a line after one cut short (a full disk) starts a line of its own, and the lines after it still read", () => {
    const a = new ClaimsFolder(dir);
    const b = new ClaimsFolder(dir);
    a.hold("thing_1");
    const write = fs.writeSync;
    jest.spyOn(fs, "writeSync").mockImplementationOnce(((fd: number, buf: Buffer, offset: number) => {
      (write as (fd: number, buf: Buffer, offset: number, length: number) => number)(fd, buf, offset, 3);
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    }) as unknown as typeof fs.writeSync);
    expect(() => a.hold("thing_2")).toThrow(/ENOSPC/);
    a.hold("thing_3");
    a.hold("thing_4");
    expect(readFileSync(path.join(dir, "held", a.owner), "utf8")).toBe("thing_1\nthi\nthing_3\nthing_4\n");
    expect([b.isClaimed("thing_3"), b.isClaimed("thing_4")]).toEqual([true, true]);
    a.close();
  });

  it("leaves no file open: reading the others' lists, or once closed, its own", () => {
    const a = new ClaimsFolder(dir);
    const b = new ClaimsFolder(dir);
    b.hold("thing_1");
    const before = openFiles();
    for (let i = 0; i < 20; i++) a.isClaimed(`thing_${i + 2}`);
    expect(openFiles()).toBe(before);
    a.hold("thing_30");
    expect(openFiles()).toBe(before + 1);
    a.close();
    expect(openFiles()).toBe(before);
    b.close();
  });

  it("refuses a folder that is a file, naming it as the claims folder", () => {
    const file = path.join(dir, "file");
    writeFileSync(file, "mine");
    expect(() => new ClaimsFolder(file)).toThrow(
      new RegExp(`^the claims folder ${literally(file)} is not a directory`),
    );
  });

  describe("refuses a key it cannot trust or read, saying why, with the cause", () => {
    const key = () => path.join(dir, "key");

    it("a key that is a folder, or that holds no key", () => {
      mkdirSync(key());
      expect(thrown(() => new ClaimsFolder(dir)).message).toBe(
        `the claims folder's key ${key()} is not a regular file, so it is not used. If it is yours, remove the folder ` +
          `(rm -r '${dir}') and run the operation again.`,
      );
      rmSync(key(), { recursive: true });
      new ClaimsFolder(dir);
      const good = readFileSync(key(), "utf8");
      for (const bad of [`${good}\n`, `x${good}`, good.slice(1), good.toUpperCase()]) {
        writeFileSync(key(), bad);
        expect(thrown(() => new ClaimsFolder(dir)).message).toMatch(
          /does not hold a key \(64 hexadecimal digits\)/,
        );
      }
    });

    it("a key of another user's", () => {
      new ClaimsFolder(dir);
      chownSync(key(), OTHER_UID, OTHER_UID);
      expect(thrown(() => new ClaimsFolder(dir)).message).toMatch(
        new RegExp(
          `key ${literally(key())} is owned by uid ${OTHER_UID}, not by this user \\(uid ${process.getuid!()}\\)`,
        ),
      );
    });

    it("a key that cannot be made or read, with the file system's error as the cause", () => {
      const eperm = Object.assign(new Error("EPERM: operation not permitted, link"), { code: "EPERM" });
      jest.spyOn(fs, "linkSync").mockImplementationOnce(() => {
        throw eperm;
      });
      const made = thrown(() => new ClaimsFolder(dir));
      expect(made.message).toBe(
        `the claims folder's key ${key()} cannot be made (EPERM: operation not permitted, link), so it is not used. If it ` +
          `is yours, remove the folder (rm -r '${dir}') and run the operation again.`,
      );
      expect(made.cause).toBe(eperm);
      jest.restoreAllMocks();
      new ClaimsFolder(dir);
      const eacces = Object.assign(new Error("EACCES: permission denied, open"), { code: "EACCES" });
      const open = fs.openSync;
      jest.spyOn(fs, "openSync").mockImplementation(((p: string, ...rest: unknown[]) => {
        if (p === key()) throw eacces;
        return (open as (...args: unknown[]) => number)(p, ...rest);
      }) as typeof fs.openSync);
      const read = thrown(() => new ClaimsFolder(dir));
      expect(read.message).toMatch(
        /key .* cannot be read \(EACCES: permission denied, open\), so it is not used/,
      );
      expect(read.cause).toBe(eacces);
    });
  });

  it("where there are no user IDs, owners and modes are not checked: a key others may read is used, and dead engines' folders are cleaned", () => {
    const root = path.join(dir, "root");
    mkdirSync(root, { mode: 0o700 });
    const dead = path.join(root, `${formatIdentity(processIdentity(deadPid()))}-0123456789abcdef`);
    mkdirSync(dead);
    const folder = path.join(dir, "deployment");
    new ClaimsFolder(folder);
    chmodSync(path.join(folder, "key"), 0o644);
    jest.spyOn(process, "getuid").mockReturnValue(undefined as unknown as number);
    expect(new ClaimsFolder(folder).hash("x")).toHaveLength(64);
    deploymentClaimsFolder("127.0.0.1:4000", process.pid, root);
    expect(existsSync(dead)).toBe(false);
  });

  it("where there are no user IDs, the root is one folder in the temporary folder", () => {
    jest.spyOn(process, "getuid").mockReturnValue(undefined as unknown as number);
    expect(claimsRoot({ XDG_RUNTIME_DIR: dir })).toBe(path.join(tmpdir(), "pulumi-service-claims"));
  });

  it("clean-up removes a dead engine's folder with its files, and leaves a folder whose name is no engine's", () => {
    const root = path.join(dir, "root");
    mkdirSync(root, { mode: 0o700 });
    const dead = path.join(root, `${formatIdentity(processIdentity(deadPid()))}-0123456789abcdef`);
    mkdirSync(path.join(dead, "ids"), { recursive: true });
    writeFileSync(path.join(dead, "ids", "thing_1"), "owner");
    const noAddress = path.join(root, String(deadPid()));
    mkdirSync(noAddress);
    deploymentClaimsFolder("127.0.0.1:4000", process.pid, root);
    expect([existsSync(dead), existsSync(noAddress)]).toEqual([false, true]);
  });
});

describe("ClaimsFolder's key leaves no file open", () => {
  it("whether the key is read or refused", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "claims-key-fd-"));
    try {
      const before = openFiles();
      new ClaimsFolder(dir);
      new ClaimsFolder(dir);
      writeFileSync(path.join(dir, "key"), "not a key");
      expect(() => new ClaimsFolder(dir)).toThrow(/does not hold a key/);
      expect(openFiles()).toBe(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

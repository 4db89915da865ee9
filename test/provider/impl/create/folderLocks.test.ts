/**
 * The kinds' locks of a deployment's claims folder (provider/impl/create/folderLocks.ts): every
 * wait on another process's lock or mark ends within its bound with an error naming the lock file
 * and its holder, leaves no lock behind, and a lock whose holder's PID now runs another process is
 * not waited for.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { ClaimRegistry, createOnce } from "../../../../provider/impl/create/createOnce";
import {
  ClaimsFolder,
  ClaimsLockTimeoutError,
  formatIdentity,
  processIdentity,
} from "../../../../provider/impl/create/claimsFolder";
import {
  ClaimsService as Service,
  afterPolls,
  claimsSpecFor as specFor,
  deadPid,
  removedJustBefore,
  sleep,
} from "../../../helpers/claims-fixtures";
import { useTempDir } from "../../../helpers/temp-dir";

/** Node.js's own file system module (not a copy), whose functions the claims folder calls: faults are injected there. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs = require("node:fs") as typeof import("node:fs");

describe("a wait on another process's lock ends within its bound, naming the lock and its holder", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "claims-wait-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const BOUND_MS = 200;
  /** `p`, or "still waiting" after 5 s: on a wait with no bound the test fails instead of hanging. */
  const orStillWaiting = (p: Promise<unknown>) => Promise.race([p, sleep(5_000).then(() => "still waiting")]);

  it("a create waits no longer than the bound for a live process's lookup, and its error names the lock file and the holder", async () => {
    const holder = new ClaimsFolder(dir);
    const waiter = new ClaimsFolder(dir, process.pid, { lockWaitMs: BOUND_MS });
    await holder.enterLookup("thing");
    const started = Date.now();
    const err = await orStillWaiting(waiter.enterSend("thing")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClaimsLockTimeoutError);
    expect(Date.now() - started).toBeLessThan(BOUND_MS + 1_000);
    const message = (err as Error).message;
    expect(message).toContain(path.join(dir, "looking", "thing"));
    expect(message).toContain(holder.owner);
    expect(message).toMatch(new RegExp(`process ${process.pid}, still running.*nothing was made.*rm '`));
    // Once the lookup ends, creates go on.
    holder.leaveLookup("thing");
    expect(await orStillWaiting(waiter.enterSend("thing"))).toBeUndefined();
  });

  it("a lookup waits no longer than the bound for a live process's creates in flight, and leaves no lock behind", async () => {
    const holder = new ClaimsFolder(dir);
    const waiter = new ClaimsFolder(dir, process.pid, { lockWaitMs: BOUND_MS });
    await holder.enterSend("thing");
    const err = await orStillWaiting(waiter.enterLookup("thing")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClaimsLockTimeoutError);
    const message = (err as Error).message;
    expect(message).toContain(path.join(dir, "sending", `thing.${holder.owner}`));
    expect(message).toMatch(/may have made a "thing" this deployment does not hold/);
    expect(readdirSync(path.join(dir, "looking"))).toEqual([]);
  });

  it("createOnce fails with the lock's error, having sent nothing, and the kind's creates go on once the lock is let go", async () => {
    const svc = new Service();
    const holder = new ClaimsFolder(dir);
    const registry = new ClaimRegistry();
    registry.share(new ClaimsFolder(dir, process.pid, { lockWaitMs: BOUND_MS }));
    await holder.enterLookup("thing");
    const spec = specFor(svc, registry, { lost: false, afterMs: 0 });
    const first = await orStillWaiting(createOnce(spec)).catch((e: unknown) => e);
    expect(String(first)).toContain(path.join(dir, "looking", "thing"));
    expect(svc.stored).toEqual([]);
    holder.leaveLookup("thing");
    expect(await orStillWaiting(createOnce(spec))).toMatchObject({ id: "thing_1" });
    // The failed wait counts no create of the kind in flight: a lookup of this process runs.
    expect(await orStillWaiting(registry.gate("thing").enterLookup())).toBeUndefined();
  });

  it("a lock whose holder's PID now runs another process (another start time) is not waited for", async () => {
    const me = processIdentity(process.pid);
    const reused = `${formatIdentity({ ...me, startTime: String(Number(me.startTime) + 1) })}-0123456789ab`;
    const live = `${formatIdentity(me)}-0123456789ab`;
    const waiter = new ClaimsFolder(dir, process.pid, { lockWaitMs: BOUND_MS });
    writeFileSync(path.join(dir, "looking", "thing"), reused);
    expect(await orStillWaiting(waiter.enterSend("thing"))).toBeUndefined();
    waiter.leaveSend("thing");
    // The same PID at its own start time is the live holder: waited for, to the bound.
    writeFileSync(path.join(dir, "looking", "thing"), live);
    await expect(orStillWaiting(waiter.enterSend("thing"))).rejects.toThrow(ClaimsLockTimeoutError);
  });
});

describe("a kind's marks and lock in the folder, owner by owner", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "claims-locks-"));
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  const BOUND_MS = 200;
  const lookingFile = () => path.join(dir, "looking", "thing");

  it("keeps an owner's mark of creates in flight until the last of them settles", async () => {
    const a = new ClaimsFolder(dir);
    const b = new ClaimsFolder(dir);
    await a.enterSend("thing");
    await a.enterSend("thing");
    expect(readdirSync(path.join(dir, "sending"))).toEqual([`thing.${a.owner}`]);
    const lookup = b.enterLookup("thing");
    a.leaveSend("thing");
    expect(await afterPolls(lookup)).toBe("pending");
    a.leaveSend("thing");
    expect(await afterPolls(lookup)).toBe("settled");
    expect(readdirSync(path.join(dir, "sending"))).toEqual([]);
  });

  it("a create whose mark met a lookup that took the lock meanwhile removes its mark and waits for that lookup", async () => {
    const a = new ClaimsFolder(dir);
    const b = new ClaimsFolder(dir);
    // b's lookup takes the lock just after a's check, as a's mark is being made.
    const open = fs.openSync.bind(fs);
    jest.spyOn(fs, "openSync").mockImplementation(((file: string, ...rest: unknown[]) => {
      const fd = (open as (...args: unknown[]) => number)(file, ...rest);
      if (String(file).includes(`${path.sep}sending${path.sep}`) && !existsSync(lookingFile()))
        writeFileSync(lookingFile(), b.owner);
      return fd;
    }) as typeof fs.openSync);
    const send = a.enterSend("thing");
    expect(await afterPolls(send)).toBe("pending");
    jest.restoreAllMocks();
    // b's lookup sees no create of a's in flight: it runs; once it ends, a's create goes on.
    expect(readdirSync(path.join(dir, "sending"))).toEqual([]);
    b.leaveLookup("thing");
    expect(await afterPolls(send)).toBe("settled");
    expect(readdirSync(path.join(dir, "sending"))).toEqual([`thing.${a.owner}`]);
  });

  it("an owner's lookup lock is its own: its creates are not held by it, and only it removes it", async () => {
    const a = new ClaimsFolder(dir);
    const b = new ClaimsFolder(dir);
    await a.enterLookup("thing");
    expect(await afterPolls(a.enterSend("thing"))).toBe("settled");
    a.leaveSend("thing");
    b.leaveLookup("thing");
    expect(readFileSync(lookingFile(), "utf8")).toBe(a.owner);
    a.leaveLookup("thing");
    expect(existsSync(lookingFile())).toBe(false);
  });

  it("a lock held past the bound by a process of another PID namespace is named as one it cannot see", async () => {
    const me = processIdentity(process.pid);
    const holder = `${formatIdentity({ ...me, pidNamespace: "1" })}-0123456789ab`;
    const waiter = new ClaimsFolder(dir, process.pid, { lockWaitMs: BOUND_MS });
    writeFileSync(lookingFile(), holder);
    const err = await waiter.enterLookup("thing").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClaimsLockTimeoutError);
    expect((err as ClaimsLockTimeoutError).holder).toBe(holder);
    expect((err as Error).message).toBe(
      `claims folder: waited ${BOUND_MS} ms for another provider process's lookup of "thing" to end, held by ${holder} ` +
        `(process ${process.pid} of another PID namespace, which this provider cannot see) in ${lookingFile()}. This lookup, ` +
        `of a create whose answer was lost, did not run: that create may have made a "thing" this deployment does not hold. ` +
        `Look for one with its values and delete it or adopt it with adoptId. If that process is stuck, end it ` +
        `(kill ${process.pid}); if no pulumi operation of this stack is running, remove the file (rm '${lookingFile()}'). ` +
        `Then run pulumi up again.`,
    );
    expect(readFileSync(lookingFile(), "utf8")).toBe(holder);
  });

  it("a lock file with no owner in it yet is waited for to the bound, and its holder named as one it cannot name", async () => {
    const waiter = new ClaimsFolder(dir, process.pid, { lockWaitMs: BOUND_MS });
    writeFileSync(lookingFile(), "");
    const err = await waiter.enterLookup("thing").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClaimsLockTimeoutError);
    expect((err as Error).message).toContain(
      `held by  (an owner this provider cannot name) in ${lookingFile()}.`,
    );
    expect((err as Error).message).toContain(
      `adopt it with adoptId. If no pulumi operation of this stack is running, remove the file (rm '${lookingFile()}').`,
    );
  });

  it("skips entries being written (.tmp) and entries that cannot be read as a waiting create", () => {
    const a = new ClaimsFolder(dir);
    const b = new ClaimsFolder(dir);
    a.addWaiting("thing", { fingerprint: "f" });
    writeFileSync(path.join(dir, "waiting", `thing.${a.owner}.7.tmp`), '{"fingerprint":"being written"}');
    writeFileSync(path.join(dir, "waiting", `thing.${a.owner}.8`), "{");
    writeFileSync(path.join(dir, "sending", `thing.${a.owner}.tmp`), "");
    a.addWaiting("thing2", { fingerprint: "g" });
    expect(b.othersWaiting("thing")).toEqual([{ fingerprint: "f" }]);
    // A mark being written is no create in flight.
    expect(readdirSync(path.join(dir, "sending"))).toHaveLength(1);
    return expect(afterPolls(b.enterLookup("thing"))).resolves.toBe("settled");
  });
});

describe("the lock errors, word for word", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "claims-words-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("a create's wait names the lookup it waited for and that nothing was made; a lookup's, the creates in flight", async () => {
    const holder = new ClaimsFolder(dir);
    const waiter = new ClaimsFolder(dir, process.pid, { lockWaitMs: 100 });
    const looking = path.join(dir, "looking", "thing");
    await holder.enterLookup("thing");
    const send = (await waiter.enterSend("thing").catch((e: unknown) => e)) as ClaimsLockTimeoutError;
    expect(send.name).toBe("ClaimsLockTimeoutError");
    expect(send.path).toBe(looking);
    expect(send.message).toBe(
      `claims folder: waited 100 ms for another provider process's lookup of "thing" to end, held by ${holder.owner} ` +
        `(process ${process.pid}, still running) in ${looking}. The create of a "thing" was not sent: nothing was made. ` +
        `If that process is stuck, end it (kill ${process.pid}); if no pulumi operation of this stack is running, remove ` +
        `the file (rm '${looking}'). Then run pulumi up again.`,
    );
    holder.leaveLookup("thing");
    await holder.enterSend("thing");
    const sending = path.join(dir, "sending", `thing.${holder.owner}`);
    const lookup = (await waiter.enterLookup("thing").catch((e: unknown) => e)) as ClaimsLockTimeoutError;
    expect(lookup.message).toBe(
      `claims folder: waited 100 ms for another provider process's creates of "thing" in flight to settle, held by ` +
        `${holder.owner} (process ${process.pid}, still running) in ${sending}. This lookup, of a create whose answer was ` +
        `lost, did not run: that create may have made a "thing" this deployment does not hold. Look for one with its ` +
        `values and delete it or adopt it with adoptId. If that process is stuck, end it (kill ${process.pid}); if no ` +
        `pulumi operation of this stack is running, remove the file (rm '${sending}'). Then run pulumi up again.`,
    );
  });
});

describe("a lock, mark or entry another process removes at the same moment", () => {
  const tmp = useTempDir("claims-race-");
  afterEach(() => jest.restoreAllMocks());

  it("is no error: an owner's own lock, mark, waiting entry and ID, and those of a dead owner", async () => {
    const dead = new ClaimsFolder(tmp(), deadPid());
    await dead.enterLookup("looked");
    await dead.enterSend("sent");
    dead.addWaiting("waited", { fingerprint: "f" });
    const live = new ClaimsFolder(tmp());
    expect(live.tryClaim("thing_1")).toBe(true);
    removedJustBefore();
    await live.enterLookup("mine");
    live.leaveLookup("mine");
    await live.enterSend("mine");
    live.leaveSend("mine");
    live.removeWaiting(live.addWaiting("mine", { fingerprint: "g" }));
    live.release("thing_1");
    // The dead owner's lock, mark and entry are removed as they are met.
    await live.enterSend("looked");
    live.leaveSend("looked");
    await live.enterLookup("sent");
    live.leaveLookup("sent");
    expect(live.othersWaiting("waited")).toEqual([]);
    for (const sub of ["ids", "looking", "sending", "waiting"])
      expect(readdirSync(path.join(tmp(), sub))).toEqual([]);
  });
});

describe("a bound of 0 ms", () => {
  const tmp = useTempDir("claims-zero-");
  afterEach(() => jest.restoreAllMocks());

  it("waits not at all: at the very moment of the call, the lock's error", async () => {
    const holder = new ClaimsFolder(tmp());
    const waiter = new ClaimsFolder(tmp(), process.pid, { lockWaitMs: 0 });
    await holder.enterLookup("looked");
    await holder.enterSend("sent");
    const now = Date.now();
    jest.spyOn(Date, "now").mockReturnValue(now);
    const within = (p: Promise<unknown>) => Promise.race([p, sleep(2_000).then(() => "still waiting")]);
    await expect(within(waiter.enterSend("looked"))).rejects.toThrow(ClaimsLockTimeoutError);
    await expect(within(waiter.enterLookup("sent"))).rejects.toThrow(ClaimsLockTimeoutError);
    await expect(within(waiter.enterLookup("looked"))).rejects.toThrow(ClaimsLockTimeoutError);
  });
});

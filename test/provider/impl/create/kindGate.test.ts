/**
 * One kind's gate (provider/impl/create/kindGate.ts), met through the registry that makes it: the
 * creates of a kind are sent side by side, a lookup runs alone once they have settled and holds
 * back new creates while it waits and runs; shared with a claims folder, the same holds against
 * another process of the deployment. A folder that fails is warned about (naming the folder, the
 * kind and the cause) and never holds the gate; a wait past the folder's bound fails only that
 * create or lookup, and the gate goes on. The creates waiting to look are counted once, shown to
 * the other processes as hashes, and each process's twins are found by their values.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { ClaimRegistry } from "../../../../provider/impl/create/claims";
import { ClaimsFolder, ClaimsLockTimeoutError } from "../../../../provider/impl/create/claimsFolder";
import type { KindGate } from "../../../../provider/impl/create/kindGate";
import type { Waiter } from "../../../../provider/impl/create/createOnceSpec";
import { afterPolls, state } from "../../../helpers/claims-fixtures";
import { useTempDir } from "../../../helpers/temp-dir";

describe("a kind's gate in one process", () => {
  const gate = () => new ClaimRegistry().gate("thing");

  it("sends creates side by side, and a lookup waits until every create in flight has settled", async () => {
    const g = gate();
    await g.enterSend();
    await g.enterSend();
    const lookup = g.enterLookup();
    expect(await state(lookup)).toBe("pending");
    g.leaveSend();
    expect(await state(lookup)).toBe("pending");
    g.leaveSend();
    expect(await state(lookup)).toBe("settled");
  });

  it("holds back new creates while a lookup waits and while it runs, then sends them together", async () => {
    const g = gate();
    await g.enterSend();
    const lookup = g.enterLookup();
    const held = g.enterSend();
    expect(await state(held)).toBe("pending");
    g.leaveSend();
    expect(await state(lookup)).toBe("settled");
    const heldToo = g.enterSend();
    expect(await state(held)).toBe("pending");
    g.leaveLookup();
    expect(await state(held)).toBe("settled");
    expect(await state(heldToo)).toBe("settled");
    // Both are counted in flight: the next lookup waits for the two.
    const next = g.enterLookup();
    g.leaveSend();
    expect(await state(next)).toBe("pending");
    g.leaveSend();
    expect(await state(next)).toBe("settled");
  });

  it("runs lookups one at a time, in order, before the creates that came to wait after them", async () => {
    const g = gate();
    await g.enterLookup();
    const second = g.enterLookup();
    const create = g.enterSend();
    const third = g.enterLookup();
    g.leaveLookup();
    expect(await state(second)).toBe("settled");
    expect(await state(third)).toBe("pending");
    expect(await state(create)).toBe("pending");
    g.leaveLookup();
    expect(await state(third)).toBe("settled");
    expect(await state(create)).toBe("pending");
    g.leaveLookup();
    expect(await state(create)).toBe("settled");
  });

  it("is one gate per kind: another kind's creates do not hold a lookup back", async () => {
    const registry = new ClaimRegistry();
    expect(registry.gate("thing")).toBe(registry.gate("thing"));
    await registry.gate("other thing").enterSend();
    expect(await state(registry.gate("thing").enterLookup())).toBe("settled");
  });
});

describe("a kind's gate shared with another process through a claims folder", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "kind-gate-"));
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  /** This process's registry sharing `dir` (waits bounded by `lockWaitMs`), its gate of "thing", and its warnings. */
  function shared(lockWaitMs = 5_000): { g: KindGate; folder: ClaimsFolder; warnings: string[] } {
    const registry = new ClaimRegistry();
    const warnings: string[] = [];
    registry.onWarning((m) => warnings.push(m));
    const folder = new ClaimsFolder(dir, process.pid, { lockWaitMs });
    registry.share(folder);
    return { g: registry.gate("thing"), folder, warnings };
  }
  /** The deployment's other provider process, as its own owner of the folder. */
  const otherProcess = () => new ClaimsFolder(dir, process.pid, { lockWaitMs: 5_000 });

  it("a create in flight here holds back the other process's lookup until it settles", async () => {
    const { g, warnings } = shared();
    const other = otherProcess();
    await g.enterSend();
    const lookup = other.enterLookup("thing");
    expect(await afterPolls(lookup)).toBe("pending");
    g.leaveSend();
    expect(await afterPolls(lookup)).toBe("settled");
    expect(warnings).toEqual([]);
  });

  it("a lookup here holds back the other process's creates until it ends", async () => {
    const { g } = shared();
    const other = otherProcess();
    await g.enterLookup();
    const create = other.enterSend("thing");
    expect(await afterPolls(create)).toBe("pending");
    g.leaveLookup();
    expect(await afterPolls(create)).toBe("settled");
  });

  it("a create that waited past the bound for the other process's lookup fails, and this process's lookup then runs", async () => {
    const { g } = shared(200);
    const other = otherProcess();
    await other.enterLookup("thing");
    const create = g.enterSend();
    const lookup = g.enterLookup();
    expect(await create.catch((e: unknown) => e)).toBeInstanceOf(ClaimsLockTimeoutError);
    other.leaveLookup("thing");
    // The failed create is no longer counted in flight: the lookup that waited for it goes on.
    expect(await afterPolls(lookup)).toBe("settled");
  });

  it("a lookup that waited past the bound for the other process's creates fails, and the creates held back here go on", async () => {
    const { g } = shared(200);
    const other = otherProcess();
    await other.enterSend("thing");
    const lookup = g.enterLookup();
    const create = g.enterSend();
    expect(await lookup.catch((e: unknown) => e)).toBeInstanceOf(ClaimsLockTimeoutError);
    expect(await afterPolls(create)).toBe("settled");
    g.leaveSend();
    other.leaveSend("thing");
    expect(await afterPolls(g.enterLookup())).toBe("settled");
  });

  it("a folder that cannot mark a create is warned about, the create is sent, and its end asks nothing of the folder", async () => {
    const { g, folder, warnings } = shared();
    jest.spyOn(folder, "enterSend").mockRejectedValue(new Error("EIO: i/o error, open"));
    const leave = jest.spyOn(folder, "leaveSend");
    await g.enterSend();
    expect(warnings).toEqual([
      `claims folder ${dir}: could not mark a create of "thing" as in flight (EIO: i/o error, open); ` +
        `it is sent without waiting for the lookups of the deployment's other provider processes.`,
    ]);
    g.leaveSend();
    expect(leave).not.toHaveBeenCalled();
    expect(await afterPolls(g.enterLookup())).toBe("settled");
  });

  it("a folder that cannot give the lookup lock is warned about, the lookup runs, and its end asks nothing of the folder", async () => {
    const { g, folder, warnings } = shared();
    jest.spyOn(folder, "enterLookup").mockRejectedValue(new Error("EACCES: permission denied, open"));
    const leave = jest.spyOn(folder, "leaveLookup");
    await g.enterLookup();
    expect(warnings).toEqual([
      `claims folder ${dir}: could not take the lookup lock of "thing" (EACCES: permission denied, open); ` +
        `the lookup runs without waiting for the creates of the deployment's other provider processes.`,
    ]);
    const create = g.enterSend();
    expect(await state(create)).toBe("pending");
    g.leaveLookup();
    expect(leave).not.toHaveBeenCalled();
    expect(await afterPolls(create)).toBe("settled");
  });

  it("a mark or a lock the folder cannot remove is warned about, and the gate goes on", async () => {
    const { g, folder, warnings } = shared();
    jest.spyOn(folder, "leaveSend").mockImplementation(() => {
      throw new Error("EROFS: read-only file system, unlink");
    });
    jest.spyOn(folder, "leaveLookup").mockImplementation(() => {
      throw new Error("EROFS: read-only file system, unlink");
    });
    await g.enterSend();
    g.leaveSend();
    await g.enterLookup();
    const create = g.enterSend();
    g.leaveLookup();
    expect(await afterPolls(create)).toBe("settled");
    expect(warnings).toEqual([
      `claims folder ${dir}: could not remove this process's mark of creates of "thing" in flight ` +
        `(EROFS: read-only file system, unlink); the lookups of the deployment's other provider processes may wait ` +
        `for it until this process ends.`,
      `claims folder ${dir}: could not remove this process's lookup lock of "thing" (EROFS: read-only file system, unlink); ` +
        `the deployment's other provider processes may wait for it until this process ends.`,
    ]);
  });

  describe("the creates waiting to look", () => {
    const waiter = (
      fingerprint: string | undefined,
      matchKey: string | undefined,
      v = "a",
    ): Waiter & { v: string } => ({
      v,
      matches: (live) => (live as { v: string }).v === v,
      fingerprint,
      matchKey,
    });

    it("are counted once, shown to the other process as hashes of their values and request, and removed when they no longer wait", () => {
      const { g, folder } = shared();
      const other = otherProcess();
      const w = waiter("request 1", "values a");
      const bare = waiter(undefined, undefined);
      g.waiting.add(w);
      g.waiting.add(w);
      g.waiting.add(bare);
      expect(g.waiting.has(w)).toBe(true);
      expect(other.othersWaiting("thing")).toEqual(
        expect.arrayContaining([
          { matchKey: folder.hash("values a"), fingerprint: folder.hash("request 1") },
          { fingerprint: folder.hash("") },
        ]),
      );
      expect(other.othersWaiting("thing")).toHaveLength(2);
      expect(other.othersWaiting("other thing")).toEqual([]);
      g.waiting.delete(w);
      expect(g.waiting.has(w)).toBe(false);
      expect(other.othersWaiting("thing")).toEqual([{ fingerprint: folder.hash("") }]);
      g.waiting.delete(w);
      g.waiting.delete(bare);
      expect(other.othersWaiting("thing")).toEqual([]);
    });

    it("find their twins here by the live values and in the other process by the hash of the values, telling the same request apart", () => {
      const { g, folder } = shared();
      const other = otherProcess();
      const me = waiter("request 1", "values a");
      g.waiting.add(me);
      g.waiting.add(waiter("request 2", "values a"));
      g.waiting.add(waiter("request 3", "values b", "b"));
      other.addWaiting("thing", { matchKey: folder.hash("values a"), fingerprint: folder.hash("request 1") });
      other.addWaiting("thing", { matchKey: folder.hash("values a"), fingerprint: folder.hash("request 4") });
      other.addWaiting("thing", { matchKey: folder.hash("values b"), fingerprint: folder.hash("request 1") });
      other.addWaiting("other thing", {
        matchKey: folder.hash("values a"),
        fingerprint: folder.hash("request 1"),
      });
      expect(g.waiting.twinsOf(me, { v: "a" })).toEqual([
        { sameRequest: true },
        { sameRequest: false },
        { sameRequest: true },
        { sameRequest: false },
      ]);
      // A create whose kind gives no values to compare finds its twins in this process only.
      const bare = waiter(undefined, undefined);
      const read = jest.spyOn(folder, "othersWaiting");
      expect(g.waiting.twinsOf(bare, { v: "a" })).toEqual([{ sameRequest: false }, { sameRequest: false }]);
      expect(read).not.toHaveBeenCalled();
    });

    it("a request without a fingerprint is the same request as the other process's entry of the empty fingerprint", () => {
      const { g, folder } = shared();
      const other = otherProcess();
      const me = waiter(undefined, "values a");
      other.addWaiting("thing", { matchKey: folder.hash("values a"), fingerprint: folder.hash("") });
      expect(g.waiting.twinsOf(me, { v: "a" })).toEqual([{ sameRequest: true }]);
    });

    it("with a folder that fails: warned about, counted in this process, and nothing asked of the folder for an entry it never made", () => {
      const { g, folder, warnings } = shared();
      const eio = () => {
        throw new Error("EIO: i/o error");
      };
      jest.spyOn(folder, "addWaiting").mockImplementation(eio);
      const remove = jest.spyOn(folder, "removeWaiting");
      const w = waiter("request 1", "values a");
      g.waiting.add(w);
      expect(g.waiting.has(w)).toBe(true);
      jest.spyOn(folder, "othersWaiting").mockImplementation(eio);
      expect(g.waiting.twinsOf(w, { v: "a" })).toEqual([{ sameRequest: true }]);
      g.waiting.delete(w);
      expect(remove).not.toHaveBeenCalled();
      expect(g.waiting.has(w)).toBe(false);
      expect(warnings).toEqual([
        `claims folder ${dir}: could not tell the deployment's other provider processes that a lost create of "thing" waits ` +
          `to look (EIO: i/o error); their lookups will not count it as a twin.`,
        `claims folder ${dir}: could not read the lost creates of "thing" waiting in the deployment's other provider processes ` +
          `(EIO: i/o error); this lookup counts only this process's.`,
      ]);
    });

    it("an entry the folder cannot remove is warned about, and no longer waits here", () => {
      const { g, folder, warnings } = shared();
      jest.spyOn(folder, "removeWaiting").mockImplementation(() => {
        throw new Error("EROFS: read-only file system, unlink");
      });
      const w = waiter("request 1", "values a");
      g.waiting.add(w);
      g.waiting.delete(w);
      expect(g.waiting.has(w)).toBe(false);
      expect(warnings).toEqual([
        `claims folder ${dir}: could not remove the entry of a create of "thing" that no longer waits ` +
          `(EROFS: read-only file system, unlink); the deployment's other provider processes may count it as a twin ` +
          `until this process ends.`,
      ]);
    });
  });
});

describe("a folder that fails once, between creates or lookups that it marked", () => {
  const tmp = useTempDir("kind-gate-once-");
  afterEach(() => jest.restoreAllMocks());

  it("asks the folder to end only what it began: a mark or a lock it could not take is not given back", async () => {
    const registry = new ClaimRegistry();
    registry.onWarning(() => undefined);
    const folder = new ClaimsFolder(tmp(), process.pid, { lockWaitMs: 5_000 });
    registry.share(folder);
    const g = registry.gate("thing");
    const leaveSend = jest.spyOn(folder, "leaveSend");
    const leaveLookup = jest.spyOn(folder, "leaveLookup");
    await g.enterSend();
    g.leaveSend();
    jest.spyOn(folder, "enterSend").mockRejectedValueOnce(new Error("EIO: i/o error, open"));
    await g.enterSend();
    g.leaveSend();
    expect(leaveSend).toHaveBeenCalledTimes(1);
    await g.enterLookup();
    g.leaveLookup();
    jest.spyOn(folder, "enterLookup").mockRejectedValueOnce(new Error("EIO: i/o error, open"));
    await g.enterLookup();
    g.leaveLookup();
    expect(leaveLookup).toHaveBeenCalledTimes(1);
  });
});

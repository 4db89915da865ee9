/**
 * Claims shared by the provider processes of one deployment (provider/impl/claimsFolder.ts):
 * IDs held once across owners, each kind's lookup alone across them, lost creates of other
 * owners counted as twins, entries of dead processes ignored, and nothing secret on disk. Two
 * registries on one folder stand for two plugin processes (the default provider and an explicit
 * one); without the folder, the same scenarios leave orphans, which is what the folder is for.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { APIConnectionError } from "../../../client";
import { ClaimRegistry, createOnce, type CreateOnceSpec } from "../../../provider/impl/ambiguous";
import { ClaimsFolder, claimsRoot, deploymentClaimsFolder } from "../../../provider/impl/claimsFolder";

type R = { id: string; createdAt: string; v: string };

/** The PID of a process that has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ["-e", "0"]).pid!;
}

/** Every file under `dir`, with its content. */
function contents(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = path.join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(`${p}\n${readFileSync(p, "utf8")}`);
    }
  };
  walk(dir);
  return out.join("\n");
}

/** Resolves after `ms` **milliseconds**. */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** State of a promise now: "pending" until it settles. */
async function state(p: Promise<unknown>): Promise<"pending" | "settled"> {
  return Promise.race([p.then(() => "settled" as const), sleep(30).then(() => "pending" as const)]);
}

/**
 * A service both "processes" talk to: every create is stored at once; its answer arrives, or is
 * lost (a reset after the handler), after the delay the test gives.
 */
class Service {
  readonly stored: R[] = [];
  private next = 1;

  create(v: string, answer: { lost: boolean; afterMs: number }): Promise<R> {
    const made = { id: `thing_${this.next++}`, createdAt: new Date().toISOString(), v };
    this.stored.unshift(made);
    return sleep(answer.afterMs).then(() => {
      if (answer.lost)
        throw new APIConnectionError("POST /things: connection failed: socket hang up", {
          request: "POST /things",
        });
      return made;
    });
  }

  async *list(): AsyncIterable<R> {
    for (const r of [...this.stored]) yield r;
  }
}

function specFor(
  svc: Service,
  registry: ClaimRegistry,
  answer: { lost: boolean; afterMs: number },
  secret?: string,
): CreateOnceSpec<R> {
  return {
    what: "thing",
    create: () => svc.create("same", answer),
    fingerprint: JSON.stringify({ v: "same", secret }),
    matchKey: JSON.stringify({ v: "same" }),
    list: () => svc.list(),
    matches: (live) => live.v === "same",
    keysHonoured: () => false,
    registry,
  };
}

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

  it("names a deployment's folder after its engine, and removes those of engines no longer running", () => {
    expect(deploymentClaimsFolder(undefined, process.pid, dir)).toBeUndefined();
    const stale = path.join(dir, `${deadPid()}-0123456789abcdef`);
    mkdirSync(stale, { recursive: true });
    const first = deploymentClaimsFolder("127.0.0.1:4000", process.pid, dir)!;
    expect(path.basename(first.dir)).toMatch(new RegExp(`^${process.pid}-[0-9a-f]{16}$`));
    expect(deploymentClaimsFolder("127.0.0.1:4000", process.pid, dir)!.dir).toBe(first.dir);
    expect(deploymentClaimsFolder("127.0.0.1:4001", process.pid, dir)!.dir).not.toBe(first.dir);
    expect(readdirSync(dir)).not.toContain(path.basename(stale));
    expect(path.dirname(claimsRoot())).toBe(tmpdir());
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

/**
 * A claims folder that fails never loses a resource the service has made
 * (provider/impl/create/claims.ts): once a create has its answer, no error of the folder (removed, a
 * full disk) fails it. The ID is kept in the process's own claims and a warning names it and the
 * cause; a write that fails leaves no empty ID file behind; and a plugin whose folder cannot be
 * opened at its start (provider/native/main.ts) runs with process-local claims and a warning,
 * instead of failing every operation.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { ClaimRegistry, createOnce, type CreateOnceSpec } from "../../../../provider/impl/create/createOnce";
import { ClaimsFolder, deploymentClaimsFolder } from "../../../../provider/impl/create/claimsFolder";
import { claimId, processClaims } from "../../../../provider/impl/create/claims";
import { shareDeploymentClaims } from "../../../../provider/native/main";
import { noSpaceError } from "../../../helpers/claims-fixtures";

type R = { id: string; createdAt: string };

/** Node.js's own file system module (not a copy), whose functions the claims folder calls: faults are injected there. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs = require("node:fs") as typeof import("node:fs");

/** A registry sharing `dir`, and the warnings it gives. */
function sharedRegistry(dir: string): { registry: ClaimRegistry; folder: ClaimsFolder; warnings: string[] } {
  const registry = new ClaimRegistry();
  const warnings: string[] = [];
  registry.onWarning((m) => warnings.push(m));
  const folder = new ClaimsFolder(dir);
  registry.share(folder);
  return { registry, folder, warnings };
}

/** A create of a "thing" whose service makes `id` and answers, after `meanwhile` ran. */
function spec(registry: ClaimRegistry, id: string, meanwhile: () => void): CreateOnceSpec<R> {
  return {
    what: "thing",
    create: async () => {
      meanwhile();
      return { id, createdAt: new Date().toISOString() };
    },
    list: async function* () {},
    matches: () => true,
    keysHonoured: () => false,
    registry,
  };
}

describe("ClaimRegistry with a claims folder that fails", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "claims-fail-"));
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a create whose folder is removed while the service makes the resource returns it, claimed, and a warning names the ID", async () => {
    const { registry, warnings } = sharedRegistry(dir);
    const made = await createOnce(spec(registry, "thing_1", () => rmSync(dir, { recursive: true })));
    expect(made.id).toBe("thing_1");
    expect(registry.isClaimed("thing_1")).toBe(true);
    expect(registry.tryClaim("thing_1")).toBe(false);
    expect(warnings.join("\n")).toMatch(/could not record that this deployment holds thing_1 \(ENOENT/);
  });

  it("a create whose folder is gone before it is sent is sent, and its resource claimed, with warnings", async () => {
    const { registry, warnings } = sharedRegistry(dir);
    rmSync(dir, { recursive: true });
    const made = await createOnce(spec(registry, "thing_2", () => {}));
    expect(made.id).toBe("thing_2");
    expect(registry.isClaimed("thing_2")).toBe(true);
    expect(warnings.join("\n")).toMatch(/could not mark a create of "thing" as in flight/);
    expect(warnings.join("\n")).toMatch(/thing_2/);
  });

  it("a full disk when the ID's file is written: tryClaim holds it in the process, warns with the ID, and leaves no empty file to read as another owner's", () => {
    const { registry, warnings } = sharedRegistry(dir);
    const other = new ClaimsFolder(dir);
    jest.spyOn(fs, "writeSync").mockImplementationOnce(() => {
      throw noSpaceError();
    });
    expect(registry.tryClaim("thing_3")).toBe(true);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /thing_3 \(ENOSPC: no space left on device, write\)\. thing_3 is kept in this process's claims/,
    );
    expect(registry.isClaimed("thing_3")).toBe(true);
    expect(readdirSync(path.join(dir, "ids"))).toEqual([]);
    // Once there is room again, the next claim is written as before.
    expect(registry.tryClaim("thing_4")).toBe(true);
    expect(other.isClaimed("thing_4")).toBe(true);
  });

  it("a full disk cutting a line of the list of IDs passed in: the claim stands here, warned, and the next lines still reach the other processes", () => {
    const { registry, warnings } = sharedRegistry(dir);
    const other = new ClaimsFolder(dir);
    const write = fs.writeSync;
    // The claims folder writes its lines as bytes: the first three reach the disk, then it is full.
    const cutShort = (fd: number, buf: NodeJS.ArrayBufferView): never => {
      write(fd, buf, 0, 3); // "thi" of "thing_5\n"
      throw noSpaceError();
    };
    jest.spyOn(fs, "writeSync").mockImplementationOnce(cutShort as unknown as typeof fs.writeSync);
    registry.claim("thing_5");
    expect(warnings.join("\n")).toMatch(/could not record that this deployment holds thing_5 \(ENOSPC/);
    expect(registry.isClaimed("thing_5")).toBe(true);
    registry.claim("thing_6");
    expect(other.isClaimed("thing_6")).toBe(true);
    expect(other.tryClaim("thing_6")).toBe(false);
  });

  it("isClaimed, release and the waiting creates go on with the process's own claims when the folder is gone", async () => {
    const { registry, warnings } = sharedRegistry(dir);
    expect(registry.tryClaim("thing_7")).toBe(true);
    rmSync(dir, { recursive: true });
    expect(registry.isClaimed("thing_7")).toBe(true);
    expect(registry.isClaimed("thing_8")).toBe(false);
    registry.release("thing_7");
    expect(registry.isClaimed("thing_7")).toBe(false);
    const gate = registry.gate("thing");
    const me = { matches: () => true, matchKey: "m", fingerprint: "f" };
    gate.waiting.add(me);
    expect(gate.waiting.twinsOf(me, {})).toEqual([{ sameRequest: true }]);
    await gate.enterLookup();
    gate.leaveLookup();
    gate.waiting.delete(me);
    expect(warnings.join("\n")).toMatch(/could not take the lookup lock of "thing"/);
  });

  it("gives each warning once, to stderr unless told otherwise", () => {
    const registry = new ClaimRegistry();
    const stderr = jest.spyOn(process.stderr, "write").mockImplementation(() => true);
    registry.warn("the same note");
    registry.warn("the same note");
    expect(stderr.mock.calls.map((c) => String(c[0]))).toEqual(["warning: the same note\n"]);
  });
});

describe("the plugin's start with a claims folder it cannot use (shareDeploymentClaims)", () => {
  let base: string;
  beforeEach(() => {
    base = mkdtempSync(path.join(tmpdir(), "claims-start-"));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it("runs with process-local claims, and warns that cross-process protection is off, why, and what to run", () => {
    const root = path.join(base, "pulumi-service-claims-0");
    mkdirSync(root);
    chmodSync(root, 0o777);
    const registry = new ClaimRegistry();
    const warnings: string[] = [];
    registry.onWarning((m) => warnings.push(m));
    const folder = shareDeploymentClaims("127.0.0.1:4000", registry, (address) =>
      deploymentClaimsFolder(address, process.pid, root),
    );
    expect(folder).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/cross-process protection is off/);
    expect(warnings[0]).toContain(`the claims root ${root} has mode 0777`);
    expect(warnings[0]).toContain(`rm -r '${root}'`);
    // Every operation still works, with this process's claims.
    expect(registry.tryClaim("thing_1")).toBe(true);
    expect(registry.tryClaim("thing_1")).toBe(false);
    expect(readdirSync(root)).toEqual([]);
  });

  it("shares a usable folder with no warning", () => {
    const registry = new ClaimRegistry();
    const warnings: string[] = [];
    registry.onWarning((m) => warnings.push(m));
    const root = path.join(base, "root");
    const folder = shareDeploymentClaims("127.0.0.1:4000", registry, (address) =>
      deploymentClaimsFolder(address, process.pid, root),
    );
    expect(registry.tryClaim("thing_1")).toBe(true);
    expect(existsSync(path.join(folder!.dir, "ids", "thing_1"))).toBe(true);
    expect(warnings).toEqual([]);
  });
});

describe("ClaimRegistry.claim", () => {
  it("ignores an empty or missing ID, and records an ID in the shared folder once", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "claims-once-"));
    try {
      const { registry, folder, warnings } = sharedRegistry(dir);
      const holds = jest.spyOn(folder, "hold");
      registry.claim("");
      registry.claim(undefined as unknown as string);
      registry.claim("esb_once");
      registry.claim("esb_once");
      expect(holds.mock.calls).toEqual([["esb_once"]]);
      expect(registry.isClaimed("esb_once")).toBe(true);
      // No one holds the empty ID, here or in the folder (whose folder of IDs it would name).
      expect(registry.isClaimed("")).toBe(false);
      expect(folder.isClaimed("")).toBe(false);
      expect(warnings).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("ClaimRegistry's claims, shared and not", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "claims-registry-"));
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it("claims an ID once: not again here, and not where another process of the deployment holds it", () => {
    const { registry } = sharedRegistry(dir);
    const other = new ClaimsFolder(dir);
    expect(other.tryClaim("thing_1")).toBe(true);
    expect(registry.tryClaim("thing_1")).toBe(false);
    expect(registry.tryClaim("thing_2")).toBe(true);
    expect(registry.tryClaim("thing_2")).toBe(false);
    expect(other.tryClaim("thing_2")).toBe(false);
    // Given back, it is the other process's to take.
    registry.release("thing_2");
    expect(registry.isClaimed("thing_2")).toBe(false);
    expect(other.tryClaim("thing_2")).toBe(true);
    expect(registry.isClaimed("thing_2")).toBe(true);
  });

  it("writes the IDs claimed before it was shared to the folder, and asks nothing of a folder it does not have", () => {
    const registry = new ClaimRegistry();
    expect(registry.tryClaim("thing_3")).toBe(true);
    registry.release("thing_4");
    expect(registry.isClaimed("thing_4")).toBe(false);
    registry.share(new ClaimsFolder(dir));
    expect(new ClaimsFolder(dir).tryClaim("thing_3")).toBe(false);
  });

  it("a folder that cannot be read or cannot give an ID back is warned about, naming the ID, and this process's claims answer", () => {
    const { registry, folder, warnings } = sharedRegistry(dir);
    expect(registry.tryClaim("thing_5")).toBe(true);
    const eio = () => {
      throw new Error("EIO: i/o error");
    };
    jest.spyOn(folder, "isClaimed").mockImplementation(eio);
    jest.spyOn(folder, "release").mockImplementation(eio);
    expect(registry.isClaimed("thing_5")).toBe(true);
    expect(registry.isClaimed("thing_6")).toBe(false);
    registry.release("thing_5");
    expect(registry.isClaimed("thing_5")).toBe(false);
    expect(warnings).toEqual([
      `claims folder ${dir}: could not read whether another provider process of the deployment holds thing_6 (EIO: i/o error); ` +
        `only this process's claims were asked.`,
      `claims folder ${dir}: could not give back thing_5 (EIO: i/o error); the deployment's other provider processes still ` +
        `see it as held, so none of them adopts it: the next pulumi up can.`,
      `claims folder ${dir}: could not read whether another provider process of the deployment holds thing_5 (EIO: i/o error); ` +
        `only this process's claims were asked.`,
    ]);
  });

  it("loads once per key, and forgets a load that failed so that the next caller loads again", async () => {
    const registry = new ClaimRegistry();
    const loads: string[] = [];
    const load =
      (what: string, fail = false) =>
      async () => {
        loads.push(what);
        if (fail) throw new Error(`${what} failed`);
        return [what];
      };
    const first = registry.once("subscriptions", load("subscriptions 1"));
    const again = registry.once("subscriptions", load("subscriptions 2"));
    expect(again).toBe(first);
    expect(await again).toEqual(["subscriptions 1"]);
    await expect(registry.once("destinations", load("destinations 1", true))).rejects.toThrow(
      "destinations 1 failed",
    );
    expect(await registry.once("destinations", load("destinations 2"))).toEqual(["destinations 2"]);
    expect(await registry.once("destinations", load("destinations 3"))).toEqual(["destinations 2"]);
    expect(loads).toEqual(["subscriptions 1", "destinations 1", "destinations 2"]);
  });
});

describe("ClaimRegistry's warnings when the folder cannot record a claim", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "claims-words-"));
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it("names the folder, the ID, the cause and what the other processes do not see", () => {
    const { registry, folder, warnings } = sharedRegistry(dir);
    jest.spyOn(folder, "tryClaim").mockImplementation(() => {
      throw noSpaceError();
    });
    jest.spyOn(folder, "hold").mockImplementation(() => {
      throw noSpaceError();
    });
    expect(registry.tryClaim("thing_1")).toBe(true);
    registry.claim("thing_2");
    expect(warnings).toEqual([
      `claims folder ${dir}: could not record that this deployment holds thing_1 (ENOSPC: no space left on device, write). ` +
        `thing_1 is kept in this process's claims, so its resource keeps it, but the deployment's other provider processes ` +
        `(explicit providers) do not see the claim: a lost create's lookup in one of them could adopt thing_1. Check the ` +
        `folder (ls -ld '${dir}'; df).`,
      `claims folder ${dir}: could not record that this deployment holds thing_2 (ENOSPC: no space left on device, write). ` +
        `It is kept in this process's claims; the deployment's other provider processes do not see it, so a lost create's ` +
        `lookup in one of them could adopt thing_2.`,
    ]);
  });
});

it("claimId records an ID as this deployment's in the process's registry: no lookup of this process may adopt it", () => {
  const id = "claim_id_test_1";
  expect(processClaims.isClaimed(id)).toBe(false);
  claimId(id);
  try {
    expect(processClaims.isClaimed(id)).toBe(true);
    expect(processClaims.tryClaim(id)).toBe(false);
  } finally {
    processClaims.release(id);
  }
  expect(processClaims.isClaimed(id)).toBe(false);
});

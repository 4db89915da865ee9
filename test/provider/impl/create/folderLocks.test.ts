/**
 * The kinds' locks of a deployment's claims folder (provider/impl/create/folderLocks.ts): every
 * wait on another process's lock or mark ends within its bound with an error naming the lock file
 * and its holder, leaves no lock behind, and a lock whose holder's PID now runs another process is
 * not waited for.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { ClaimRegistry, createOnce } from "../../../../provider/impl/create/createOnce";
import {
  ClaimsFolder,
  ClaimsLockTimeoutError,
  formatIdentity,
  processIdentity,
} from "../../../../provider/impl/create/claimsFolder";
import { ClaimsService as Service, claimsSpecFor as specFor, sleep } from "../../../helpers/claims-fixtures";

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

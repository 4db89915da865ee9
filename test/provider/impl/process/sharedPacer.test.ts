/**
 * The per-account budget shared by this user's provider processes: real child processes take
 * tokens from one bucket, a process killed while it holds the lock does not stop the others, and
 * one process's 429 paces the others.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { buildSync } from "esbuild";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { freshState } from "../../../../client/pacer";
import { claimsRoot } from "../../../../provider/impl/create/claimsFolder";
import { formatIdentity, processIdentity } from "../../../../provider/impl/create/processIdentity";
import {
  FORGET_AFTER_MS,
  LOCK_STALE_MS,
  OBSERVE_FLUSH_MS,
  SharedBudget,
  SharedPacer,
  accountName,
  pacingFolder,
  sharedPacer,
} from "../../../../provider/impl/process/sharedPacer";
import { useTempDir } from "../../../helpers/temp-dir";

const REPO = path.resolve(__dirname, "../../../..");
const MODULE = path.join(REPO, "provider/impl/process/sharedPacer.ts");
const tmp = useTempDir("shared-pacer-");
const dir = () => path.join(tmp(), "claims", "pacing");
/** The module as one plain JavaScript file (esbuild), so a child process starts in well under a second. */
const bundle = () => path.join(tmp(), "sharedPacer.js");
beforeAll(() => {
  buildSync({ entryPoints: [MODULE], bundle: true, platform: "node", outfile: bundle(), logLevel: "error" });
});

/** Runs `script` (with `pacer`, the module, required) in a Node.js process of its own; its stdout lines are collected. */
function child(script: string): { proc: ChildProcess; lines: string[]; exited: Promise<number | null> } {
  const code = `const pacer = require(${JSON.stringify(bundle())});\n${script}`;
  const proc = spawn(process.execPath, ["-e", code], {
    cwd: REPO,
    env: { ...process.env, DIR: dir() },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines: string[] = [];
  let rest = "";
  proc.stdout!.on("data", (d: Buffer) => {
    const parts = (rest + d.toString()).split("\n");
    rest = parts.pop()!;
    lines.push(...parts);
  });
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (c) => resolve(c)));
  return { proc, lines, exited };
}

async function until(what: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("the account's budget is named by a key stamp in a private folder, never by the key", () => {
  const name = accountName(dir(), "sk_live_secret_key_1");
  expect(name).toMatch(/^[A-Za-z0-9_-]{22}$/);
  expect(name).not.toContain("secret");
  expect(accountName(dir(), "sk_live_secret_key_1")).toBe(name);
  expect(accountName(dir(), "sk_live_secret_key_2")).not.toBe(name);
  // The same key at another service is another account.
  expect(accountName(dir(), "sk_live_secret_key_1", "http://127.0.0.1:8787")).not.toBe(name);
  expect(accountName(dir(), "sk_live_secret_key_1", "http://127.0.0.1:8787/")).toBe(
    accountName(dir(), "sk_live_secret_key_1", "http://127.0.0.1:8787"),
  );
  expect(statSync(dir()).mode & 0o077).toBe(0);
  expect(readFileSync(path.join(dir(), "salt"), "utf8")).not.toContain("secret");
});

test("two processes of one account at a ceiling of 10 per second share it: 30 requests take 3 seconds, not 1.5", async () => {
  const script = `
    const p = pacer.sharedPacer("sk_shared_account", "", { maxRequestsPerSecond: 10, burst: 1 }, process.env.DIR);
    (async () => {
      for (let i = 0; i < 15; i++) { await p.acquire(); console.log(Date.now()); }
    })();`;
  const a = child(script);
  const b = child(script);
  expect(await a.exited).toBe(0);
  expect(await b.exited).toBe(0);
  const times = [...a.lines, ...b.lines].map(Number).sort((x, y) => x - y);
  expect(times).toHaveLength(30);
  // One bucket of 10 a second for both: 30 tokens (the first at once) span at least 2.9 s.
  expect(times[29] - times[0]).toBeGreaterThanOrEqual(2_850);
  // And no second holds more than 10 + 1 of them.
  for (const t of times) expect(times.filter((u) => u >= t && u < t + 1000).length).toBeLessThanOrEqual(11);
}, 30_000);

test("a process killed while it holds the lock gives it back: the next update does not wait for it to go stale", async () => {
  const holder = child(`
    const budget = new pacer.SharedBudget(process.env.DIR, pacer.accountName(process.env.DIR, "sk_dies"));
    budget.update(() => { console.log("holding"); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); });`);
  await until(() => holder.lines.includes("holding"));
  const budget = new SharedBudget(dir(), accountName(dir(), "sk_dies"));
  expect(statSync(budget.lockFile).isFile()).toBe(true);
  holder.proc.kill("SIGKILL");
  await holder.exited;
  const started = Date.now();
  await budget.update((state) => {
    state.tokens = 7;
  });
  expect(Date.now() - started).toBeLessThan(1_000);
  expect(budget.read().tokens).toBe(7);
}, 30_000);

test("a lock held by a live process past LOCK_STALE_MS is taken from it", async () => {
  const holder = child(`
    const budget = new pacer.SharedBudget(process.env.DIR, pacer.accountName(process.env.DIR, "sk_stuck"));
    budget.update(() => { console.log("holding"); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000); });`);
  try {
    await until(() => holder.lines.includes("holding"));
    const budget = new SharedBudget(dir(), accountName(dir(), "sk_stuck"));
    const started = Date.now();
    await budget.update(() => undefined);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
    expect(Date.now() - started).toBeLessThan(5_000);
  } finally {
    holder.proc.kill("SIGKILL");
    await holder.exited;
  }
}, 30_000);

test("one process's 429 pauses the other's requests for its Retry-After", async () => {
  const first = sharedPacer("sk_taught", "", { burst: 1 }, dir())!;
  const other = new SharedPacer(new SharedBudget(dir(), accountName(dir(), "sk_taught")), { burst: 1 });
  await other.acquire();
  first.observe({ status: 200 });
  first.observe({ status: 429, retryAfterSeconds: 1 });
  await first.flush();
  const started = Date.now();
  await other.acquire();
  expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  expect(other.budget.read().rate).not.toBeNull();
});

test("what an account's budget learned is forgotten once it has gone unwritten for FORGET_AFTER_MS", async () => {
  const budget = new SharedBudget(dir(), accountName(dir(), "sk_idle", "http://127.0.0.1:1"));
  const taught = new SharedPacer(budget, { burst: 1 });
  taught.observe({ status: 429, retryAfterSeconds: 30 });
  await taught.flush();
  expect(budget.read().rate).not.toBeNull();
  // Last written just inside the limit: still known; just past it: a fresh budget, no pause.
  const at = (agoMs: number) => (Date.now() - agoMs) / 1000;
  utimesSync(budget.file, at(FORGET_AFTER_MS - 60_000), at(FORGET_AFTER_MS - 60_000));
  expect(budget.read().pausedUntil).toBeGreaterThan(Date.now());
  // docs/performance.md: a deployment within 10 minutes of another of the account starts from
  // what that one learned.
  utimesSync(budget.file, at(9 * 60_000), at(9 * 60_000));
  expect(budget.read().pausedUntil).toBeGreaterThan(Date.now());
  utimesSync(budget.file, at(FORGET_AFTER_MS + 1_000), at(FORGET_AFTER_MS + 1_000));
  expect(budget.read()).toMatchObject({ rate: null, pausedUntil: 0 });
  const started = Date.now();
  await new SharedPacer(budget, { burst: 1 }).acquire();
  expect(Date.now() - started).toBeLessThan(1_000);
});

describe("in this process", () => {
  /** A budget of its own in the test's pacing folder. */
  const budgetOf = (key: string) => new SharedBudget(dir(), accountName(dir(), key));
  const sleepMs = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  test("the pacing folder is `pacing` in the claims root", () => {
    expect(pacingFolder()).toBe(path.join(claimsRoot(), "pacing"));
  });

  test("a salt written with a newline and a base URL with trailing slashes name the same account", () => {
    const a = path.join(tmp(), "salted-a", "pacing");
    const b = path.join(tmp(), "salted-b", "pacing");
    accountName(a, "k");
    accountName(b, "k");
    writeFileSync(path.join(a, "salt"), "abcdefghijklmnopqrstuv\n");
    writeFileSync(path.join(b, "salt"), "abcdefghijklmnopqrstuv");
    expect(accountName(a, "k", "http://svc//")).toBe(accountName(b, "k", "http://svc"));
  });

  test("a pacing folder that cannot be made is named in the error, and the client then paces alone", () => {
    const blocked = path.join(tmp(), "a-file");
    writeFileSync(blocked, "");
    expect(() => accountName(path.join(blocked, "pacing"), "k")).toThrow(
      new RegExp(`^the claims root ${blocked} `),
    );
    expect(() => accountName(path.join(tmp(), "pacing-file"), "k")).not.toThrow();
    writeFileSync(path.join(tmp(), "not-a-folder"), "");
    expect(() => accountName(path.join(tmp(), "not-a-folder"), "k")).toThrow(/^the pacing folder /);
    expect(sharedPacer("k", "", { burst: 1 }, path.join(blocked, "pacing"))).toBeUndefined();
  });

  const valid = { ...freshState(), rate: 2, limit: 10, tokens: 1, at: 5, answered: { "200": 1 } };
  test.each<[string, unknown]>([
    ["null", null],
    ["a number", 7],
    ["a rate that is not a number", { ...valid, rate: "2" }],
    ["a limit that is not a number", { ...valid, limit: "10" }],
    ["no waiting flag", { ...valid, waiting: undefined }],
    ["tokens that are not a number", { ...valid, tokens: "1" }],
    ["no time", { ...valid, at: undefined }],
    ["no pause", { ...valid, pausedUntil: null }],
    ["no raise time", { ...valid, raisedAt: "0" }],
    ["no answers", { ...valid, answered: undefined }],
    ["answers of null", { ...valid, answered: null }],
  ])("a state file of another shape (%s) reads as a fresh budget", (_what, content) => {
    const budget = budgetOf("sk_shape");
    writeFileSync(budget.file, JSON.stringify(content));
    expect(budget.read()).toEqual(freshState());
    writeFileSync(budget.file, JSON.stringify(valid));
    expect(budget.read()).toEqual(valid);
  });

  test("a state file whose number is beyond any (1e400, read as Infinity) reads as a fresh budget", () => {
    const budget = budgetOf("sk_infinite");
    writeFileSync(budget.file, JSON.stringify(valid).replace('"tokens":1', '"tokens":1e400'));
    expect(budget.read()).toEqual(freshState());
  });

  test("an update leaves no lock and no open file behind; a lock another process took meanwhile is left to it", async () => {
    const budget = budgetOf("sk_update");
    const fds = () => readdirSync("/proc/self/fd").length;
    const before = fds();
    for (let i = 0; i < 40; i++) await budget.update((s) => void (s.tokens = i));
    expect(fds()).toBeLessThan(before + 10);
    expect(existsSync(budget.lockFile)).toBe(false);
    expect(budget.read().tokens).toBe(39);
    const theirs = `another-process\n${Date.now()}`;
    await budget.update(() => writeFileSync(budget.lockFile, theirs));
    expect(readFileSync(budget.lockFile, "utf8")).toBe(theirs);
  });

  test("a lock held by a live process and not yet stale is waited for; an empty one (being written) too", async () => {
    const budget = budgetOf("sk_wait");
    const live = `${formatIdentity(processIdentity(process.pid))}-cafe`;
    writeFileSync(budget.lockFile, `${live}\n${Date.now() - (LOCK_STALE_MS - 500)}`);
    let started = Date.now();
    await budget.update(() => undefined);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);

    writeFileSync(budget.lockFile, "");
    let done = false;
    started = Date.now();
    const update = budget.update(() => void (done = true));
    await sleepMs(300);
    const waited = { done, lock: existsSync(budget.lockFile) };
    rmSync(budget.lockFile);
    await update;
    expect(waited).toEqual({ done: false, lock: true });
  });

  test("without a rate to keep, a request takes no lock and writes nothing; with one, it waits its turn", async () => {
    const free = new SharedPacer(budgetOf("sk_free"), { burst: 1 });
    await free.acquire();
    await free.acquire();
    expect(existsSync(free.budget.file)).toBe(false);

    const paced = new SharedPacer(budgetOf("sk_paced"), { maxRequestsPerSecond: 10, burst: 1 });
    const started = Date.now();
    for (let i = 0; i < 4; i++) await paced.acquire();
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(existsSync(paced.budget.file)).toBe(true);
  });

  test(`a 429 is written at once; other answers within ${OBSERVE_FLUSH_MS} ms, together; a flush with none writes nothing`, async () => {
    const pacer = new SharedPacer(budgetOf("sk_observe"), { burst: 1 });
    await pacer.flush();
    expect(existsSync(pacer.budget.file)).toBe(false);
    pacer.observe({ status: 200 });
    pacer.observe({ status: 201 });
    await sleepMs(OBSERVE_FLUSH_MS / 4);
    expect(existsSync(pacer.budget.file)).toBe(false);
    await until(() => existsSync(pacer.budget.file), 5_000); // the batch's timer

    // A 429 is written without a timer: its write (a free lock, then files written synchronously)
    // is done before the next turn of the event loop.
    const paused = new SharedPacer(budgetOf("sk_observe_429"), { burst: 1 });
    paused.observe({ status: 429, retryAfterSeconds: 5 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(paused.budget.read().pausedUntil).toBeGreaterThan(Date.now());
  });

  test("a budget whose folder is removed mid-run: requests go on, paced by this process alone", async () => {
    const own = path.join(tmp(), "removed", "pacing");
    const pacer = sharedPacer("sk_removed", "", { maxRequestsPerSecond: 10, burst: 1 }, own)!;
    await pacer.acquire();
    rmSync(own, { recursive: true, force: true });
    // The first request after the failure goes at once, the next takes the new bucket's one
    // token, and the three after it wait 100 ms each.
    const started = Date.now();
    for (let i = 0; i < 5; i++) await pacer.acquire();
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    pacer.observe({ status: 200 });
    await expect(pacer.flush()).resolves.toBeUndefined();
  });
});

// Imports of the tests below, here rather than at the top so that the tests above keep their
// lines (Stryker's incremental run tells tests apart by their place).
import { removedJustBefore } from "../../../helpers/claims-fixtures";

describe("in this process, at the lock's races", () => {
  const budgetOf = (key: string) => new SharedBudget(dir(), accountName(dir(), key));
  const sleepMs = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  afterEach(() => jest.restoreAllMocks());

  test("a stale lock, and this process's own, already gone when removed: the update still runs and leaves no lock", async () => {
    const budget = budgetOf("sk_gone");
    writeFileSync(budget.lockFile, `another-process\n${Date.now() - LOCK_STALE_MS - 1_000}`);
    removedJustBefore();
    await expect(budget.update((s) => void (s.tokens = 7))).resolves.toBeUndefined();
    expect(budget.read().tokens).toBe(7);
    expect(existsSync(budget.lockFile)).toBe(false);
  });

  test("a stale lock that another process replaced between the judgement and the removal is left to it", async () => {
    const budget = budgetOf("sk_replaced");
    writeFileSync(budget.lockFile, `another-process\n${Date.now() - LOCK_STALE_MS - 1_000}`);
    const theirs = `${formatIdentity(processIdentity(process.pid))}-beef\n${Date.now()}`;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const fs = require("node:fs") as typeof import("node:fs");
    const open = fs.openSync;
    let reads = 0;
    jest.spyOn(fs, "openSync").mockImplementation(((file: string, flags: number, mode?: number) => {
      // The second read of the lock (the check before removing it) finds the other process's.
      if (file === budget.lockFile && (flags & fs.constants.O_CREAT) === 0 && ++reads === 2) {
        writeFileSync(budget.lockFile, theirs);
      }
      return open(file, flags, mode);
    }) as typeof fs.openSync);
    let done = false;
    const update = budget.update(() => void (done = true));
    await sleepMs(300);
    const seen = { done, lock: readFileSync(budget.lockFile, "utf8") };
    jest.restoreAllMocks();
    rmSync(budget.lockFile);
    await update;
    expect(seen).toEqual({ done: false, lock: theirs });
  });

  test("what a budget learned is kept for ten minutes (FORGET_AFTER_MS, the module loaded afresh in the test)", async () => {
    await jest.isolateModulesAsync(async () => {
      const fresh = await import("../../../../provider/impl/process/sharedPacer");
      const budget = new fresh.SharedBudget(dir(), fresh.accountName(dir(), "sk_ten_minutes"));
      await budget.update((s) => void (s.pausedUntil = Date.now() + 60_000));
      const ago = (Date.now() - 9 * 60_000) / 1000;
      utimesSync(budget.file, ago, ago);
      expect(budget.read().pausedUntil).toBeGreaterThan(Date.now());
      const older = (Date.now() - 11 * 60_000) / 1000;
      utimesSync(budget.file, older, older);
      expect(budget.read().pausedUntil).toBe(0);
    });
  });
});

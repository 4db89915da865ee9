/**
 * Fixtures of the claims folder's tests (test/provider/impl/create/claimsFolder.test.ts, claims.test.ts):
 * a dead process's PID, a folder's files with their content, another user's project to point
 * links at, and file system faults to inject (a full disk, a file removed at the same moment).
 */
import { spawnSync } from "node:child_process";
import { lstatSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { APIConnectionError } from "../../client";
import type { ClaimRegistry, CreateOnceSpec } from "../../provider/impl/create/createOnce";

/** A resource of the tests' in-memory service. */
export type Thing = { id: string; createdAt: string; v: string };

/** The PID of a process that has exited. */
export function deadPid(): number {
  return spawnSync(process.execPath, ["-e", "0"]).pid!;
}

/**
 * Every entry under `dir` (links not followed), each as its path and, for a file, its content:
 * one string to compare before and after.
 */
export function contents(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      const st = lstatSync(p);
      if (st.isDirectory()) {
        out.push(`${p}/`);
        walk(p);
      } else if (st.isSymbolicLink()) out.push(`${p} -> link`);
      else out.push(`${p}\n${readFileSync(p, "utf8")}`);
    }
  };
  walk(dir);
  return out.join("\n");
}

/**
 * Fills `dir` with a small project of another user (a program, its settings, a source folder)
 * whose files a claims folder must never touch.
 * @returns `dir`.
 */
export function anotherUsersProject(dir: string): string {
  writeFileSync(path.join(dir, "Pulumi.yaml"), "name: theirs\nruntime: nodejs\n");
  writeFileSync(path.join(dir, "index.ts"), "export const answer = 42;\n");
  mkdirSync(path.join(dir, "src"));
  writeFileSync(path.join(dir, "src", "stack.ts"), "// their stack\n");
  return dir;
}

/** The error a write to a full disk throws (`ENOSPC`), as Node.js's file system makes it. */
export function noSpaceError(): NodeJS.ErrnoException {
  return Object.assign(new Error("ENOSPC: no space left on device, write"), {
    code: "ENOSPC",
    errno: -28,
    syscall: "write",
  });
}

/**
 * Makes every `rmSync` of this test find its file already gone, as when another process removed it
 * just before (the file is removed, then `rmSync` runs with the caller's options); undone by
 * `jest.restoreAllMocks()`.
 */
export function removedJustBefore(): void {
  // Node.js's own module (not a copy), whose rmSync the code under test calls.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const fs = require("node:fs") as typeof import("node:fs");
  const rm = fs.rmSync;
  jest.spyOn(fs, "rmSync").mockImplementation((p, options) => {
    rm(p, { force: true });
    rm(p, options);
  });
}

/** Resolves after `ms` **milliseconds**. */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** State of a promise now: "pending" until it settles. */
export async function state(p: Promise<unknown>): Promise<"pending" | "settled"> {
  return Promise.race([p.then(() => "settled" as const), sleep(30).then(() => "pending" as const)]);
}

/** `p`'s {@link state} once a claims folder's polls (every 10 ms) have had 100 ms to see a change. */
export async function afterPolls(p: Promise<unknown>): Promise<"pending" | "settled"> {
  await sleep(100);
  return state(p);
}

/**
 * A service both "processes" talk to: every create is stored at once; its answer arrives, or is
 * lost (a reset after the handler), after the delay the test gives.
 */
export class ClaimsService {
  readonly stored: Thing[] = [];
  private next = 1;

  create(v: string, answer: { lost: boolean; afterMs: number }): Promise<Thing> {
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

  async *list(): AsyncIterable<Thing> {
    for (const r of [...this.stored]) yield r;
  }
}

export function claimsSpecFor(
  svc: ClaimsService,
  registry: ClaimRegistry,
  answer: { lost: boolean; afterMs: number },
  secret?: string,
): CreateOnceSpec<Thing> {
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

/** How many files this process has open (Linux: the entries of /proc/self/fd). */
export function openFiles(): number {
  return readdirSync("/proc/self/fd").length;
}

/** The error `fn` throws (fails the test when it throws none). */
export function thrown(fn: () => unknown): Error & { cause?: unknown } {
  try {
    fn();
  } catch (err) {
    return err as Error & { cause?: unknown };
  }
  throw new Error("expected an error, none was thrown");
}

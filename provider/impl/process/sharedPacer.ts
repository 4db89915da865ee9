/**
 * One pace per account on this machine: every provider process that uses one API key (the
 * processes of one deployment, both doors, and the deployments of several stacks at once) takes
 * its requests from one token bucket and learns from one another's 429s. The bucket's state
 * (client/pacer.ts's `PaceState`) lives in a file of a folder private to this user, and each
 * change of it is made under a lock file that names its holder.
 *
 * - **Where**: `<claims root>/pacing` (the claims root of create/claimsFolder.ts, made and
 *   checked the same way: a directory of this user's, not a link, no permission for group or
 *   others). A folder that fails those checks is not used: the process paces alone.
 * - **Which account**: a file per account named by a key stamp (keyStamp.ts) of the API key with
 *   a salt drawn once per user (the folder's `salt` file), never by the key.
 * - **The lock** (`<account>.lock`): made in one step, holding its owner's identity (PID, start
 *   time, PID namespace: create/processIdentity.ts) and the time it was taken. A lock whose
 *   process has died is removed by the next process that finds it; one held longer than
 *   {@link LOCK_STALE_MS} (a process stopped in a debugger) too. A process holds it only while it
 *   reads, changes and writes the state: a fraction of a millisecond, no request in flight.
 * - **What a dead process leaves**: nothing that holds budget back. Tokens are taken one request
 *   at a time when it is sent; there is no reservation to return; its lock goes as above.
 * - **When the file system fails** (a full disk, the folder removed mid-run): the process goes on
 *   pacing alone (a `LocalPacer`), as it does when the folder cannot be used at all.
 *
 * @packageDocumentation
 */
import { closeSync, constants, openSync, renameSync, rmSync, statSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import {
  freshState,
  LocalPacer,
  observeAnswer,
  paceRate,
  takeToken,
  type PacedAnswer,
  type Pacer,
  type PaceSettings,
  type PaceState,
} from "../../../client/pacer";
import { claimsRoot } from "../create/claimsFolder";
import { ownerLiveness } from "../create/folderLocks";
import { createExclusive, O_NOFOLLOW, openPrivateDir, readOr, writeAll } from "../create/privateFiles";
import { formatIdentity, processIdentity } from "../create/processIdentity";
import { keyStamp } from "../keyStamp";

/** Age after which a lock whose holder still runs is taken from it, in **milliseconds**: 2,000. */
export const LOCK_STALE_MS = 2_000;
/** How often a process waiting for the lock tries again, in **milliseconds**: 1. */
const LOCK_POLL_MS = 1;
/** Longest time answers other than 429 wait before they are written to the state, in **milliseconds**: 100. */
export const OBSERVE_FLUSH_MS = 100;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The folder of this user's account budgets: `<claims root>/pacing`. */
export function pacingFolder(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(claimsRoot(env), "pacing");
}

/**
 * How long an account's budget may go unwritten, in **milliseconds** (10 minutes), before what it
 * learned is forgotten: the next request starts fresh (no learned rate, a full bucket), as after a
 * limit the service has changed since, or a service that was another one on the same address.
 */
export const FORGET_AFTER_MS = 10 * 60_000;

/**
 * The name of the budget of the account `apiKey` opens at `baseUrl` in `dir`: the hash of the key
 * stamp of the two with the folder's salt (made on first use). Another service (another base
 * URL) with the same key is another account. Costs one scrypt derivation (some 60 ms).
 * @throws ClaimsFolderError when `dir` or its parent cannot be made or is not private to this user.
 */
export function accountName(dir: string, apiKey: string, baseUrl = ""): string {
  openPrivateDir(path.dirname(dir), "the claims root");
  openPrivateDir(dir, "the pacing folder");
  const saltFile = path.join(dir, "salt");
  createExclusive(saltFile, randomBytes(16).toString("base64url"));
  const salt = readOr(saltFile, "").trim();
  return keyStamp(`${baseUrl.replace(/\/+$/, "")}\n${apiKey}`, salt).split(".")[2];
}

/** Whether `value` has the shape of a {@link PaceState}. */
function isState(value: unknown): value is PaceState {
  const s = value as PaceState;
  return (
    typeof s === "object" &&
    s !== null &&
    (s.rate === null || typeof s.rate === "number") &&
    (s.limit === null || typeof s.limit === "number") &&
    typeof s.waiting === "boolean" &&
    [s.tokens, s.at, s.pausedUntil, s.raisedAt].every((n) => typeof n === "number" && Number.isFinite(n)) &&
    typeof s.answered === "object" &&
    s.answered !== null
  );
}

/**
 * One account's budget in a pacing folder: its state file and lock. `update` is the only way
 * the state changes.
 */
export class SharedBudget {
  /** The state file. */
  readonly file: string;
  /** The lock file. */
  readonly lockFile: string;
  /** This process's lock content: its identity and a random part, then the time it was taken. */
  readonly owner = `${formatIdentity(processIdentity(process.pid))}-${randomBytes(6).toString("hex")}`;

  constructor(
    /** The pacing folder (made and checked by {@link accountName}). */
    readonly dir: string,
    /** The account's name ({@link accountName}). */
    readonly account: string,
  ) {
    this.file = path.join(dir, `${account}.json`);
    this.lockFile = path.join(dir, `${account}.lock`);
  }

  /**
   * The state as last written: a fresh one when there is none, when it cannot be read, or when it
   * was last written over {@link FORGET_AFTER_MS} ago. Takes no lock.
   */
  read(): PaceState {
    try {
      if (Date.now() - statSync(this.file).mtimeMs > FORGET_AFTER_MS) return freshState();
      const value: unknown = JSON.parse(readOr(this.file, ""));
      return isState(value) ? value : freshState();
    } catch {
      return freshState();
    }
  }

  /** Writes `state` in one step (a file of its own, renamed in place). */
  #write(state: PaceState): void {
    const tmp = `${this.file}.${this.owner}.tmp`;
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | O_NOFOLLOW, 0o600);
    try {
      writeAll(fd, JSON.stringify(state));
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
  }

  /** Takes the lock, removing one of a dead process or older than {@link LOCK_STALE_MS}. */
  async #lock(): Promise<string> {
    for (;;) {
      const mine = `${this.owner}\n${Date.now()}`;
      if (createExclusive(this.lockFile, mine)) return mine;
      const [holder = "", at = ""] = readOr(this.lockFile, "").split("\n");
      const age = Date.now() - Number(at);
      if (holder !== "" && (ownerLiveness(holder) === "dead" || !(age < LOCK_STALE_MS))) {
        // Removed only if it is still the lock judged (another process may have replaced it).
        if (readOr(this.lockFile, "") === `${holder}\n${at}`) rmSync(this.lockFile, { force: true });
        continue;
      }
      await sleep(LOCK_POLL_MS);
    }
  }

  /**
   * Runs `change` on the state under the lock and writes the state it leaves.
   * @returns what `change` returns.
   */
  async update<T>(change: (state: PaceState) => T): Promise<T> {
    const mine = await this.#lock();
    try {
      const state = this.read();
      const result = change(state);
      this.#write(state);
      return result;
    } finally {
      if (readOr(this.lockFile, "") === mine) rmSync(this.lockFile, { force: true });
    }
  }
}

/**
 * A {@link Pacer} whose bucket is a {@link SharedBudget}: the requests of this process wait in
 * line (first come, first served), and the first in line takes tokens from the shared bucket.
 * While the account has no rate (no ceiling, no 429 learned), a request only reads the state.
 * Answers other than 429 are written in batches (every {@link OBSERVE_FLUSH_MS}); a 429 at once.
 */
export class SharedPacer implements Pacer {
  #queue: Promise<void> = Promise.resolve();
  #answers: { answer: PacedAnswer; at: number }[] = [];
  #flushing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** Paces this process alone once the shared budget has failed (a full disk, a folder removed). */
  #alone: LocalPacer | undefined;

  constructor(
    /** The account's budget. */
    readonly budget: SharedBudget,
    /** This process's ceiling and burst (each process applies its own to the shared bucket). */
    readonly settings: PaceSettings,
  ) {}

  acquire(): Promise<void> {
    const turn = this.#queue.then(async () => {
      if (this.#alone) return this.#alone.acquire();
      try {
        await this.#take();
      } catch {
        this.#alone = new LocalPacer(this.settings);
      }
    });
    this.#queue = turn;
    return turn;
  }

  /** Waits for a token of the shared bucket. */
  async #take(): Promise<void> {
    for (;;) {
      const seen = this.budget.read();
      if (paceRate(seen, this.settings) === Infinity && Date.now() >= seen.pausedUntil) return;
      const wait = await this.budget.update((state) => takeToken(state, this.settings, Date.now()));
      if (wait === 0) return;
      await sleep(wait);
    }
  }

  observe(answer: PacedAnswer): void {
    if (this.#alone) return this.#alone.observe(answer);
    this.#answers.push({ answer, at: Date.now() });
    if (answer.status === 429) void this.flush();
    else this.#timer ??= setTimeout(() => void this.flush(), OBSERVE_FLUSH_MS).unref();
  }

  /** Writes the answers not yet written to the shared state; a failure loses them, never a request. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const answers = this.#answers;
    if (answers.length === 0) return this.#flushing ?? Promise.resolve();
    this.#answers = [];
    const previous = this.#flushing ?? Promise.resolve();
    const done = previous
      .then(() =>
        this.budget.update((state) => {
          for (const { answer, at } of answers) observeAnswer(state, this.settings, answer, at);
        }),
      )
      .catch(() => {});
    this.#flushing = done;
    return done;
  }
}

/**
 * The pacer of a provider process for `apiKey`: shared with this user's other processes of the
 * same account ({@link SharedPacer} in {@link pacingFolder}), or, when that folder cannot be made
 * or is not private, `undefined` (the client then paces alone, with its own `LocalPacer`).
 */
export function sharedPacer(
  apiKey: string,
  baseUrl: string,
  settings: PaceSettings,
  dir: string = pacingFolder(),
): SharedPacer | undefined {
  try {
    return new SharedPacer(new SharedBudget(dir, accountName(dir, apiKey, baseUrl)), settings);
  } catch {
    return undefined;
  }
}

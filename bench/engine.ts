/**
 * The real Pulumi engine for the benchmarks, driven through the Automation API: the project's
 * CLI (scripts/ensure-pulumi.js), a local file backend of its own under `.pulumi-state/`, a
 * passphrase secrets provider, and the local programs in bench/fixtures/. Works from the
 * TypeScript sources (jest) and from the compiled `dist/bench/` alike.
 *
 * @packageDocumentation
 */
import { existsSync, readFileSync, rmSync, mkdirSync } from "node:fs";
import path from "node:path";
import { LocalWorkspace, PulumiCommand, type Stack } from "@pulumi/pulumi/automation";
import type * as PulumiEnv from "../scripts/pulumi-env";

/** The repository root: the nearest folder above this file whose package.json is this package. */
export const REPO_ROOT: string = (() => {
  let dir = __dirname;
  for (;;) {
    const pkg = path.join(dir, "package.json");
    if (
      existsSync(pkg) &&
      (JSON.parse(readFileSync(pkg, "utf8")) as { name?: string }).name === "pulumi-service"
    ) {
      return dir;
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`no pulumi-service package.json above ${__dirname}`);
    dir = up;
  }
})();

/** scripts/pulumi-env.js, loaded by path (it is plain JavaScript, not compiled into dist/). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const pulumiEnvModule = require(path.join(REPO_ROOT, "scripts", "pulumi-env.js")) as typeof PulumiEnv;

/**
 * Folder of a benchmark program: `bench/fixtures/<name>` (`deploy`, the dynamic door; `native`,
 * the native door; `floor`).
 */
export function fixture(name: "deploy" | "native" | "floor"): string {
  return path.join(REPO_ROOT, "bench", "fixtures", name);
}

/** The passphrase of the benchmarks' throw-away stacks. */
const PASSPHRASE = "bench-passphrase";

/** A backend (a local folder, or the URL it was opened with) and the engine's environment and CLI. */
export interface Engine {
  /**
   * The backend folder (`.pulumi-state/<label>-<pid>`), removed by {@link Engine.dispose}; null
   * when the engine was opened on a backend URL.
   */
  backendDir: string | null;
  /** Environment of every engine run: CLI first on PATH, backend, passphrase. */
  env: Record<string, string>;
  /** The project's CLI (`pulumi version`, e.g. `v3.248.0`). */
  version: string;
  /** The Automation API's handle on the project's CLI. */
  command: PulumiCommand;
  /** Creates stack `name` of the program in `workDir` (removing one left over by a crash). */
  newStack(workDir: string, name: string): Promise<Stack>;
  /** Removes stack `name` (its checkpoint and its `Pulumi.<name>.yaml`), even with resources. */
  removeStack(stack: Stack): Promise<void>;
  /** Deletes the backend folder (nothing for a backend URL). */
  dispose(): void;
}

/**
 * Opens a fresh local backend for one benchmark run, or, given `backendUrl` (e.g. a throw-away
 * PostgreSQL database's `postgres://…`), that backend.
 * @throws Error when the project's CLI is missing (run `node scripts/ensure-pulumi.js`).
 */
export async function openEngine(label = "bench", backendUrl?: string): Promise<Engine> {
  const found = pulumiEnvModule.findPulumi();
  if (!found)
    throw new Error("No Pulumi CLI: run `node scripts/ensure-pulumi.js` (npm run bench does it first).");
  let backendDir: string | null = null;
  if (backendUrl === undefined) {
    backendDir = path.join(REPO_ROOT, ".pulumi-state", `${label}-${process.pid}`);
    rmSync(backendDir, { recursive: true, force: true });
    mkdirSync(backendDir, { recursive: true });
    backendUrl = `file://${backendDir}`;
  }
  const env = {
    ...pulumiEnvModule.pulumiEnv(found, { ...process.env, PULUMI_BACKEND_URL: backendUrl }),
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
  };
  // The CLI the environment puts first on PATH (the cache or a compatible one on PATH).
  const command = await PulumiCommand.get({ root: path.dirname(found.dirs[0]) });
  return {
    backendDir,
    env,
    version: found.version,
    command,
    async newStack(workDir, name) {
      const ws = await LocalWorkspace.create({ workDir, envVars: env, pulumiCommand: command });
      try {
        await ws.removeStack(name, { force: true });
      } catch {
        // none left over
      }
      return LocalWorkspace.createStack(
        { stackName: name, workDir },
        { envVars: env, pulumiCommand: command },
      );
    },
    async removeStack(stack) {
      await stack.workspace.removeStack(stack.name, { force: true });
    },
    dispose() {
      if (backendDir !== null) rmSync(backendDir, { recursive: true, force: true });
    },
  };
}

/**
 * The engine's settings of fast mode: no checkpoints (the state written once, at the end, not
 * after every step). Added to a stack's environment by `BENCH_FAST=1` and by the fast cells of
 * the scale and latency benchmarks.
 */
export const FAST_MODE_ENV: Readonly<Record<string, string>> = {
  PULUMI_EXPERIMENTAL: "true",
  PULUMI_SKIP_CHECKPOINTS: "true",
};

/** Clock ticks per second of /proc/<pid>/stat (Linux's USER_HZ, 100 on every mainstream kernel). */
const CLOCK_TICKS = 100;

/**
 * CPU milliseconds used so far by this process and by every descendant it has waited for
 * (`utime + stime + cutime + cstime` of /proc/self/stat; the engine, the language host, the
 * program and the dynamic-provider process all roll up into `cutime`/`cstime` once reaped).
 * Null where /proc is not available.
 */
export function cpuMsWithChildren(): number | null {
  let stat: string;
  try {
    stat = readFileSync("/proc/self/stat", "utf8");
  } catch {
    return null;
  }
  // Fields after the command name (which is in parentheses and may hold spaces); field 3 first.
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  return Number.isFinite(ticks) ? (ticks * 1000) / CLOCK_TICKS : null;
}

/**
 * Wall milliseconds taken by `fn`, with its result, and the CPU milliseconds used meanwhile by
 * this process (e.g. an in-process emulator) and the child processes that ended (e.g. the
 * Pulumi CLI and everything it ran); `cpuMs` is null where it cannot be measured. CPU time
 * hardly depends on what else runs on the machine, so it complements wall time on a shared one.
 */
export async function timed<T>(
  fn: () => Promise<T>,
): Promise<{ ms: number; cpuMs: number | null; result: T }> {
  const c0 = cpuMsWithChildren();
  const t0 = process.hrtime.bigint();
  const result = await fn();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const c1 = cpuMsWithChildren();
  return { ms, cpuMs: c0 === null || c1 === null ? null : c1 - c0, result };
}

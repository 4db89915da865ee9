/**
 * Reading the stacks whose states the unmanaged check (unmanaged.ts) counts: `[DIR:]STACK`
 * references ({@link parseStackRef}) and their states, each read once with
 * `pulumi stack export` through the Automation API ({@link readStackStates}), in its project
 * folder, so that the backend is the one `pulumi` uses there. Nothing is written.
 *
 * @packageDocumentation
 */
import * as fs from "fs";
import * as path from "path";
import { LocalWorkspace, type PulumiCommand } from "@pulumi/pulumi/automation";
import { findPulumiCommand } from "./drift";
import { cliPath } from "./stack";
import type { ExportedStack } from "./recovery";

/** An error of the unmanaged check; its message holds no API key. */
export class UnmanagedError extends Error {
  override name = "UnmanagedError";
}

/** A stack to read: its name, in the Pulumi project folder `cwd`. */
export interface StackRef {
  /** Stack name as `pulumi stack ls` shows it (`dev`, or `org/project/dev`). */
  stack: string;
  /** The project folder (holding `Pulumi.yaml`); default: the current directory. */
  cwd?: string;
  /**
   * Environment of `pulumi stack export` for this stack, over {@link UnmanagedOptions.env}: e.g.
   * `{ PULUMI_BACKEND_URL: "postgres://…" }` for a stack of another backend.
   */
  env?: Record<string, string>;
}

/** A stack's exported state, read by {@link readStackStates}. */
export interface StackState {
  stack: string;
  /** Absolute path of its project folder. */
  workDir: string;
  /** `pulumi stack export`'s `deployment`. */
  deployment: ExportedStack["deployment"];
}

/** Options of {@link readStackStates}. */
export interface ReadStatesOptions {
  /** Environment of the Pulumi CLI. Default: this process's environment. */
  env?: Record<string, string>;
  /** The Pulumi CLI. Default: see `findPulumiCommand` of gitops/drift.ts. */
  pulumiCommand?: PulumiCommand;
  /** Stacks read at once (default 4). */
  concurrency?: number;
}

/**
 * `[DIR:]STACK` → a {@link StackRef}: the stack name after the last `:`, its project folder
 * before it (relative to `defaultCwd`; default `defaultCwd`). Stack names hold no `:`.
 * @throws UnmanagedError when the stack name or the folder is empty.
 */
export function parseStackRef(text: string, defaultCwd: string): StackRef {
  const at = text.lastIndexOf(":");
  const stack = text.slice(at + 1);
  const cwd = at >= 0 ? text.slice(0, at) : defaultCwd;
  if (!stack || !cwd) {
    throw new UnmanagedError(
      `--stack ${JSON.stringify(text)}: expected [DIR:]STACK, e.g. infra/app:dev or dev`,
    );
  }
  return { stack, cwd: path.resolve(defaultCwd, cwd) };
}

/** Runs `work` on each item, at most `limit` at once; results in the items' order. */
async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * Reads each stack's state once (the Automation API's `pulumi stack export --show-secrets`: a stack
 * whose state holds secrets needs its secrets provider, e.g. `PULUMI_CONFIG_PASSPHRASE`; the values
 * stay in memory, only IDs and types are used), `concurrency` at once.
 * @throws UnmanagedError naming the stack and folder when a stack cannot be read.
 */
export async function readStackStates(
  stacks: readonly StackRef[],
  opts: ReadStatesOptions = {},
): Promise<StackState[]> {
  let command = opts.pulumiCommand;
  let pathEnv: Record<string, string> = {};
  const base = opts.env ?? (process.env as Record<string, string>);
  if (!command && stacks.length > 0) {
    const found = await findPulumiCommand();
    command = found.command;
    if (found.pathDirs.length > 0) pathEnv = { PATH: cliPath(found.pathDirs, base.PATH) };
  }
  return mapLimited(stacks, opts.concurrency ?? 4, async (ref) => {
    const workDir = path.resolve(ref.cwd ?? process.cwd());
    const where = `stack "${ref.stack}" in ${workDir}`;
    if (!fs.existsSync(path.join(workDir, "Pulumi.yaml")) && !fs.existsSync(path.join(workDir, "Pulumi.yml")))
      throw new UnmanagedError(`Reading ${where} failed: no Pulumi.yaml there (write --stack DIR:STACK).`);
    try {
      const envVars = { ...base, ...pathEnv, ...ref.env, PULUMI_SKIP_UPDATE_CHECK: "1" };
      const ws = await LocalWorkspace.create({ workDir, pulumiCommand: command, envVars });
      const exported = (await ws.exportStack(ref.stack)) as unknown as ExportedStack;
      return { stack: ref.stack, workDir, deployment: exported.deployment ?? {} };
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      const stderr = /stderr:\s*([\s\S]*?)(?:\n\s*err\?:|$)/.exec(text)?.[1] ?? text;
      throw new UnmanagedError(
        `Reading ${where} failed (pulumi stack export): ${stderr.trim().slice(0, 800)}`,
      );
    }
  });
}

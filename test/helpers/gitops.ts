/**
 * Helpers of the GitOps suites: run the compiled `service-drift` command line as a
 * child process, and fingerprint a local file backend to prove it was not written.
 */
import { spawn } from "child_process";
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";
import type { EngineEvent } from "@pulumi/pulumi/automation";

/** Absolute path of the compiled command line (`npm run build`). */
export const DRIFT_CLI = path.resolve(__dirname, "../../dist/gitops/cli.js");

/** What a run of the command line gave. */
export interface CliRun {
  /** Exit code (`null` if killed by a signal). */
  code: number | null;
  /** Everything written to standard output. */
  stdout: string;
  /** Everything written to standard error. */
  stderr: string;
  /** Wall time in milliseconds. */
  ms: number;
}

/**
 * Runs `node dist/gitops/cli.js ...args` with exactly `env` as its environment.
 * @throws Error when the command line is not built, or it runs longer than `timeoutMs`.
 */
export function runDriftCli(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 300_000,
): Promise<CliRun> {
  if (!fs.existsSync(DRIFT_CLI))
    return Promise.reject(new Error(`${DRIFT_CLI} is missing: run npm run build`));
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DRIFT_CLI, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`service-drift ${args.join(" ")} ran over ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** The checkpoint (state) file of a stack in a local file backend. */
export function checkpointFile(backendDir: string, project: string, stack: string): string {
  return path.join(backendDir, ".pulumi", "stacks", project, `${stack}.json`);
}

/**
 * SHA-256 of every file under `<backendDir>/.pulumi` except lock files, by relative path: the
 * state, its backup, history and backups. Equal fingerprints mean nothing was written.
 */
export function backendFingerprint(backendDir: string): Record<string, string> {
  const root = path.join(backendDir, ".pulumi");
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const rel = path.relative(root, full);
      if (rel.startsWith("locks")) continue;
      if (entry.isDirectory()) walk(full);
      else out[rel] = createHash("sha256").update(fs.readFileSync(full)).digest("hex");
    }
  };
  walk(root);
  return out;
}

/** A secret value as the engine's events carry it: masked, its ciphertext `[secret]`. */
export const MASKED_SECRET = {
  "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
  ciphertext: "[secret]",
};

/**
 * A `resOutputsEvent` of a refresh as the engine sends it: operation `op` on the custom resource
 * `name` of type `type` (ID `id-<name>`), its last deployed outputs `old` and its live ones `next`.
 */
export function outputsEvent(
  op: string,
  type: string,
  name: string,
  old: Record<string, unknown> | undefined,
  next: Record<string, unknown> | undefined,
): EngineEvent {
  const urn = `urn:pulumi:dev::proj::${type}::${name}`;
  const state = (outputs: Record<string, unknown>) => ({
    type,
    urn,
    custom: true,
    id: `id-${name}`,
    outputs,
  });
  return {
    sequence: 1,
    timestamp: 0,
    resOutputsEvent: {
      metadata: { op, urn, type, old: old && state(old), new: next && state(next), provider: "" },
    },
  } as unknown as EngineEvent;
}

/**
 * A `resourcePreEvent` of a preview: operation `op` on resource `name` of type `type`, the state's
 * inputs `oldIn` (ID `id-<name>`) and the program's `newIn` (no ID for a create); `extra` is merged into the metadata (`diffs`, `keys`…).
 */
export function preEvent(
  op: string,
  type: string,
  name: string,
  oldIn?: Record<string, unknown>,
  newIn?: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): EngineEvent {
  const urn = `urn:pulumi:dev::proj::${type}::${name}`;
  const state = (inputs: Record<string, unknown>, id: string) => ({ type, urn, custom: true, id, inputs });
  return {
    sequence: 1,
    timestamp: 0,
    resourcePreEvent: {
      metadata: {
        op,
        urn,
        type,
        old: oldIn && state(oldIn, `id-${name}`),
        new: newIn && state(newIn, op === "create" ? "" : `id-${name}`),
        provider: "",
        ...extra,
      },
    },
  } as unknown as EngineEvent;
}

/**
 * Runs the built `service-drift` with `args` (e.g. `["preview", "--fail-on", "replace"]`) on the
 * stack of `e` (`--stack`, `--cwd` its program folder, `--json`, the stack's environment): the run
 * and its JSON document (a `DriftReport`, a `PreviewSummary`, or `{ error, exitCode }`).
 */
export async function runDriftJson<T>(
  e: { stack: { name: string; workspace: { workDir: string } }; env: Record<string, string> },
  args: string[],
): Promise<CliRun & { json: T }> {
  const run = await runDriftCli(
    [...args, "--stack", e.stack.name, "--cwd", e.stack.workspace.workDir, "--json"],
    e.env,
  );
  return { ...run, json: JSON.parse(run.stdout) as T };
}

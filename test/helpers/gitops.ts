/**
 * Helpers of the GitOps suites: run the compiled `service-drift` command line as a
 * child process, and fingerprint a local file backend to prove it was not written.
 */
import { spawn } from "child_process";
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";

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

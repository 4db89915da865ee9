/**
 * Runs scripts/gen-examples.js (Pulumi's program generators over docs/examples/*.pp: the docs
 * blocks and the examples' programs) as a reader would, for the tests that hold its output
 * against what is committed.
 */
import { spawnSync } from "child_process";
import * as path from "path";
import { REPO_ROOT } from "../../scripts/pulumi-env";

/** How long one run may take, in **milliseconds** (a cold cache builds the generator first). */
export const GEN_EXAMPLES_TIMEOUT_MS = 600_000;

/**
 * `node scripts/gen-examples.js ...args`: its exit status and standard error (standard output,
 * the files it wrote, is not kept).
 */
export function genExamples(...args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(REPO_ROOT, "scripts", "gen-examples.js"), ...args], {
    encoding: "utf8",
    timeout: GEN_EXAMPLES_TIMEOUT_MS,
  });
  return { status: r.status, stderr: r.stderr };
}

/**
 * The builds of the self-contained executables, as the tests of them run them
 * (test/toolchain/plugin-binaries.test.ts, emulator-binaries.test.ts).
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { REPO_ROOT } from "../../scripts/pulumi-env";

/**
 * Runs one of the scripts that build self-contained executables
 * (scripts/build-plugin-binaries.js, scripts/build-emulator-binaries.js) with this Node.js, and
 * reads what it prints, one line per executable: `<os>-<arch> <bytes> <path>`.
 * @param timeoutMs - how long the build may take, in milliseconds.
 * @returns each platform's executable: its size in bytes and its path.
 * @throws Error with the script's stderr when it exits with another status than 0.
 */
export function runBinariesBuild(
  script: string,
  timeoutMs: number,
): Map<string, { bytes: number; path: string }> {
  const r = spawnSync(process.execPath, [path.join(REPO_ROOT, "scripts", script)], {
    encoding: "utf8",
    timeout: timeoutMs,
  });
  if (r.status !== 0) throw new Error(`${script} exited with ${r.status}:\n${r.stderr}`);
  return new Map(
    r.stdout
      .trim()
      .split("\n")
      .map((line) => line.split(" "))
      .map(([name, bytes, file]) => [name, { bytes: Number(bytes), path: file }]),
  );
}

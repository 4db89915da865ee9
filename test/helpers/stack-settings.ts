/**
 * The stack settings files (`Pulumi.<stack>.yaml`) that the engine writes beside a program when a
 * test sets a stack's configuration: the run notes those present before it ({@link stackSettingsFiles}
 * in jest's global setup) and removes those it added ({@link removeAddedStackSettings} in the
 * teardown), so that a test run leaves none behind in the checkout, whatever its outcome.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/**
 * The environment variable naming another root than the repository's for the folders searched
 * (a test of the teardown runs jest on a folder of its own with it).
 */
export const SETTINGS_ROOT_ENV = "PULUMI_SERVICE_TEST_SETTINGS_ROOT";

/** The root whose {@link PROGRAM_ROOTS} are searched: {@link SETTINGS_ROOT_ENV}, else the repository. */
export function settingsRoot(): string {
  return process.env[SETTINGS_ROOT_ENV] || path.resolve(__dirname, "../..");
}

/** The folders, relative to the repository, whose programs the tests deploy. */
export const PROGRAM_ROOTS = ["test/fixtures", "examples", "bench/fixtures"];

/** A stack settings file's name: `Pulumi.<stack>.yaml` (not the project's `Pulumi.yaml`). */
const SETTINGS_FILE = /^Pulumi\.[^/]+\.yaml$/;

/**
 * Every stack settings file under the {@link PROGRAM_ROOTS} of `repoRoot`, as absolute paths,
 * sorted; `node_modules` folders are not searched.
 */
export function stackSettingsFiles(repoRoot: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory() && e.name !== "node_modules") walk(p);
      else if (e.isFile() && SETTINGS_FILE.test(e.name)) found.push(p);
    }
  };
  for (const root of PROGRAM_ROOTS) {
    const dir = path.join(repoRoot, root);
    if (fs.existsSync(dir)) walk(dir);
  }
  return found.sort();
}

/**
 * Removes the stack settings files under `repoRoot` that are not in `before` (the files of
 * {@link stackSettingsFiles} when the run began). Returns the removed files' paths.
 */
export function removeAddedStackSettings(repoRoot: string, before: readonly string[]): string[] {
  const kept = new Set(before);
  const added = stackSettingsFiles(repoRoot).filter((f) => !kept.has(f));
  for (const f of added) fs.rmSync(f, { force: true });
  return added;
}

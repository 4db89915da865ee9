/**
 * Jest's global setup: a Pulumi home of the run's own. Every engine a test starts reads and
 * writes `PULUMI_HOME` (credentials of `pulumi login`, the workspaces' selected stacks, plugins
 * installed by `pulumi plugin install`, the update check's state), so the run gets a fresh one under
 * the system's temporary folder instead of this user's `~/.pulumi`: two checkouts tested at once
 * on one machine share nothing there, and nothing of a run is left in the home folder. The
 * workers inherit it from this process's environment; {@link ./global-teardown.ts} removes it.
 * The folder is `<os.tmpdir()>/pulumi-service-run-XXXXXX/pulumi-home`; its parent is kept in
 * {@link RUN_DIR_ENV} for the teardown.
 *
 * The stack settings files (`Pulumi.<stack>.yaml`) that tests make the engine write beside the
 * checkout's programs are removed by the teardown too (test/helpers/stack-settings.ts).
 *
 * Likewise the run's engine backends (`freshBackend` in test/helpers/pulumi.ts) go to a folder of
 * the run inside the checkout's ignored `.pulumi-state/` (`run-XXXXXX`, named in
 * {@link RUN_STATE_ENV}; inside the checkout so that programs placed there resolve the repository's
 * `node_modules`), removed by the teardown too.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { settingsRoot, stackSettingsFiles } from "./stack-settings";

/** The environment variable naming the run's folder (the parent of its `PULUMI_HOME`). */
export const RUN_DIR_ENV = "PULUMI_SERVICE_TEST_RUN_DIR";

/** The environment variable naming the run's folder of engine backends, in `.pulumi-state/`. */
export const RUN_STATE_ENV = "PULUMI_SERVICE_TEST_STATE_DIR";

/** The repository's root. */
const REPO_ROOT = path.resolve(__dirname, "../..");

/** The repository's ignored folder of local state. */
const STATE_ROOT = path.join(REPO_ROOT, ".pulumi-state");

/**
 * The file in the run's folder listing the stack settings files (`Pulumi.<stack>.yaml`) the
 * checkout's programs had when the run began (a JSON array of absolute paths, see
 * test/helpers/stack-settings.ts): the teardown removes any other.
 */
export const SETTINGS_BEFORE_FILE = "stack-settings-before.json";

/**
 * The file in the run's folder of backends naming the run's process and the root of the programs it
 * deploys, `{ pid, root }`: a teardown leaves the stack settings files to a run of the same
 * root still going (two runs in one checkout), see {@link otherRunGoing}.
 */
const RUN_FILE = "run.json";

/**
 * True when a run other than the one whose backends are in `ownState` is going with the same
 * programs' root `root`: its folder of backends holds a {@link RUN_FILE} of a live process.
 */
export function otherRunGoing(ownState: string, root: string): boolean {
  if (!fs.existsSync(STATE_ROOT)) return false;
  return fs.readdirSync(STATE_ROOT).some((name) => {
    const file = path.join(STATE_ROOT, name, RUN_FILE);
    if (path.join(STATE_ROOT, name) === ownState || !fs.existsSync(file)) return false;
    const run = JSON.parse(fs.readFileSync(file, "utf8")) as { pid: number; root: string };
    if (run.root !== root) return false;
    try {
      process.kill(run.pid, 0);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * Makes the run's folders: points `PULUMI_HOME` at the `pulumi-home` folder of a new temporary
 * folder, and {@link RUN_STATE_ENV} at a new `run-XXXXXX` folder in `.pulumi-state/`; notes the
 * stack settings files present ({@link SETTINGS_BEFORE_FILE}).
 */
export default async function globalSetup(): Promise<void> {
  fs.mkdirSync(STATE_ROOT, { recursive: true });
  const state = fs.mkdtempSync(path.join(STATE_ROOT, "run-"));
  process.env[RUN_STATE_ENV] = state;
  fs.writeFileSync(path.join(state, RUN_FILE), JSON.stringify({ pid: process.pid, root: settingsRoot() }));
  const run = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-service-run-"));
  const home = path.join(run, "pulumi-home");
  fs.mkdirSync(home);
  fs.writeFileSync(path.join(run, SETTINGS_BEFORE_FILE), JSON.stringify(stackSettingsFiles(settingsRoot())));
  process.env[RUN_DIR_ENV] = run;
  process.env.PULUMI_HOME = home;
}

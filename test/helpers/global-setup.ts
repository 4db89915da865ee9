/**
 * Jest's global setup: a Pulumi home of the run's own. Every engine a test starts reads and
 * writes `PULUMI_HOME` (credentials of `pulumi login`, the workspaces' selected stacks, plugins
 * installed by `pulumi plugin install`, the update check's state), so the run gets a fresh one under
 * the system's temporary folder instead of this user's `~/.pulumi`: two checkouts tested at once
 * on one machine share nothing there, and nothing of a run is left in the home folder. The
 * workers inherit it from this process's environment; {@link ./global-teardown.ts} removes it.
 * The folder is `<system temp>/pulumi-service-run-XXXXXX/pulumi-home`; its parent is kept in
 * {@link RUN_DIR_ENV} for the teardown.
 *
 * The run's temporary folder is a folder of the run too, `<run folder>/tmp`, named in `TMPDIR`,
 * `TMP` and `TEMP`: the workers, the engines, language hosts, providers and any other child
 * inherit it, so whatever they put in "the" temporary folder (the CLI's downloaded plugin
 * archives `pulumi-plugin-tar*`, the engine's logs, ts-node's cache `ts-node-<hash>`, Go's build
 * folders, the tests' own `mkdtemp` folders) goes with the run folder. The system's temporary
 * folder the run folder is made in is kept in {@link SYSTEM_TMP_ENV} ({@link systemTmpdir}).
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

/**
 * The environment variable naming the system's temporary folder (what `os.tmpdir()` was before
 * the setup pointed `TMPDIR` at the run's own, `<run folder>/tmp`), in which the run folder is made.
 */
export const SYSTEM_TMP_ENV = "PULUMI_SERVICE_TEST_SYSTEM_TMPDIR";

/** The variables naming the temporary folder, all set to the run's (`TMPDIR` is read first on Unix). */
export const TMP_VARS = ["TMPDIR", "TMP", "TEMP"] as const;

/**
 * The system's temporary folder, as an absolute path: `os.tmpdir()`, unless that is the temporary
 * folder of the test run named by {@link RUN_DIR_ENV} (inside a test, or a jest run a test starts,
 * or the next run of `jest --watch`), then the one that run's setup kept in {@link SYSTEM_TMP_ENV}.
 */
export function systemTmpdir(): string {
  const tmp = os.tmpdir();
  const run = process.env[RUN_DIR_ENV];
  const kept = process.env[SYSTEM_TMP_ENV];
  const rel = run && path.relative(run, tmp);
  const inRun =
    rel !== undefined && rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
  return kept && inRun ? kept : tmp;
}

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
 * Makes the run's folders: a new `pulumi-service-run-XXXXXX` folder in the system's temporary
 * folder ({@link systemTmpdir}, kept in {@link SYSTEM_TMP_ENV}), named in {@link RUN_DIR_ENV};
 * points `PULUMI_HOME` at its `pulumi-home` folder, `TMPDIR`, `TMP` and `TEMP` at its `tmp`
 * folder, and {@link RUN_STATE_ENV} at a new `run-XXXXXX` folder in `.pulumi-state/`; notes the
 * stack settings files present ({@link SETTINGS_BEFORE_FILE}).
 */
export default async function globalSetup(): Promise<void> {
  fs.mkdirSync(STATE_ROOT, { recursive: true });
  const state = fs.mkdtempSync(path.join(STATE_ROOT, "run-"));
  process.env[RUN_STATE_ENV] = state;
  fs.writeFileSync(path.join(state, RUN_FILE), JSON.stringify({ pid: process.pid, root: settingsRoot() }));
  const system = systemTmpdir();
  const run = fs.mkdtempSync(path.join(system, "pulumi-service-run-"));
  const home = path.join(run, "pulumi-home");
  fs.mkdirSync(home);
  const tmp = path.join(run, "tmp");
  fs.mkdirSync(tmp);
  // Children running as another user reach their folders in the run's temporary folder (the
  // PostgreSQL server of the team tests runs as `postgres` when the run is root's: its data folder
  // is under `tmp`): the run folder is passable by all, and `tmp` is what the system's is, open to
  // all with the sticky bit (mkdtemp makes the run folder 0700).
  fs.chmodSync(run, 0o711);
  fs.chmodSync(tmp, 0o1777);
  fs.writeFileSync(path.join(run, SETTINGS_BEFORE_FILE), JSON.stringify(stackSettingsFiles(settingsRoot())));
  process.env[RUN_DIR_ENV] = run;
  process.env.PULUMI_HOME = home;
  process.env[SYSTEM_TMP_ENV] = system;
  for (const name of TMP_VARS) process.env[name] = tmp;
}

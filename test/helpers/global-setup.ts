/**
 * Jest's global setup: a Pulumi home of the run's own. Every engine a test starts reads and
 * writes `PULUMI_HOME` (credentials of `pulumi login`, the workspaces' selected stacks, plugins
 * installed by `pulumi plugin install`, the update check's state), so the run gets a fresh one under
 * the system's temporary folder instead of this user's `~/.pulumi`: two checkouts tested at once
 * on one machine share nothing there, and nothing of a run is left in the home folder. The
 * workers inherit it from this process's environment; {@link ./global-teardown.ts} removes it.
 *
 * The folder is `<os.tmpdir()>/pulumi-service-run-XXXXXX/pulumi-home`; its parent is kept in
 * {@link RUN_DIR_ENV} for the teardown.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** The environment variable naming the run's folder (the parent of its `PULUMI_HOME`). */
export const RUN_DIR_ENV = "PULUMI_SERVICE_TEST_RUN_DIR";

/** Makes the run's folder and points `PULUMI_HOME` at the `pulumi-home` folder inside it. */
export default async function globalSetup(): Promise<void> {
  const run = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-service-run-"));
  const home = path.join(run, "pulumi-home");
  fs.mkdirSync(home);
  process.env[RUN_DIR_ENV] = run;
  process.env.PULUMI_HOME = home;
}

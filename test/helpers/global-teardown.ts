/**
 * Jest's global teardown: removes the run's folders that {@link ./global-setup.ts} made (its
 * `PULUMI_HOME`, its temporary folder with whatever the tests and their engines left there, and
 * its engine backends) and the stack settings files (`Pulumi.<stack>.yaml`) the run added beside
 * the checkout's programs, whatever the run's outcome.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import {
  otherRunGoing,
  RUN_DIR_ENV,
  RUN_STATE_ENV,
  SETTINGS_BEFORE_FILE,
  SYSTEM_TMP_ENV,
  TMP_VARS,
} from "./global-setup";
import { removeAddedStackSettings, settingsRoot } from "./stack-settings";

/**
 * Removes the stack settings files added since the setup (unless another run of the same programs
 * is still going), then the folders named by `PULUMI_SERVICE_TEST_RUN_DIR` (with the run's
 * `pulumi-home` and `tmp`) and `PULUMI_SERVICE_TEST_STATE_DIR`, if the setup made them; points
 * `TMPDIR`, `TMP` and `TEMP` back at the system's temporary folder (`PULUMI_SERVICE_TEST_SYSTEM_TMPDIR`)
 * for whatever this process does next (the next run of `jest --watch`).
 */
export default async function globalTeardown(): Promise<void> {
  const run = process.env[RUN_DIR_ENV];
  const before = run && path.join(run, SETTINGS_BEFORE_FILE);
  // Another run in this checkout may still use the files it added: they are left (git ignores them).
  const others = otherRunGoing(process.env[RUN_STATE_ENV] ?? "", settingsRoot());
  if (before && fs.existsSync(before) && !others)
    removeAddedStackSettings(settingsRoot(), JSON.parse(fs.readFileSync(before, "utf8")) as string[]);
  for (const name of [RUN_DIR_ENV, RUN_STATE_ENV]) {
    const dir = process.env[name];
    if (dir) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  }
  const system = process.env[SYSTEM_TMP_ENV];
  if (system) for (const name of TMP_VARS) process.env[name] = system;
}

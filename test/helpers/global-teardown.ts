/**
 * Jest's global teardown: removes the run's folders that {@link ./global-setup.ts} made (its
 * `PULUMI_HOME` and its engine backends), whatever the run's outcome.
 */
import * as fs from "node:fs";
import { RUN_DIR_ENV, RUN_STATE_ENV } from "./global-setup";

/** Removes the folders named by `PULUMI_SERVICE_TEST_RUN_DIR` and `PULUMI_SERVICE_TEST_STATE_DIR`, if the setup made them. */
export default async function globalTeardown(): Promise<void> {
  for (const name of [RUN_DIR_ENV, RUN_STATE_ENV]) {
    const dir = process.env[name];
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}

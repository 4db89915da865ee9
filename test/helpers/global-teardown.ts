/**
 * Jest's global teardown: removes the run's folder that {@link ./global-setup.ts} made (its
 * `PULUMI_HOME` included), whatever the run's outcome.
 */
import * as fs from "node:fs";
import { RUN_DIR_ENV } from "./global-setup";

/** Removes the folder named by `PULUMI_SERVICE_TEST_RUN_DIR`, if the setup made one. */
export default async function globalTeardown(): Promise<void> {
  const run = process.env[RUN_DIR_ENV];
  if (run) fs.rmSync(run, { recursive: true, force: true });
}

/**
 * A Go module folder that takes the generated Go SDK (sdk/go) from this checkout: go.mod and
 * go.sum of test/fixtures/sdk-go (module pulumiservice.local/sdk-go-test, requiring the SDK and
 * github.com/pulumi/pulumi/sdk/v3 at the CLI's release), its `replace` made absolute.
 */
import * as fs from "fs";
import * as path from "path";
import { REPO_ROOT } from "../../scripts/pulumi-env";

const FIXTURE = path.join(REPO_ROOT, "test", "fixtures", "sdk-go");
const RELATIVE_REPLACE = "=> ../../../sdk/go";

/**
 * Writes go.mod and go.sum into `dir` (which must exist).
 * @throws Error when the fixture's go.mod no longer has the `replace` this rewrites.
 */
export function writeSdkGoModule(dir: string): void {
  const goMod = fs.readFileSync(path.join(FIXTURE, "go.mod"), "utf8");
  if (!goMod.includes(RELATIVE_REPLACE)) throw new Error(`${FIXTURE}/go.mod lacks "${RELATIVE_REPLACE}"`);
  fs.writeFileSync(
    path.join(dir, "go.mod"),
    goMod.replace(RELATIVE_REPLACE, `=> ${path.join(REPO_ROOT, "sdk", "go")}`),
  );
  fs.copyFileSync(path.join(FIXTURE, "go.sum"), path.join(dir, "go.sum"));
}

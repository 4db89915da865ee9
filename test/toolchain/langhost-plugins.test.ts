/**
 * The language hosts this repository builds (tools/pulumi/pulumi-language-{nodejs,python,go},
 * sharing tools/pulumi/langhost) report the resource plugins a program's installed packages
 * declare, through GetRequiredPackages and GetRequiredPlugins, as Pulumi's released hosts do.
 * Their Go unit tests build the fixtures in temporary folders: a node_modules tree (scoped,
 * nested, linked packages and parents' node_modules), a real virtual environment with
 * distributions carrying pulumi-plugin.json, a Go module requiring modules replaced by local
 * folders. This file runs them with `go test` in tools/pulumi, so that `npm test` does.
 */
import { spawnSync } from "child_process";
import { BUILD_MODULE } from "../../scripts/pulumi-env";
import { goFlags } from "../helpers/go-flags";

// The hosts' packages, compiled with goFlags (the engine build's flags), are those the engine's
// build compiled (cached); a run without that build compiles Pulumi's Go SDK packages the hosts
// use first.
const TIMEOUT = 600_000;

/** Each package and the tests of its own that must have passed (not skipped). */
const PACKAGES: Array<[string, string[]]> = [
  ["langhost", ["TestPluginVersion", "TestPackageOf", "TestRequiredRPCs"]],
  ["pulumi-language-nodejs", ["TestDiscoverNodeModules", "TestDiscoverNothing"]],
  [
    "pulumi-language-python",
    ["TestDiscoverVirtualenv", "TestDiscoverMissingVirtualenv", "TestSemverOfPEP440"],
  ],
  ["pulumi-language-go", ["TestDiscoverModules", "TestDiscoverNoModule", "TestModuleVersion"]],
];

describe("language hosts' plugin discovery (go test in tools/pulumi)", () => {
  let status: number | null = null;
  let out = "";

  beforeAll(() => {
    const r = spawnSync("go", ["test", "-count=1", "-v", ...PACKAGES.map(([pkg]) => `./${pkg}/`)], {
      cwd: BUILD_MODULE,
      encoding: "utf8",
      timeout: TIMEOUT,
      env: { ...process.env, GOFLAGS: goFlags("-mod=readonly") },
    });
    status = r.status;
    out = `${r.stdout ?? ""}${r.stderr ?? ""}${r.error?.message ?? ""}`;
  }, TIMEOUT);

  it("go test exits 0", () => {
    expect({ status, out: status === 0 ? "" : out }).toEqual({ status: 0, out: "" });
  });

  it.each(PACKAGES)("%s: its tests pass", (pkg, tests) => {
    expect(out).toMatch(new RegExp(`^ok\\s+pulumiservice\\.local/pulumi-tools/${pkg}\\s`, "m"));
    for (const test of tests) expect(out).toMatch(new RegExp(`^--- PASS: ${test} `, "m"));
  });
});

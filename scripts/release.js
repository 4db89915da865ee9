#!/usr/bin/env node
// The release, from one version number (the packages' version; the tag is `v<version>`):
//
//   node scripts/release.js build [--tag v<version>]   what .github/workflows/release.yml runs
//   npm run release:dry                                  build, then every upload step as a dry run
//
// `build` checks the versions, then makes everything a release publishes, into dist/release/:
//   1. versions: the five npm packages (scripts/check-release.js), the schema, and each SDK's
//      package metadata (sdk/nodejs/package.json, sdk/python's pyproject.toml and
//      pulumi-plugin.json, sdk/go's pulumi-plugin.json) all at the version;
//   2. plugin/: the plugin's executable per platform (scripts/build-plugin-binaries.js, built
//      into dist/plugin-binaries) packed into pulumi-resource-service-v<version>-<os>-<arch>.tar.gz,
//      and the emulator's (scripts/build-emulator-binaries.js, into dist/emulator-binaries) into
//      service-emulator-v<version>-<os>-<arch>.tar.gz, with the checksums file of them all
//      (scripts/release-archives.js): the GitHub release's assets;
//   3. python/: the wheel and sdist of pulumi_service (scripts/build-python-sdk.js): PyPI's;
//   4. go: the Go SDK module builds (`go build ./...` in sdk/go); its release is the git tag
//      `sdk/go/v<version>` (Go's rule for a module in the folder sdk/go of the repository).
// The workflow then uploads, in this order: the GitHub release with the archives and checksums,
// the npm packages (service-cli-kit, service-contract, service-policy, service-emulator,
// pulumi-service), the Python distributions to PyPI, and the Go tag. `--dry-run` (release:dry)
// runs those uploads' own dry runs instead: `npm publish --dry-run` of each package in that
// order, and, for the others, what would be uploaded, checked (file names, versions), not sent.
//
// Prints one line per step (`release: <step>: <what>`). Exit 1 with the reason when a check or a
// step fails.
"use strict";

const fs = require("fs");
const path = require("path");
const { spawnSync } = require("child_process");
const { GO_BUILD_FLAGS, REPO_ROOT } = require("./pulumi-env");
const { check: checkPackages, PACKAGES } = require("./check-release");
const { buildPluginBinaries, run } = require("./build-plugin-binaries");
const { buildEmulatorBinaries } = require("./build-emulator-binaries");
const { releaseArchives, checksumsName } = require("./release-archives");

/** Where a release is made. */
const OUT = path.join(REPO_ROOT, "dist", "release");
/** The npm packages in the order they are published: each after the ones it depends on. */
const NPM_ORDER = [
  "service-cli-kit",
  "service-contract",
  "service-policy",
  "service-emulator",
  "pulumi-service",
];

function say(step, what) {
  process.stdout.write(`release: ${step}: ${what}\n`);
}

function readJson(file) {
  return JSON.parse(fs.readFileSync(path.join(REPO_ROOT, file), "utf8"));
}

/**
 * The problems with releasing `tag`: those of check-release.js (the five npm packages), and
 * every generated artefact whose version is not the tag's.
 * @returns {string[]} one line per problem; empty when the release may go on.
 */
function checkVersions(tag) {
  const problems = checkPackages(tag);
  if (problems.length > 0) return problems;
  const version = tag.slice(1);
  const found = {
    "provider/native/schema.json": readJson("provider/native/schema.json").version,
    "sdk/nodejs/package.json": readJson("sdk/nodejs/package.json").version,
    "sdk/nodejs/package.json pulumi.version": readJson("sdk/nodejs/package.json").pulumi?.version,
    "sdk/python/pyproject.toml": /^\s*version = "([^"]+)"/m.exec(
      fs.readFileSync(path.join(REPO_ROOT, "sdk/python/pyproject.toml"), "utf8"),
    )?.[1],
    "sdk/python/pulumi_service/pulumi-plugin.json": readJson("sdk/python/pulumi_service/pulumi-plugin.json")
      .version,
    "sdk/go/service/pulumi-plugin.json": readJson("sdk/go/service/pulumi-plugin.json").version,
  };
  for (const [where, v] of Object.entries(found)) {
    if (v !== version)
      problems.push(
        `${where} is at ${v}, the tag says ${version} (run npm run gen:schema and npm run gen:sdks)`,
      );
  }
  return problems;
}

/**
 * Makes the release of `tag` into `out` (see the file's comment): checks, the plugin's and the
 * emulator's archives, Python distributions, Go build.
 * @returns {Promise<{ archives: string[], python: string[], goTag: string }>} the files made and the Go tag.
 * @throws Error listing the version problems, or the failing step's output.
 */
async function build(tag, out = OUT) {
  const problems = checkVersions(tag);
  if (problems.length > 0)
    throw new Error(`release check failed:\n${problems.map((p) => `  ${p}\n`).join("")}`);
  const version = tag.slice(1);
  say("versions", `the npm packages, the schema and the SDKs are at ${version}`);

  fs.rmSync(out, { recursive: true, force: true });
  // Where build:plugin-binaries puts them: made again only when something they hold changed
  // (the build takes a lock on the folder, so two builds at once wait for each other).
  const binaries = path.join(REPO_ROOT, "dist", "plugin-binaries");
  await buildPluginBinaries({ outDir: binaries });
  const emulatorBinaries = path.join(REPO_ROOT, "dist", "emulator-binaries");
  await buildEmulatorBinaries({ outDir: emulatorBinaries });
  const archives = await releaseArchives({
    binaries,
    emulatorBinaries,
    out: path.join(out, "plugin"),
    version,
  });
  say(
    "plugin",
    `${archives.length} archives (the plugin's and the emulator's) and ${checksumsName(version)} in ${path.join(out, "plugin")}`,
  );

  const pythonOut = path.join(out, "python");
  run(process.execPath, [path.join(__dirname, "build-python-sdk.js"), "--out", pythonOut]);
  const python = fs.readdirSync(pythonOut).sort();
  const expected = [`pulumi_service-${version}-py3-none-any.whl`, `pulumi_service-${version}.tar.gz`];
  if (JSON.stringify(python) !== JSON.stringify(expected)) {
    throw new Error(`the Python build made ${python.join(", ")}, not ${expected.join(", ")}`);
  }
  say("python", `${python.join(" and ")} in ${pythonOut}`);

  // GO_BUILD_FLAGS, as every Go build of this repository's scripts and tests: Go's build cache then
  // keys the compiled packages by their files alone, not by their folders, and this check reuses
  // the packages the other builds of Pulumi's Go SDK compiled.
  run("go", ["build", ...GO_BUILD_FLAGS, "./..."], { cwd: path.join(REPO_ROOT, "sdk", "go") });
  const goTag = `sdk/go/v${version}`;
  say("go", `module github.com/pulumi-service/pulumi-service/sdk/go builds; its release is the tag ${goTag}`);
  return { archives: archives.map((a) => a.file), python: python.map((f) => path.join(pythonOut, f)), goTag };
}

/**
 * Every upload of the release as a dry run, in the workflow's order: the GitHub release's
 * assets (listed), `npm publish --dry-run` of each package, the PyPI upload (listed), the Go
 * tag (named). Nothing is sent.
 * @throws Error with npm's output when a dry run fails.
 */
function dryUploads(tag, made, out = OUT) {
  const plugin = path.join(out, "plugin");
  say("dry run", `GitHub release ${tag} would get ${fs.readdirSync(plugin).sort().join(", ")}`);
  for (const name of NPM_ORDER) {
    const workspace = PACKAGES[name] === "." ? [] : ["--workspace", name];
    // The build already ran (npm test's pretest, or npm run build): no lifecycle scripts again.
    const r = spawnSync(
      "npm",
      ["publish", "--dry-run", "--ignore-scripts", "--access", "public", ...workspace],
      {
        cwd: REPO_ROOT,
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    if (r.status !== 0) throw new Error(`npm publish --dry-run of ${name} failed:\n${r.stdout}${r.stderr}`);
    const line = (r.stdout + r.stderr).split("\n").find((l) => /\+ \S+@\S+/.test(l)) ?? "";
    say("dry run", `npm publish ${name}: ${line.replace(/^npm (notice|warn)\s*/, "").trim()}`);
  }
  say("dry run", `PyPI would get ${made.python.map((f) => path.basename(f)).join(", ")}`);
  say("dry run", `git would push the tag ${made.goTag}`);
}

module.exports = { NPM_ORDER, build, checkVersions, dryUploads };

if (require.main === module) {
  const args = process.argv.slice(2);
  const tagAt = args.indexOf("--tag");
  const version = readJson("package.json").version;
  const tag = tagAt >= 0 ? args[tagAt + 1] : `v${version}`;
  const dry = args.includes("--dry-run");
  if (args[0] !== "build") {
    process.stderr.write("usage: release.js build [--tag v<version>] [--dry-run]\n");
    process.exit(2);
  }
  build(tag)
    .then((made) => {
      if (dry) dryUploads(tag, made);
    })
    .catch((err) => {
      process.stderr.write(`release: ${err.message}\n`);
      process.exit(1);
    });
}

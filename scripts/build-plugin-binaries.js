#!/usr/bin/env node
// Builds the native provider plugin `pulumi-resource-service` as one self-contained executable
// per platform (`npm run build:plugin-binaries`), each runnable without Node.js or node_modules:
//
//   dist/plugin-binaries/<os>-<arch>/pulumi-resource-service[.exe]
//
// for linux-amd64, linux-arm64, darwin-amd64, darwin-arm64 and windows-amd64 (Pulumi's names
// for the platforms). How:
//
// 1. esbuild bundles dist/provider/native/main.js (built by `npm run build`) and what
//    bin/pulumi-resource-service does (`serve(process.argv.slice(2))`) into one CommonJS file.
//    Two things the plugin finds on disk at run time are carried in the bundle instead:
//    provider/native/deps.js's `fromPulumi(id)` (a require resolved from @pulumi/pulumi's
//    folder) becomes a table of static requires of the ids the plugin passes it, and the
//    package.json that server.js reads its version from (found by walking up from its own
//    folder) is answered from the bundle while the plugin's modules load. The schema is built
//    from the contract in memory (provider/native/schema.ts), so no file is read for it.
// 2. Node.js's Single Executable Applications, as scripts/sea-binaries.js makes them for every
//    executable of this repository: the blob made with Node.js NODE_VERSION from the registry's
//    per-platform packages (cached in ~/.cache/pulumi-service/node-sea-v<version>/), injected
//    into each platform's binary with postject; the executable of the platform that builds
//    carries V8's code cache of the bundle (it starts about a quarter faster).
// 3. An executable is injected again (10 to 40 s each) only when the bundle, its base binary,
//    these scripts or postject changed since it was made (`.build/<os>-<arch>.stamp.json`).
//
// Signatures: see scripts/sea-binaries.js (a macOS user re-signs the executable ad hoc; see
// docs/providers.md).
//
// Usage: node scripts/build-plugin-binaries.js [--target <os>-<arch>]… [--out DIR]
//   (default: every target, into dist/plugin-binaries)
// Prints one line per executable on stdout: `<os>-<arch> <bytes> <path>`. Progress goes to
// stderr. Exit 1 with the reason when dist/ is not built, the registry cannot be reached or a
// step fails.
"use strict";

const fs = require("fs");
const path = require("path");
const { REPO_ROOT } = require("./pulumi-env");
const {
  BUNDLE_OPTIONS,
  NODE_VERSION,
  baseCacheDir,
  buildMain,
  buildSeaBinaries,
  ensureBaseBinary,
  run,
  targetsOf,
} = require("./sea-binaries");

/**
 * The platforms built: Pulumi's `<os>-<arch>` name, the registry package of that platform's
 * Node.js, the binary's path inside the package, and the executable's file name.
 */
const TARGETS = targetsOf("pulumi-resource-service");

const MAIN = path.join(REPO_ROOT, "dist", "provider", "native", "main.js");
const DEPS = path.join(REPO_ROOT, "dist", "provider", "native", "deps.js");

function log(msg) {
  process.stderr.write(`build-plugin-binaries: ${msg}\n`);
}

/**
 * The module ids the plugin passes to `fromPulumi` (provider/native/deps.ts), read from the
 * compiled files of provider/native.
 * @throws Error when a call passes something other than a string literal (it could not be bundled).
 */
function fromPulumiIds() {
  const dir = path.dirname(MAIN);
  const ids = new Set();
  for (const f of fs.readdirSync(dir).filter((n) => n.endsWith(".js") && n !== "deps.js")) {
    const text = fs.readFileSync(path.join(dir, f), "utf8");
    for (const m of text.matchAll(/fromPulumi\)?\(\s*([^)\s][^)]*?)\s*\)/g)) {
      const lit = /^"([^"]+)"$/.exec(m[1]);
      if (!lit)
        throw new Error(`${f}: fromPulumi(${m[1]}) is not a string literal; the bundle needs literals`);
      ids.add(lit[1]);
    }
  }
  return [...ids].sort();
}

/**
 * Bundles the plugin into one CommonJS file at `outFile` with esbuild (see the header).
 * @returns the bundle's size in bytes.
 * @throws Error when dist/ is not built or esbuild fails.
 */
async function bundle(outFile) {
  if (!fs.existsSync(MAIN))
    throw new Error(`${path.relative(REPO_ROOT, MAIN)} is missing: run npm run build first`);
  const esbuild = require("esbuild");
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8"));
  const pulumiDir = path.dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [REPO_ROOT] }));
  const ids = fromPulumiIds();
  const entry = `"use strict";
// The plugin as bin/pulumi-resource-service starts it, in one file (scripts/build-plugin-binaries.js).
const fs = require("fs");
const path = require("path");
// server.js reads the package's version from the package.json it finds above its own folder,
// which is this file's: that one file is answered from here, while the modules load.
const manifest = ${JSON.stringify(JSON.stringify({ name: manifest.name, version: manifest.version }))};
const manifestPath = path.join(__dirname, "package.json");
const { existsSync, readFileSync } = fs;
fs.existsSync = (p, ...rest) => p === manifestPath || existsSync(p, ...rest);
fs.readFileSync = (p, ...rest) => (p === manifestPath ? manifest : readFileSync(p, ...rest));
let main;
try {
  main = require(${JSON.stringify(MAIN)});
} finally {
  fs.existsSync = existsSync;
  fs.readFileSync = readFileSync;
}
main.serve(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
`;
  const depsModule = `"use strict";
// provider/native/deps.js in the bundle: the modules @pulumi/pulumi depends on, required from its folder.
const modules = {
${ids.map((id) => `  ${JSON.stringify(id)}: () => require(${JSON.stringify(id)}),`).join("\n")}
};
exports.fromPulumi = (id) => {
  const load = modules[id];
  if (!load) throw new Error("fromPulumi(" + JSON.stringify(id) + "): not in the bundle (scripts/build-plugin-binaries.js)");
  return load();
};
`;
  const result = await esbuild.build({
    stdin: { contents: entry, resolveDir: REPO_ROOT, sourcefile: "plugin-entry.js", loader: "js" },
    ...BUNDLE_OPTIONS,
    outfile: outFile,
    plugins: [
      {
        name: "deps",
        setup(build) {
          build.onLoad({ filter: /[\\/]provider[\\/]native[\\/]deps\.js$/ }, (args) =>
            path.resolve(args.path) === DEPS
              ? { contents: depsModule, resolveDir: pulumiDir, loader: "js" }
              : undefined,
          );
        },
      },
    ],
  });
  if (result.errors.length > 0) throw new Error(`esbuild: ${result.errors.map((e) => e.text).join("; ")}`);
  return fs.statSync(outFile).size;
}

/**
 * Builds the executables of `targetNames` (default: every target) into `outDir` (default
 * dist/plugin-binaries), with scripts/sea-binaries.js.
 * @returns one `{ name, path, bytes }` per executable, in TARGETS' order.
 * @throws Error when a target is unknown, this machine runs none of TARGETS' platforms (it needs
 * one to make the blob), dist/ is not built, a download or a step fails.
 */
function buildPluginBinaries({ targetNames, outDir } = {}) {
  return buildSeaBinaries({
    exe: "pulumi-resource-service",
    outDir: outDir || path.join(REPO_ROOT, "dist", "plugin-binaries"),
    targetNames,
    bundle,
    scripts: [path.join(__dirname, "build-plugin-binaries.js")],
    log,
  });
}

if (require.main === module) {
  buildMain("build-plugin-binaries.js", buildPluginBinaries, log);
}

module.exports = { NODE_VERSION, TARGETS, baseCacheDir, ensureBaseBinary, buildPluginBinaries, run };

#!/usr/bin/env node
// Builds the emulator's command line `service-emulator` as one self-contained executable per
// platform (`npm run build:emulator-binaries`), each runnable without Node.js or node_modules:
//
//   dist/emulator-binaries/<os>-<arch>/service-emulator[.exe]
//
// for linux-amd64, linux-arm64, darwin-amd64, darwin-arm64 and windows-amd64. How:
//
// 1. esbuild bundles packages/emulator/dist/cli.js (built by `npm run build`) and what
//    `node dist/cli.js` does (`runCli`) into one CommonJS file, with three changes:
//    - SQLite: the store's `better-sqlite3` (a native addon, which a Single Executable
//      Application cannot load from inside itself) is scripts/sea-better-sqlite3.js, the part of
//      better-sqlite3's API the store uses on Node.js 22's built-in `node:sqlite`. The data file
//      is the same SQLite file either way (WAL journal), so a `--data` file moves between the
//      executable and the npm package.
//    - `--version`: the package's version is put in the bundle (the npm command line reads it
//      from the package.json above its folder, which the executable does not have).
//    - `--detach` starts the executable itself again (`runCli(null)`), not `node cli.js`.
// 2. scripts/sea-binaries.js makes the executables, as for the plugin (scripts/build-plugin-binaries.js):
//    the blob made with Node.js NODE_VERSION (22.23.2, from the npm registry's per-platform
//    packages, cached in ~/.cache/pulumi-service/node-sea-v<version>/), injected into each
//    platform's binary with postject, again only when something it holds changed.
//
// Usage: node scripts/build-emulator-binaries.js [--target <os>-<arch>]… [--out DIR]
//   (default: every target, into dist/emulator-binaries)
// Prints one line per executable on stdout: `<os>-<arch> <bytes> <path>`. Progress goes to
// stderr. Exit 1 with the reason when packages/emulator/dist is not built, the registry cannot
// be reached or a step fails.
"use strict";

const fs = require("fs");
const path = require("path");
const { REPO_ROOT } = require("./pulumi-env");
const { BUNDLE_OPTIONS, buildMain, buildSeaBinaries, targetsOf } = require("./sea-binaries");

/** The executable's name, as the npm package's bin. */
const EXE = "service-emulator";

/** The platforms built, each with `exe`: `service-emulator`, `service-emulator.exe` on Windows. */
const TARGETS = targetsOf(EXE);

const EMULATOR = path.join(REPO_ROOT, "packages", "emulator");
const CLI = path.join(EMULATOR, "dist", "cli.js");
/** What stands for better-sqlite3 in the bundle. */
const SQLITE = path.join(__dirname, "sea-better-sqlite3.js");

/** The line of the compiled cli.js that reads the version from the package.json above it. */
const VERSION_CALL = /\(0, service_cli_kit_1\.packageVersion\)\("service-emulator", __dirname\)/g;

function log(msg) {
  process.stderr.write(`build-emulator-binaries: ${msg}\n`);
}

/** The emulator package's version (packages/emulator/package.json). */
function emulatorVersion() {
  return JSON.parse(fs.readFileSync(path.join(EMULATOR, "package.json"), "utf8")).version;
}

/**
 * Bundles the emulator's command line into one CommonJS file at `outFile` with esbuild (see the
 * header).
 * @returns {Promise<number>} the bundle's size in bytes.
 * @throws Error when packages/emulator/dist is not built, cli.js no longer reads its version as
 *   this script expects, or esbuild fails.
 */
async function bundle(outFile) {
  if (!fs.existsSync(CLI))
    throw new Error(`${path.relative(REPO_ROOT, CLI)} is missing: run npm run build first`);
  const esbuild = require("esbuild");
  const version = emulatorVersion();
  const entry = `"use strict";
// service-emulator as \`node packages/emulator/dist/cli.js\` runs it, in one file (scripts/build-emulator-binaries.js).
require(${JSON.stringify(CLI)}).runCli(null);
`;
  const result = await esbuild.build({
    stdin: { contents: entry, resolveDir: REPO_ROOT, sourcefile: "emulator-entry.js", loader: "js" },
    ...BUNDLE_OPTIONS,
    outfile: outFile,
    plugins: [
      {
        name: "emulator-sea",
        setup(build) {
          build.onResolve({ filter: /^better-sqlite3$/ }, () => ({ path: SQLITE }));
          build.onLoad({ filter: /[\\/]emulator[\\/]dist[\\/]cli\.js$/ }, (args) => {
            if (path.resolve(args.path) !== CLI) return undefined;
            const text = fs.readFileSync(CLI, "utf8");
            const calls = text.match(VERSION_CALL) ?? [];
            if (calls.length !== 1)
              throw new Error(
                `${path.relative(REPO_ROOT, CLI)}: expected one packageVersion("service-emulator", __dirname), found ${calls.length}`,
              );
            return { contents: text.replace(VERSION_CALL, JSON.stringify(version)), loader: "js" };
          });
        },
      },
    ],
  });
  if (result.errors.length > 0) throw new Error(`esbuild: ${result.errors.map((e) => e.text).join("; ")}`);
  return fs.statSync(outFile).size;
}

/**
 * Builds the executables of `targetNames` (default: every target) into `outDir` (default
 * dist/emulator-binaries), each at `<outDir>/<os>-<arch>/service-emulator[.exe]`.
 * @returns {Promise<{ name: string, path: string, bytes: number }[]>} one per executable, in TARGETS' order.
 * @throws Error when a target is unknown, packages/emulator/dist is not built, a download or a step fails.
 */
function buildEmulatorBinaries({ targetNames, outDir } = {}) {
  return buildSeaBinaries({
    exe: EXE,
    outDir: outDir || path.join(REPO_ROOT, "dist", "emulator-binaries"),
    targetNames,
    bundle,
    scripts: [path.join(__dirname, "build-emulator-binaries.js"), SQLITE],
    log,
  });
}

if (require.main === module) {
  buildMain("build-emulator-binaries.js", buildEmulatorBinaries, log);
}

module.exports = { EXE, TARGETS, buildEmulatorBinaries };

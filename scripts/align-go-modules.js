#!/usr/bin/env node
// Aligns the dependency versions of the repository's other Go tool modules, tools/pulumi-oldest
// and tools/pulumi-yaml, with those of tools/pulumi (the engine the suite runs): every module that
// one of them and tools/pulumi both require is required at tools/pulumi's version, but for the
// Pulumi release the module builds and the holds named in ALIGNED below.
//
// Why: Go's build cache keys a compiled package by its module's version and by everything it
// imports. With one set of versions, a package that two modules' builds share (gRPC, the cloud
// SDKs, OpenTelemetry and the rest of the engine's graph) is compiled once on a new machine:
// the oldest CLI's build then compiles about 220 packages instead of about 1,100, and Pulumi
// YAML's about 170 instead of about 380. The releases of Pulumi each module builds stay their own.
//
// Usage: node scripts/align-go-modules.js [--check]
//   without --check: `go get <module>@<version> ...` then `go mod tidy` in each module, then the
//   check; with --check: only the check, no file changed. Prints each difference left; exit 1
//   when there is one (a test runs the check: test/scripts/align-go-modules.test.ts).
"use strict";

const fs = require("fs");
const path = require("path");
const { spawnSync } = require("child_process");
const { BUILD_MODULE, OLDEST_MODULE, REPO_ROOT, YAML_MODULE } = require("./pulumi-env");

/** A Go module's folder (absolute) relative to the repository, as this script names modules. */
const relative = (dir) => path.relative(REPO_ROOT, dir).split(path.sep).join("/");
/** The module whose versions the others follow: the engine's (BUILD_MODULE). */
const REFERENCE = relative(BUILD_MODULE);
/** The Pulumi release a module builds: never aligned (tools/pulumi's is the newer engine). */
const PULUMI_MODULES = ["github.com/pulumi/pulumi/pkg/v3", "github.com/pulumi/pulumi/sdk/v3"];

/**
 * The aligned modules (folders relative to the repository), each with the modules it keeps at
 * its own version and why (module path to reason).
 */
const ALIGNED = [
  {
    dir: relative(OLDEST_MODULE),
    holds: {
      "gocloud.dev":
        "pkg/v3 v3.248.0's PostgreSQL backend implements gocloud.dev's blob driver of v0.46.0; later commits add an options argument to Delete",
    },
  },
  { dir: relative(YAML_MODULE), holds: {} },
];

/**
 * The requirements of the go.mod file `file` (direct and indirect): module path to version.
 * Reads `require` lines and blocks; ignores `replace`, `exclude`, `tool` and comments.
 * @throws Error when the file cannot be read.
 */
function requirements(file) {
  const text = fs.readFileSync(file, "utf8");
  const out = new Map();
  let inRequire = false;
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\/\/.*$/, "").trim();
    if (inRequire) {
      if (line === ")") inRequire = false;
      else if (line) {
        const [mod, version] = line.split(/\s+/);
        out.set(mod, version);
      }
    } else if (line === "require (") inRequire = true;
    else if (line.startsWith("require ")) {
      const [, mod, version] = line.split(/\s+/);
      out.set(mod, version);
    }
  }
  return out;
}

/**
 * The differences of one aligned module: each module that it and the reference both require at
 * different versions, but for Pulumi's own modules and `holds`, as `{ module, want, have }`
 * (`want` the reference's version, `have` this module's), sorted by module path.
 */
function mismatches(goMod, referenceGoMod, holds = {}) {
  const want = requirements(referenceGoMod);
  const have = requirements(goMod);
  const out = [];
  for (const [mod, version] of have) {
    if (PULUMI_MODULES.includes(mod) || mod in holds || !want.has(mod)) continue;
    if (want.get(mod) !== version) out.push({ module: mod, want: want.get(mod), have: version });
  }
  return out.sort((a, b) => a.module.localeCompare(b.module));
}

/** Runs `go <args>` in `cwd`; throws with its output when it fails. */
function go(args, cwd) {
  const r = spawnSync("go", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (r.error) throw new Error(`go ${args[0]} in ${cwd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`go ${args.slice(0, 2).join(" ")} in ${cwd} failed:\n${r.stderr}`);
}

function main() {
  const check = process.argv.includes("--check");
  const reference = path.join(REPO_ROOT, REFERENCE, "go.mod");
  let left = 0;
  for (const { dir, holds } of ALIGNED) {
    const cwd = path.join(REPO_ROOT, dir);
    const goMod = path.join(cwd, "go.mod");
    // A `go get` may add requirements of its own (the modules a newer version imports), at
    // versions of their own: a few passes align those too.
    for (let pass = 0; !check && pass < 4; pass++) {
      const todo = mismatches(goMod, reference, holds);
      if (todo.length === 0) break;
      go(["get", ...todo.map((m) => `${m.module}@${m.want}`)], cwd);
      go(["mod", "tidy"], cwd);
    }
    for (const m of mismatches(goMod, reference, holds)) {
      process.stderr.write(`${dir}: ${m.module} ${m.have}, ${REFERENCE} requires ${m.want}\n`);
      left++;
    }
  }
  if (left > 0) {
    process.stderr.write(
      `align-go-modules: ${left} version(s) differ from ${REFERENCE}'s: run \`node scripts/align-go-modules.js\`, or hold the module in ALIGNED with the reason\n`,
    );
    process.exit(1);
  }
}

if (require.main === module) main();

module.exports = { ALIGNED, PULUMI_MODULES, REFERENCE, mismatches, requirements };

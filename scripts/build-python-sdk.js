#!/usr/bin/env node
// Builds the Python SDK (sdk/python, package `pulumi_service`) into a wheel and an sdist with
// the standard build front end, PyPA's `build` (`npm run build:python-sdk`).
//
// `build` and the build back end (setuptools) run from a virtual environment of their own, made
// once by scripts/ensure-venv.js from scripts/requirements/python-build.txt (its pins) in the
// user's cache, `~/.cache/pulumi-service/venv-python-build-<hash>/`; ensure-venv's lock makes two
// builds at once (two test files) wait for one venv instead of making it over each other. The SDK
// folder is copied to a temporary folder first, with the generated README beside pyproject.toml
// (which names it), so the checked-in SDK stays as generated.
//
// Usage: node scripts/build-python-sdk.js [--out DIR]   (default dist/python)
// Prints the paths of the two files on stdout, one a line. Exit 1 with the tool's output when
// Python 3.9+ is missing or a step fails.
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const { spawnSync } = require("child_process");
const { REPO_ROOT } = require("./pulumi-env");
const { ensureVenv, venvPython } = require("./ensure-venv");

const SDK_DIR = path.join(REPO_ROOT, "sdk", "python");
const REQUIREMENTS = path.join(__dirname, "requirements", "python-build.txt");

function fail(msg) {
  process.stderr.write(`build-python-sdk: ${msg}\n`);
  process.exit(1);
}

/** Runs a command; returns its stdout, or stops with its output when it fails. */
function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: "utf8", ...opts });
  if (r.error) fail(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) fail(`${cmd} ${args.join(" ")} failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** The Python of the cached build environment, made (once) when missing. */
function buildPython() {
  run("python3", ["-c", "import sys; assert sys.version_info >= (3, 9), sys.version"]);
  try {
    return venvPython(ensureVenv("python-build", REQUIREMENTS));
  } catch (err) {
    return fail(err.message);
  }
}

function main() {
  const argv = process.argv.slice(2);
  let out = path.join(REPO_ROOT, "dist", "python");
  if (argv[0] === "--out" && argv[1]) out = path.resolve(argv[1]);
  else if (argv.length > 0) fail("usage: build-python-sdk.js [--out DIR]");
  const python = buildPython();
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), "python-sdk-"));
  try {
    fs.cpSync(SDK_DIR, stage, { recursive: true });
    fs.copyFileSync(path.join(SDK_DIR, "pulumi_service", "README.md"), path.join(stage, "README.md"));
    fs.rmSync(out, { recursive: true, force: true });
    // The back end comes from the build environment (checked against pyproject.toml's
    // build-system.requires by `build`), not from PyPI at each build.
    run(python, ["-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", out, stage]);
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
  for (const f of fs.readdirSync(out).sort()) process.stdout.write(`${path.join(out, f)}\n`);
}

main();

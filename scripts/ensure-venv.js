#!/usr/bin/env node
// `node scripts/ensure-venv.js <name> <requirements file>`: makes sure a Python virtual
// environment holding exactly the packages of a pinned requirements file exists, creating it
// once, and prints its folder as its last line of stdout (progress goes to stderr).
//
// The folder is `~/.cache/pulumi-service/venv-<name>-<hash>` (honours XDG_CACHE_HOME and
// PULUMI_SERVICE_CACHE_DIR), where `<hash>` covers the requirements file's text and the Python
// that made it: editing the pins or changing Python makes a new venv, and an old one is never
// reused for other pins. The packages are installed with `pip install --no-deps -r <file>` and
// then `pip check`, so every package must be pinned in the file (a missing one fails here, not
// at run time). The interpreter is `$PYTHON`, else `python3`. A venv whose install did not finish
// (no `.complete` marker) is made again; two runs at once wait for each other (a lock folder).
//
// Used by test/conformance/schemathesis.test.ts with scripts/requirements/schemathesis.txt, by
// scripts/build-python-sdk.js with scripts/requirements/python-build.txt, and by
// test/docs/consistency.test.ts with scripts/requirements/pyflakes.txt.
"use strict";

const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const { spawnSync } = require("child_process");
const { cacheBase, lockFolder } = require("./pulumi-env");

/** Name of the file written last into a venv whose install finished. */
const COMPLETE_MARKER = ".complete";
/** Longest wait for another run's lock, in **milliseconds** (a first install takes a minute or two). */
const LOCK_WAIT_MS = 15 * 60 * 1000;

function log(msg) {
  process.stderr.write(`ensure-venv: ${msg}\n`);
}

/** The interpreter that makes venvs: `$PYTHON`, else `python3`. */
function pythonCommand() {
  return process.env.PYTHON || "python3";
}

/**
 * Version and platform of `python` (e.g. `3.11.7 linux x86_64`).
 * @throws Error naming the interpreter when it does not run.
 */
function pythonIdentity(python) {
  const r = spawnSync(
    python,
    ["-c", "import platform, sys; print(platform.python_version(), sys.platform, platform.machine())"],
    { encoding: "utf8", timeout: 60000 },
  );
  if (r.status !== 0) {
    const why = r.error ? r.error.message : `exit ${r.status}: ${(r.stderr || "").trim()}`;
    throw new Error(
      `Python interpreter \`${python}\` does not run (${why}); install Python 3 with its venv module, or set PYTHON to one`,
    );
  }
  return r.stdout.trim();
}

/** Checks `name`: letters, digits, `.`, `_`, `-` (it becomes part of a folder name). */
function checkName(name) {
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(name || "")) {
    throw new Error(`venv name must be 1 to 64 characters of A-Z a-z 0-9 . _ -, got ${JSON.stringify(name)}`);
  }
}

/**
 * Folder of the venv `name` for `requirementsFile` and the interpreter `python`, whether or not
 * it exists: `<cache>/venv-<name>-<first 12 hex digits of a SHA-256>`.
 * @throws Error when the name is malformed, the file cannot be read or the interpreter does not run.
 */
function venvDir(name, requirementsFile, python = pythonCommand()) {
  checkName(name);
  const text = fs.readFileSync(requirementsFile, "utf8");
  const hash = crypto
    .createHash("sha256")
    .update(`${pythonIdentity(python)}\n${text}`)
    .digest("hex")
    .slice(0, 12);
  return path.join(cacheBase(), `venv-${name}-${hash}`);
}

/** The venv's folder when its install finished (it holds the marker), else null. */
function findVenv(name, requirementsFile, python = pythonCommand()) {
  const dir = venvDir(name, requirementsFile, python);
  return fs.existsSync(path.join(dir, COMPLETE_MARKER)) ? dir : null;
}

/** The venv's interpreter, e.g. `<dir>/bin/python`. */
function venvPython(dir) {
  return process.platform === "win32"
    ? path.join(dir, "Scripts", "python.exe")
    : path.join(dir, "bin", "python");
}

function run(cmd, args, what) {
  const r = spawnSync(cmd, args, {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 30 * 60 * 1000,
  });
  if (r.status !== 0) {
    const out = `${r.stdout || ""}${r.stderr || ""}`.trim().split("\n").slice(-30).join("\n");
    throw new Error(`${what} failed (${r.error ? r.error.message : `exit ${r.status}`}):\n${out}`);
  }
}

/**
 * The venv `name` with the packages of `requirementsFile`, created first when missing. Returns
 * its folder.
 * @throws Error saying what failed (no interpreter, no venv module, a package that cannot be
 * installed, a requirement left unpinned) and how to provide it.
 */
function ensureVenv(name, requirementsFile, python = pythonCommand()) {
  const file = path.resolve(requirementsFile);
  const dir = venvDir(name, file, python);
  if (fs.existsSync(path.join(dir, COMPLETE_MARKER))) return dir;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const release = lockFolder(dir, { waitMs: LOCK_WAIT_MS });
  try {
    if (fs.existsSync(path.join(dir, COMPLETE_MARKER))) return dir;
    fs.rmSync(dir, { recursive: true, force: true });
    log(`creating ${dir} from ${file}`);
    run(python, ["-m", "venv", dir], `${python} -m venv`);
    const py = venvPython(dir);
    const pip = ["-m", "pip", "--disable-pip-version-check", "--no-input"];
    run(py, [...pip, "install", "--no-deps", "-r", file], `pip install -r ${file}`);
    run(py, [...pip, "check"], `pip check (is every dependency pinned in ${file}?)`);
    fs.writeFileSync(path.join(dir, COMPLETE_MARKER), `${file}\n`);
    log("done");
    return dir;
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `could not make the Python venv "${name}": ${err.message}\n` +
        `  Needs Python 3 with its venv module (\`${python}\`, or set PYTHON) and the package index (PyPI) reachable.`,
    );
  } finally {
    release();
  }
}

function main() {
  const [name, requirementsFile, ...rest] = process.argv.slice(2);
  if (!name || !requirementsFile || rest.length > 0) {
    process.stderr.write("usage: node scripts/ensure-venv.js <name> <requirements file>\n");
    process.exit(2);
  }
  try {
    process.stdout.write(`${ensureVenv(name, requirementsFile)}\n`);
  } catch (err) {
    log(err.message);
    process.exitCode = 1;
  }
}

if (require.main === module) main();

module.exports = { COMPLETE_MARKER, venvDir, findVenv, venvPython, ensureVenv };

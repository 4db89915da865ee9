#!/usr/bin/env node
// `node scripts/ensure-verdaccio.js`: makes sure Verdaccio, a local npm registry, is installed in
// the project's cache, installing it once, and prints the path of its executable script (run it
// with `node`). test/e2e/install.test.ts publishes the packed packages to one and installs them
// from it with the `npm install` command the docs print, as a user installs them from npm.
//
// Verdaccio is not a devDependency (every `npm ci` would pay for its ~400 packages). It is
// installed on demand with `npm ci` from scripts/requirements/verdaccio/ (package.json pins
// VERDACCIO_VERSION and overrides `node-fetch` to 2.7.0: Verdaccio 6.8's own range takes a
// node-fetch 3 that Node.js 20 cannot `require`; 6.10 wants Node.js 22), into
// `<cache>/verdaccio-<version>-<hash>/` (the cache of scripts/pulumi-env.js `cacheBase`:
// PULUMI_SERVICE_CACHE_DIR, XDG_CACHE_HOME or ~/.cache; `<hash>`: the lock file and the Node.js
// major, so new pins make a new folder). The install runs in a staging folder renamed into place
// once complete, under a lock folder (two test files at once take turns).
//
// Trust: the cache is a folder this script did not necessarily make, and it holds code the tests
// run. Before using or making anything there, the cache folder must be a real folder (no link)
// owned by this user that no other user may write to, and the Verdaccio folder a real folder owned
// by this user with no permission for anyone else (mode 0700, as it is made); otherwise the
// script refuses with an error naming the folder and what is wrong, and touches nothing.
"use strict";

const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const { spawnSync } = require("child_process");
const { cacheBase, lockFolder } = require("./pulumi-env");

/** The Verdaccio release installed (scripts/requirements/verdaccio/package.json pins it). */
const VERDACCIO_VERSION = "6.8.0";
/** The folder holding the pinned manifest and lock file. */
const REQUIREMENTS = path.join(__dirname, "requirements", "verdaccio");
/** Name of the file written last into a finished install. */
const COMPLETE_MARKER = ".complete";
/** Longest wait for another run's lock, in **milliseconds** (an install takes a minute or two). */
const LOCK_WAIT_MS = 15 * 60 * 1000;

/** A folder of the cache this user cannot safely use: `path` is the folder, the message says why. */
class UntrustedFolderError extends Error {
  constructor(folder, problem) {
    super(
      `refusing to use ${folder}: it ${problem}. It holds code the tests run, so it must be this user's alone. ` +
        `If it is yours, remove it (rm -r '${folder}') and run again; else point PULUMI_SERVICE_CACHE_DIR at a folder of your own.`,
    );
    this.name = "UntrustedFolderError";
    this.path = folder;
  }
}

/**
 * What makes `folder` unfit, or null: not there is fine (null with `missing` true);
 * a link, not a folder, owned by another user, or writable by others (`strict`: any permission
 * for group or others) is not. Owner and mode are not checked where there are no user IDs.
 * @returns {{ missing: boolean, problem: string | null }}
 */
function folderProblem(folder, strict) {
  let st;
  try {
    st = fs.lstatSync(folder);
  } catch (err) {
    if (err.code === "ENOENT") return { missing: true, problem: null };
    throw err;
  }
  const uid = process.getuid ? process.getuid() : undefined;
  const mode = (st.mode & 0o777).toString(8).padStart(4, "0");
  let problem = null;
  if (st.isSymbolicLink()) problem = "is a symbolic link";
  else if (!st.isDirectory()) problem = "is not a folder";
  else if (uid !== undefined && st.uid !== uid)
    problem = `is owned by uid ${st.uid}, not by this user (uid ${uid})`;
  else if (uid !== undefined && strict && (st.mode & 0o077) !== 0)
    problem = `has mode ${mode}, which lets other users in (it must be 0700)`;
  else if (uid !== undefined && !strict && (st.mode & 0o022) !== 0)
    problem = `has mode ${mode}, which lets other users write in it`;
  return { missing: false, problem };
}

/**
 * Checks `folder` with {@link folderProblem}.
 * @returns {boolean} whether it exists.
 * @throws UntrustedFolderError when it exists and is unfit.
 */
function checkFolder(folder, strict) {
  const { missing, problem } = folderProblem(folder, strict);
  if (problem) throw new UntrustedFolderError(folder, problem);
  return !missing;
}

/** First 12 hex digits of a SHA-256 over the lock file and the Node.js major that installs it. */
function pinHash() {
  const lock = fs.readFileSync(path.join(REQUIREMENTS, "package-lock.json"), "utf8");
  return crypto
    .createHash("sha256")
    .update(`${process.versions.node.split(".")[0]}\n${lock}`)
    .digest("hex")
    .slice(0, 12);
}

/** `<cache>/verdaccio-<version>-<hash>`, whether or not it exists. */
function verdaccioDir() {
  return path.join(cacheBase(), `verdaccio-${VERDACCIO_VERSION}-${pinHash()}`);
}

/** Verdaccio's executable script in the install folder `dir`. */
function verdaccioBin(dir) {
  return path.join(dir, "node_modules", "verdaccio", "bin", "verdaccio");
}

/**
 * The cache folder, made (0700) when missing, and checked: {@link checkFolder}, not strict (a
 * cache made by other scripts with mode 0755 is fine; one others may write to is not).
 * @throws UntrustedFolderError
 */
function trustedCacheBase() {
  const base = cacheBase();
  if (!checkFolder(base, false)) {
    fs.mkdirSync(base, { recursive: true, mode: 0o700 });
    checkFolder(base, false);
  }
  return base;
}

/** The install folder when finished and trusted (strict), else null. @throws UntrustedFolderError */
function findVerdaccio() {
  trustedCacheBase();
  const dir = verdaccioDir();
  if (!checkFolder(dir, true)) return null;
  return fs.existsSync(path.join(dir, COMPLETE_MARKER)) && fs.existsSync(verdaccioBin(dir)) ? dir : null;
}

/**
 * Verdaccio's executable script, installing it into the cache first when missing.
 * @returns {string} the script's absolute path (run it with `node`).
 * @throws UntrustedFolderError when the cache or the install folder is not this user's alone;
 *   Error saying what failed when `npm ci` fails (no registry).
 */
function ensureVerdaccio() {
  const found = findVerdaccio();
  if (found) return verdaccioBin(found);
  const dir = verdaccioDir();
  const release = lockFolder(dir, { waitMs: LOCK_WAIT_MS });
  try {
    const again = findVerdaccio();
    if (again) return verdaccioBin(again);
    const base = trustedCacheBase();
    // mkdtemp makes the folder 0700, this user's.
    const staging = fs.mkdtempSync(path.join(base, `.verdaccio-${VERDACCIO_VERSION}-`));
    try {
      for (const f of ["package.json", "package-lock.json"])
        fs.copyFileSync(path.join(REQUIREMENTS, f), path.join(staging, f));
      process.stderr.write(`ensure-verdaccio: installing Verdaccio ${VERDACCIO_VERSION} into ${dir}\n`);
      const r = spawnSync(
        process.platform === "win32" ? "npm.cmd" : "npm",
        ["ci", "--no-audit", "--no-fund", "--ignore-scripts", "--omit=dev"],
        { cwd: staging, encoding: "utf8", timeout: 15 * 60 * 1000 },
      );
      if (r.status !== 0)
        throw new Error(
          `npm ci of ${REQUIREMENTS} failed (${r.error ? r.error.message : `exit ${r.status}`}):\n${(r.stderr || "").slice(-3000)}`,
        );
      if (!fs.existsSync(verdaccioBin(staging)))
        throw new Error(`npm ci installed no ${verdaccioBin(staging)}`);
      fs.writeFileSync(path.join(staging, COMPLETE_MARKER), `verdaccio ${VERDACCIO_VERSION}\n`);
      // A folder left by an interrupted run of ours (no marker): ours to replace, when trusted.
      if (checkFolder(dir, true)) fs.rmSync(dir, { recursive: true, force: true });
      fs.renameSync(staging, dir);
    } catch (err) {
      fs.rmSync(staging, { recursive: true, force: true });
      if (err instanceof UntrustedFolderError) throw err;
      throw new Error(
        `could not install Verdaccio ${VERDACCIO_VERSION}: ${err.message}\n` +
          `  test/e2e/install.test.ts needs it (a local npm registry); make the npm registry reachable.`,
      );
    }
    return verdaccioBin(dir);
  } finally {
    release();
  }
}

function main() {
  try {
    process.stdout.write(`${ensureVerdaccio()}\n`);
  } catch (err) {
    process.stderr.write(`ensure-verdaccio: ${err.message}\n`);
    process.exitCode = 1;
  }
}

if (require.main === module) main();

module.exports = {
  VERDACCIO_VERSION,
  UntrustedFolderError,
  folderProblem,
  verdaccioDir,
  findVerdaccio,
  ensureVerdaccio,
};

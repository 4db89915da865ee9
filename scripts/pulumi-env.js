// Where the Pulumi CLI of this project lives, and the environment every script that runs
// Pulumi uses. Plain CommonJS so that it runs before `npm run build` (see ensure-pulumi.js).
"use strict";

const crypto = require("crypto");
const fs = require("fs");
const os = require("os");
const path = require("path");
const { spawnSync } = require("child_process");

/**
 * The Pulumi engine this project builds and runs (tests, demo, benches): the newest release the
 * Go module proxy serves here. Its language hosts are built against it (the code generators are
 * of OLDEST_PULUMI_VERSION, see OLDEST_MODULE).
 */
const PULUMI_VERSION = "3.274.1";

/**
 * The oldest Pulumi release this project supports: the floor of the packages' peer range of
 * `@pulumi/pulumi` (`^3.248.0`), the release the lock file holds (the newest whose Node.js SDK
 * runs on Node.js 20). Its engine is built by `ensure-pulumi.js --with-oldest` from
 * tools/pulumi-oldest, for the smoke test of that pairing.
 */
const OLDEST_PULUMI_VERSION = "3.248.0";

/** Folder at the repository root that holds the local file backend of tests and the demo. */
const REPO_ROOT = path.resolve(__dirname, "..");

/**
 * The Go module tools/pulumi: the sources scripts/ensure-pulumi.js builds the CLI of
 * PULUMI_VERSION and the language hosts from.
 */
const BUILD_MODULE = path.join(__dirname, "..", "tools", "pulumi");
const BUILD_SOURCES = [
  "go.mod",
  "go.sum",
  "langhost",
  "pulumi-language-nodejs",
  "pulumi-language-python",
  "pulumi-language-go",
];

/**
 * The flags of every Go build, vet and test of this repository's scripts and tests, so that each
 * compiled package is compiled once and shared between them (Go's build cache keys a package by
 * the flags it was compiled with):
 * - `-trimpath`: without it the cache keys a package by the folder of its files (a module cache's,
 *   a checkout's), with it by their contents alone;
 * - `-gcflags=all=-dwarf=false`: the compiler writes no debugging information, which the engine's
 *   stripped executables (`-ldflags -s -w`) drop anyway: 12–13% less compile time (the Node.js
 *   language host from an empty build cache, 53–54 s against 61–62 s); stack traces are unchanged.
 */
const GO_BUILD_FLAGS = ["-trimpath", "-gcflags=all=-dwarf=false"];

/** The files that pin a Go module's build: a module of go.mod and go.sum alone is hashed over these. */
const GO_MODULE_FILES = ["go.mod", "go.sum"];

/**
 * The Go module tools/pulumi-yaml: Pulumi YAML's language host and converter, built by
 * scripts/ensure-pulumi.js with the Pulumi pkg/sdk release pulumi-yaml's own go.mod asks for.
 */
const YAML_MODULE = path.join(__dirname, "..", "tools", "pulumi-yaml");

/**
 * The Go module tools/pulumi-oldest, at OLDEST_PULUMI_VERSION: that release's CLI (built by
 * ensure-pulumi.js `--with-oldest`), and the code generators of gen-sdks.js and gen-examples.js,
 * whose output must run on that release's SDKs.
 */
const OLDEST_MODULE = path.join(__dirname, "..", "tools", "pulumi-oldest");

/** First 12 hex digits of a SHA-256 over `sources` of `moduleDir` (file names and contents, sorted). */
function sourcesHash(moduleDir, sources) {
  const hash = crypto.createHash("sha256");
  const add = (rel) => {
    const p = path.join(moduleDir, rel);
    if (fs.statSync(p).isDirectory()) for (const f of fs.readdirSync(p).sort()) add(path.join(rel, f));
    else hash.update(`${rel}\0`).update(fs.readFileSync(p)).update("\0");
  };
  sources.forEach(add);
  return hash.digest("hex").slice(0, 12);
}

/** First 12 hex digits of a SHA-256 over BUILD_SOURCES (file names and contents, sorted). */
function buildSourcesHash() {
  return sourcesHash(BUILD_MODULE, BUILD_SOURCES);
}

/** The pulumi-yaml release tools/pulumi-yaml/go.mod requires (e.g. `1.25.0`). */
function yamlVersion() {
  const m = /github\.com\/pulumi\/pulumi-yaml v(\S+)/.exec(
    fs.readFileSync(path.join(YAML_MODULE, "go.mod"), "utf8"),
  );
  if (!m) throw new Error("tools/pulumi-yaml/go.mod requires no github.com/pulumi/pulumi-yaml");
  return m[1];
}

/**
 * The project's cache folder on this machine: `$PULUMI_SERVICE_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/pulumi-service`, else `~/.cache/pulumi-service`. Everything a script builds
 * or installs once (the CLI, the generators, venvs, Node.js lines, the tests' prebuilt binaries)
 * lives below it, so pointing it at an empty folder gives a cold start.
 */
function cacheBase() {
  return (
    process.env.PULUMI_SERVICE_CACHE_DIR ||
    path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "pulumi-service")
  );
}

/**
 * The cache folder of the built CLI: `$XDG_CACHE_HOME` (or `~/.cache`)
 * `/pulumi-service/pulumi-v<PULUMI_VERSION>-<hash>/bin`, where `<hash>` covers the language hosts'
 * sources and the build module's go.mod/go.sum (buildSourcesHash), so an edit to a host builds
 * a new folder and never changes one in use. `PULUMI_SERVICE_CACHE_DIR` replaces the part
 * before `/pulumi-v<PULUMI_VERSION>-<hash>`.
 */
function cacheBinDir() {
  return path.join(cacheBase(), `pulumi-v${PULUMI_VERSION}-${buildSourcesHash()}`, "bin");
}

/**
 * The cache folder of Pulumi YAML's host and converter:
 * `<cacheBase()>/pulumi-yaml-v<release>-<hash of tools/pulumi-yaml's go.mod and go.sum>/bin`,
 * a folder of its own beside the CLI's, so building it never touches the CLI in use.
 */
function yamlCacheBinDir() {
  return path.join(
    cacheBase(),
    `pulumi-yaml-v${yamlVersion()}-${sourcesHash(YAML_MODULE, GO_MODULE_FILES)}`,
    "bin",
  );
}

/**
 * The cache folder of the oldest supported CLI (tools/pulumi-oldest):
 * `<cacheBase()>/pulumi-oldest-v<OLDEST_PULUMI_VERSION>-<hash of its go.mod and go.sum>/bin`,
 * which holds only `pulumi`: the language hosts and the dynamic-provider shim are the ones of
 * cacheBinDir(), found on PATH after it.
 */
function oldestCacheBinDir() {
  return path.join(
    cacheBase(),
    `pulumi-oldest-v${OLDEST_PULUMI_VERSION}-${sourcesHash(OLDEST_MODULE, GO_MODULE_FILES)}`,
    "bin",
  );
}

/** The oldest CLI's cache folder when its `pulumi` reports OLDEST_PULUMI_VERSION, else null. */
function findOldestPulumi() {
  const dir = oldestCacheBinDir();
  const exe = path.join(dir, "pulumi");
  return isExecutable(exe) && versionOf(exe) === `v${OLDEST_PULUMI_VERSION}` ? dir : null;
}

/** The files a usable YAML folder must hold. */
const YAML_BINARIES = ["pulumi-language-yaml", "pulumi-converter-yaml"];

/** The YAML cache folder when it holds both YAML_BINARIES, else null. */
function findYaml() {
  const dir = yamlCacheBinDir();
  return YAML_BINARIES.every((b) => isExecutable(path.join(dir, b))) ? dir : null;
}

/** Runs `<pulumi> version` and returns what it prints (e.g. `v3.274.1`), or null. */
function versionOf(pulumiPath) {
  const r = spawnSync(pulumiPath, ["version"], {
    encoding: "utf8",
    env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "1" },
    timeout: 30000,
  });
  if (r.status !== 0 || !r.stdout) return null;
  return r.stdout.trim();
}

/** True for a v3 CLI at or above the pinned release (older ones lack what the SDK expects). */
function isCompatible(version) {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version || "");
  if (!m) return false;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  const [, pinMinor] = PULUMI_VERSION.split(".").map(Number);
  return major === 3 && minor >= pinMinor;
}

function isExecutable(p) {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** First directory on PATH that holds an executable `name`, or null. */
function findOnPath(name, pathValue = process.env.PATH || "") {
  for (const dir of pathValue.split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, name))) return dir;
  }
  return null;
}

/** The files a usable CLI folder must hold. */
const REQUIRED_BINARIES = [
  "pulumi",
  "pulumi-language-nodejs",
  "pulumi-language-python",
  "pulumi-language-python-exec",
  "pulumi-language-go",
  "pulumi-resource-pulumi-nodejs",
];

/**
 * Finds a usable Pulumi CLI without building anything: a compatible `pulumi` with
 * `pulumi-language-nodejs` on PATH, else a complete cache. Returns `{ dirs, source, version }`
 * (`dirs`: folders to put first on PATH, ending with the YAML host's cache folder when it is
 * built, see findYaml) or null.
 */
function findPulumi() {
  const cache = cacheBinDir();
  const yaml = findYaml();
  const onPath = findOnPath("pulumi");
  if (onPath && findOnPath("pulumi-language-nodejs")) {
    const version = versionOf(path.join(onPath, "pulumi"));
    if (isCompatible(version)) {
      // The cache (if any) still supplies the dynamic-provider shim when PATH lacks it.
      return { dirs: [onPath, cache, ...(yaml ? [yaml] : [])], source: "PATH", version };
    }
  }
  if (REQUIRED_BINARIES.every((b) => isExecutable(path.join(cache, b)))) {
    const version = versionOf(path.join(cache, "pulumi"));
    if (version === `v${PULUMI_VERSION}`)
      return { dirs: [cache, ...(yaml ? [yaml] : [])], source: "cache", version };
  }
  return null;
}

/**
 * The environment for running Pulumi: the CLI folders first on PATH, no update check, and
 * (unless already set) a local file backend inside the repository and a passphrase secrets
 * provider, never the Pulumi Cloud.
 */
function pulumiEnv(found, base = process.env) {
  const f = found || findPulumi();
  if (!f) throw new Error("No Pulumi CLI found: run `node scripts/ensure-pulumi.js` first.");
  return {
    ...base,
    PATH: [...f.dirs, base.PATH || ""].join(path.delimiter),
    PULUMI_SKIP_UPDATE_CHECK: "1",
    PULUMI_BACKEND_URL: base.PULUMI_BACKEND_URL || `file://${path.join(REPO_ROOT, ".pulumi-state")}`,
    PULUMI_CONFIG_PASSPHRASE:
      base.PULUMI_CONFIG_PASSPHRASE !== undefined || base.PULUMI_CONFIG_PASSPHRASE_FILE
        ? base.PULUMI_CONFIG_PASSPHRASE
        : "local-dev-passphrase",
  };
}

/** Blocks this thread for `ms` milliseconds (the scripts are synchronous where they wait). */
function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** True when process `pid` runs (or exists under another user). */
function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === "EPERM";
  }
}

/**
 * Takes the lock folder `<dir>.lock` (a `mkdir`, which one process wins), waiting while another
 * live process holds it; a dead holder's lock is taken over. Two runs that would build the same
 * cache or output folder at once (two test files) take turns this way.
 * @param {string} dir - the folder the lock guards.
 * @param {{ waitMs?: number, onWait?: (holder: number) => void }} [opts] - how long to wait, in
 *   milliseconds (default 15 minutes), and what to say once when waiting starts.
 * @returns {() => void} the release.
 * @throws Error naming the lock and its holder after `waitMs` of waiting.
 */
function lockFolder(dir, opts = {}) {
  const lockDir = `${dir}.lock`;
  const deadline = Date.now() + (opts.waitMs ?? 15 * 60 * 1000);
  let said = false;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      fs.writeFileSync(path.join(lockDir, "pid"), String(process.pid));
      return () => fs.rmSync(lockDir, { recursive: true, force: true });
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
    }
    let holder = NaN;
    try {
      holder = Number(fs.readFileSync(path.join(lockDir, "pid"), "utf8"));
    } catch {
      // Taken a moment ago; its pid is not written yet.
    }
    if (Number.isInteger(holder) && holder > 0 && !processAlive(holder)) {
      fs.rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${lockDir} (held by pid ${holder})`);
    if (!said && opts.onWait) opts.onWait(holder);
    said = true;
    sleepSync(500);
  }
}

module.exports = {
  PULUMI_VERSION,
  OLDEST_PULUMI_VERSION,
  OLDEST_MODULE,
  oldestCacheBinDir,
  findOldestPulumi,
  lockFolder,
  REPO_ROOT,
  BUILD_MODULE,
  GO_BUILD_FLAGS,
  REQUIRED_BINARIES,
  YAML_MODULE,
  YAML_BINARIES,
  yamlVersion,
  yamlCacheBinDir,
  findYaml,
  cacheBase,
  cacheBinDir,
  versionOf,
  isCompatible,
  isExecutable,
  findOnPath,
  findPulumi,
  pulumiEnv,
};

#!/usr/bin/env node
// Makes sure the Pulumi CLI of PULUMI_VERSION (scripts/pulumi-env.js) and its Node.js, Python and
// Go language hosts are available, building them from Go modules into the user's cache when they
// are not. Run by `pretest`, `pretest:release` and `predemo`.
//
// Order: a compatible `pulumi` + `pulumi-language-nodejs` on PATH; else the cache
// (~/.cache/pulumi-service/pulumi-v<PULUMI_VERSION>-<hash of the hosts' sources>/bin, see
// pulumi-env.js); else, when `go` is installed, a build of tools/pulumi (the CLI from
// github.com/pulumi/pulumi/pkg/v3 at that release, the language hosts in
// tools/pulumi/pulumi-language-{nodejs,python,go}, and Pulumi's Python launcher
// pulumi-language-python-exec copied from the github.com/pulumi/pulumi/sdk/v3 module) into that
// cache; else a clear error.
//
// Then Pulumi YAML's language host and converter (pulumi-language-yaml, pulumi-converter-yaml):
// on PATH next to a CLI found there, else the cache
// (~/.cache/pulumi-service/pulumi-yaml-v<release>-<hash of tools/pulumi-yaml's go.mod, go.sum>/bin,
// a folder of its own, so the CLI's folder is never touched), else a build of tools/pulumi-yaml
// (github.com/pulumi/pulumi-yaml's cmd/ with the Pulumi release its own go.mod asks for) into it;
// without Go, a warning (`runtime: yaml` programs will not run).
//
// With `--with-oldest` (`pretest:release` passes it), also the oldest supported CLI,
// OLDEST_PULUMI_VERSION, from tools/pulumi-oldest into a cache folder of its own
// (oldestCacheBinDir), for the smoke test of the oldest pairing; without Go, a clear error.
//
// Prints the folder it settled on as its last line of stdout.
"use strict";

const fs = require("fs");
const path = require("path");
const { spawn, spawnSync } = require("child_process");
const {
  BUILD_MODULE,
  GO_BUILD_FLAGS,
  OLDEST_MODULE,
  OLDEST_PULUMI_VERSION,
  PULUMI_VERSION,
  REPO_ROOT,
  YAML_BINARIES,
  YAML_MODULE,
  cacheBinDir,
  findOnPath,
  findPulumi,
  findOldestPulumi,
  findYaml,
  oldestCacheBinDir,
  versionOf,
  yamlCacheBinDir,
  yamlVersion,
} = require("./pulumi-env");

/** The Go variable of the Pulumi CLI's version (set at link time). */
const VERSION_VAR = "github.com/pulumi/pulumi/sdk/v3/go/common/version.Version";

function log(msg) {
  process.stderr.write(`ensure-pulumi: ${msg}\n`);
}

function fail(msg) {
  process.stderr.write(`ensure-pulumi: ${msg}\n`);
  process.exit(1);
}

/**
 * Runs `go build` with GO_BUILD_FLAGS (no paths of this machine, no debugging information: the
 * flags every Go build of the scripts and tests shares) and then `args`, in the Go module `cwd`
 * (tools/pulumi unless given), and reports progress every 100 packages compiled (from `-v`).
 */
function goBuild(args, label, cwd = BUILD_MODULE) {
  return new Promise((resolve, reject) => {
    const child = spawn("go", ["build", "-v", ...GO_BUILD_FLAGS, ...args], {
      cwd,
      env: { ...process.env, GOFLAGS: "-mod=readonly" },
      // Whatever the compiler prints on stdout is progress too: to our stderr (fd 2), so that
      // this script's stdout holds only its result.
      stdio: ["ignore", 2, "pipe"],
    });
    let packages = 0;
    let tail = "";
    let partial = "";
    child.stderr.on("data", (chunk) => {
      const text = partial + chunk.toString();
      const lines = text.split("\n");
      partial = lines.pop();
      for (const line of lines) {
        tail = (tail + line + "\n").slice(-8000);
        if (/^[\w.-]+\.[\w]+\/|^[a-z]+(\/|$)/.test(line) && !line.startsWith("go: ")) {
          packages++;
          if (packages % 100 === 0) log(`${label}: ${packages} packages compiled…`);
        }
      }
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) {
        log(`${label}: done (${packages} packages compiled)`);
        resolve();
      } else reject(new Error(`go build of ${label} failed (exit ${code}):\n${tail}${partial}`));
    });
  });
}

/** The language hosts of this repository (tools/pulumi/<name>/main.go). */
const LANGUAGE_HOSTS = ["pulumi-language-nodejs", "pulumi-language-python", "pulumi-language-go"];

/**
 * Path of Pulumi's Python program launcher, `pulumi-language-python-exec`, which the Pulumi SDK
 * module ships in python/cmd/ (read from the module cache: `go list -m` downloads it if needed).
 */
function pythonLauncher() {
  const r = spawnSync("go", ["list", "-m", "-f", "{{.Dir}}", "github.com/pulumi/pulumi/sdk/v3"], {
    cwd: BUILD_MODULE,
    encoding: "utf8",
    env: { ...process.env, GOFLAGS: "-mod=readonly" },
  });
  if (r.status !== 0) throw new Error(`go list -m github.com/pulumi/pulumi/sdk/v3 failed:\n${r.stderr}`);
  return path.join(r.stdout.trim(), "python", "cmd", "pulumi-language-python-exec");
}

/**
 * `go build` (goBuild) of the package `pkg` into the executable `dir/name`, stripped (`-s -w`),
 * with the string variable `versionVar` (`<package>.<name>`) set to `version`; in the Go module
 * `cwd` (tools/pulumi unless given), its progress named `label` (`name` unless given).
 */
function goBuildExecutable(dir, name, pkg, versionVar, version, { label = name, cwd = BUILD_MODULE } = {}) {
  return goBuild(
    ["-ldflags", `-s -w -X ${versionVar}=${version}`, "-o", path.join(dir, name), pkg],
    label,
    cwd,
  );
}

/**
 * Builds a folder of executables into `target` through a temporary folder beside it (`.build-*`),
 * renamed to `target` when complete, so that no run sees a half-built folder; the temporary folder
 * is removed when anything fails, and the error thrown again.
 * - `fill(tmp)` builds or copies the executables into the temporary folder (each made executable
 *   after, and the folder itself 0755);
 * - `check(tmp)`, when given, throws when what was built is not what was asked for;
 * - `builtMeanwhile()`, when given, says whether another run installed `target` meanwhile: that
 *   folder is then kept and this build dropped, and an incomplete `target` (a file removed by
 *   hand) is moved aside whole (`.stale-*`), never emptied in place. Without it, `target` is
 *   replaced.
 * Logs `<done> in <seconds> s` at the end.
 */
async function buildFolder(target, { fill, check, builtMeanwhile, done }) {
  const started = Date.now();
  const parent = path.dirname(target);
  fs.mkdirSync(parent, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(parent, ".build-"));
  const keepTheirs = () => {
    log(`${target} was built meanwhile by another run: keeping it`);
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  try {
    await fill(tmp);
    for (const f of fs.readdirSync(tmp)) fs.chmodSync(path.join(tmp, f), 0o755);
    fs.chmodSync(tmp, 0o755);
    if (check) check(tmp);
    if (!builtMeanwhile) {
      fs.rmSync(target, { recursive: true, force: true });
      fs.renameSync(tmp, target);
    } else if (builtMeanwhile()) {
      return keepTheirs();
    } else {
      if (fs.existsSync(target)) fs.renameSync(target, fs.mkdtempSync(path.join(parent, ".stale-")) + "/bin");
      try {
        fs.renameSync(tmp, target);
      } catch (err) {
        if (!builtMeanwhile()) throw err;
        keepTheirs();
      }
    }
    log(`${done} in ${Math.round((Date.now() - started) / 1000)} s`);
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

/**
 * A `check` for buildFolder: throws when the `pulumi` built into the folder does not report
 * `v<version>` (e.g. `3.274.1`).
 */
function reportsVersion(version) {
  return (tmp) => {
    const reported = versionOf(path.join(tmp, "pulumi"));
    if (reported !== `v${version}`) throw new Error(`built CLI reports ${reported}, expected v${version}`);
  };
}

/**
 * Builds the Pulumi CLI, this repository's language hosts, Pulumi's Python launcher and the
 * `pulumi-resource-pulumi-nodejs` shim into `target` (cacheBinDir), replacing what is there.
 * @throws Error when a build fails or the built CLI reports another version than PULUMI_VERSION.
 */
async function build(target) {
  await buildFolder(target, {
    async fill(tmp) {
      log(`building Pulumi v${PULUMI_VERSION} from Go modules into ${target}`);
      log("(first time only: downloads about 1.5 GB of modules and compiles for several minutes)");
      await goBuildExecutable(
        tmp,
        "pulumi",
        "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi",
        VERSION_VAR,
        `v${PULUMI_VERSION}`,
        { label: "pulumi CLI" },
      );
      for (const host of LANGUAGE_HOSTS)
        await goBuildExecutable(tmp, host, `./${host}`, "main.version", `v${PULUMI_VERSION}`);
      fs.copyFileSync(pythonLauncher(), path.join(tmp, "pulumi-language-python-exec"));
      const shim = require.resolve("@pulumi/pulumi/pulumi-resource-pulumi-nodejs", { paths: [REPO_ROOT] });
      fs.copyFileSync(shim, path.join(tmp, "pulumi-resource-pulumi-nodejs"));
    },
    check: reportsVersion(PULUMI_VERSION),
    done: "built",
  });
}

/**
 * Builds Pulumi YAML's language host and converter from tools/pulumi-yaml into `target`
 * (yamlCacheBinDir), so that a concurrent run sees either nothing or both executables. When
 * another run got there first, its folder is kept and this build dropped.
 * @throws Error when a build fails.
 */
async function buildYaml(target) {
  await buildFolder(target, {
    async fill(tmp) {
      const version = yamlVersion();
      log(`building Pulumi YAML v${version} (language host and converter) from Go modules into ${target}`);
      for (const name of YAML_BINARIES)
        await goBuildExecutable(
          tmp,
          name,
          `github.com/pulumi/pulumi-yaml/cmd/${name}`,
          "github.com/pulumi/pulumi-yaml/pkg/version.Version",
          `v${version}`,
          { cwd: YAML_MODULE },
        );
    },
    builtMeanwhile: () => Boolean(findYaml()),
    done: "Pulumi YAML built",
  });
}

/**
 * Makes sure Pulumi YAML's host and converter are available beside the CLI `found`
 * (findPulumi's answer): next to a CLI found on PATH, or in their cache folder, built there
 * when Go is installed. Without Go it only warns: the rest of the toolchain still works.
 */
async function ensureYaml(found) {
  if (findYaml()) return;
  if (found.source === "PATH" && YAML_BINARIES.every((b) => findOnPath(b))) return;
  if (!findOnPath("go")) {
    log(
      `warning: no Pulumi YAML host in ${yamlCacheBinDir()} and no Go toolchain to build it: \`runtime: yaml\` programs will not run`,
    );
    return;
  }
  await buildYaml(yamlCacheBinDir());
}

/**
 * Builds the oldest supported CLI (OLDEST_PULUMI_VERSION, tools/pulumi-oldest) into `target`
 * (oldestCacheBinDir) unless it is there; another run's folder built meanwhile is kept.
 * @throws Error when Go is missing, the build fails, or the CLI reports another version.
 */
async function ensureOldest(target = oldestCacheBinDir()) {
  if (findOldestPulumi()) return;
  if (!findOnPath("go"))
    throw new Error(`no Pulumi CLI v${OLDEST_PULUMI_VERSION} in ${target} and no Go toolchain to build it`);
  await buildFolder(target, {
    async fill(tmp) {
      log(`building the oldest supported Pulumi, v${OLDEST_PULUMI_VERSION}, from Go modules into ${target}`);
      await goBuildExecutable(
        tmp,
        "pulumi",
        "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi",
        VERSION_VAR,
        `v${OLDEST_PULUMI_VERSION}`,
        { label: `pulumi CLI v${OLDEST_PULUMI_VERSION}`, cwd: OLDEST_MODULE },
      );
    },
    check: reportsVersion(OLDEST_PULUMI_VERSION),
    builtMeanwhile: () => Boolean(findOldestPulumi()),
    done: `Pulumi v${OLDEST_PULUMI_VERSION} built`,
  });
}

async function main() {
  let found = findPulumi();
  if (!found) {
    const target = cacheBinDir();
    if (!findOnPath("go")) {
      fail(
        [
          `no Pulumi CLI v3.${PULUMI_VERSION.split(".")[1]}+ with pulumi-language-nodejs on PATH, none cached in ${target}, and no Go toolchain to build one.`,
          "Either install the Pulumi CLI (https://www.pulumi.com/docs/install/) and put it on PATH,",
          "or install Go 1.26+ (https://go.dev/doc/install) and run `npm test` or `npm run demo` again to build it.",
        ].join("\n  "),
      );
    }
    try {
      await build(target);
    } catch (err) {
      fail(err.message);
    }
    found = findPulumi();
    if (!found) fail(`the build finished but ${target} is not usable`);
  }
  try {
    await ensureYaml(found);
  } catch (err) {
    fail(err.message);
  }
  if (process.argv.includes("--with-oldest")) {
    try {
      await ensureOldest();
    } catch (err) {
      fail(err.message);
    }
  }
  found = findPulumi();
  log(`using Pulumi ${found.version} from ${found.source === "PATH" ? "PATH" : found.dirs[0]}`);
  process.stdout.write(found.dirs[0] + "\n");
}

if (require.main === module) {
  main();
}

module.exports = { build, buildYaml, ensureOldest, ensureYaml, goBuild, main };

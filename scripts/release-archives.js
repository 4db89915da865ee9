#!/usr/bin/env node
// Packs the self-contained executables into the archives of a GitHub release
// (`npm run release:archives`):
//
//   dist/release/pulumi-resource-service-v<version>-<os>-<arch>.tar.gz   (the plugin, one per platform)
//   dist/release/service-emulator-v<version>-<os>-<arch>.tar.gz          (the emulator, one per platform)
//   dist/release/pulumi-resource-service_<version>_checksums.txt         (`<sha256>  <file>` lines, every archive)
//
// A plugin archive holds, at its root, the executable (`pulumi-resource-service`, `.exe` on
// Windows, mode 0755; scripts/build-plugin-binaries.js), LICENSE and README.md: what `pulumi
// plugin install` unpacks into `~/.pulumi/plugins/resource-service-v<version>/`. The name is the
// one the engine asks a plugin server for: `<server>/pulumi-resource-service-v<version>-<os>-<arch>.tar.gz`,
// the server being the schema's `pluginDownloadURL` (this repository's GitHub releases) or the
// URL a user gives with `pulumi plugin install resource service <version> --server <url>` or maps
// with `PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES`. An emulator archive holds `service-emulator`
// (`.exe` on Windows, mode 0755; scripts/build-emulator-binaries.js) with the emulator package's
// LICENSE and README.md, for users without Node.js (docs/emulator.md, "The emulator without
// Node.js"). The archives are reproducible: entries in a fixed order with a fixed time and
// owner, so the same executables give the same checksums.
//
// Usage: node scripts/release-archives.js [--binaries DIR] [--emulator-binaries DIR] [--out DIR]
//   (default: dist/plugin-binaries and dist/emulator-binaries into dist/release)
// Prints one line per archive on stdout: `<file> <bytes> <sha256>`. Exit 1 with the reason when
// an executable is missing (run `npm run build:plugin-binaries` and
// `npm run build:emulator-binaries` first).
"use strict";

const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const tar = require("tar");
const { REPO_ROOT } = require("./pulumi-env");
const { TARGETS } = require("./build-plugin-binaries");
const { EXE: EMULATOR, TARGETS: EMULATOR_TARGETS } = require("./build-emulator-binaries");

/** The plugin's name as the engine spells it in archive and folder names. */
const PLUGIN = "pulumi-resource-service";

/** Where the emulator's archives take their LICENSE and README.md: the npm package's folder. */
const EMULATOR_DOCS = path.join(REPO_ROOT, "packages", "emulator");

/** The time every entry of an archive carries (so archives are reproducible): 2020-01-01 UTC. */
const ENTRY_TIME = new Date(Date.UTC(2020, 0, 1));

/** The package version the archives carry: package.json's. */
function packageVersion() {
  return JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")).version;
}

/** The archive file name of `target` (`<os>-<arch>`) at `version`, as the engine asks for it. */
function archiveName(version, target) {
  return `${PLUGIN}-v${version}-${target}.tar.gz`;
}

/** The emulator's archive file name for `target` (`<os>-<arch>`) at `version`. */
function emulatorArchiveName(version, target) {
  return `${EMULATOR}-v${version}-${target}.tar.gz`;
}

/** The checksums file name at `version` (it lists the plugin's and the emulator's archives). */
function checksumsName(version) {
  return `${PLUGIN}_${version}_checksums.txt`;
}

/** SHA-256 of a file, hex. */
function sha256(file) {
  return crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

/**
 * Packs `exe` of `target` (found in `binaries/<os>-<arch>/`) with LICENSE and README.md of
 * `docs` into `file`, every entry with fixed metadata.
 * @returns {Promise<{ file: string, bytes: number, sha256: string }>}
 * @throws Error naming the missing executable, and the command that builds it.
 */
async function pack(binaries, target, docs, file, buildCommand) {
  const exe = path.join(binaries, target.name, target.exe);
  if (!fs.existsSync(exe)) {
    throw new Error(`no executable for ${target.name} at ${exe}: run ${buildCommand} first`);
  }
  // The archive's root: the executable, the license and the readme, each with fixed metadata.
  const staging = fs.mkdtempSync(path.join(path.dirname(file), `.${target.name}-`));
  try {
    fs.copyFileSync(exe, path.join(staging, target.exe));
    fs.chmodSync(path.join(staging, target.exe), 0o755);
    for (const doc of ["LICENSE", "README.md"]) {
      fs.copyFileSync(path.join(docs, doc), path.join(staging, doc));
      fs.chmodSync(path.join(staging, doc), 0o644);
    }
    await tar.create(
      {
        gzip: true,
        file,
        cwd: staging,
        portable: true,
        noDirRecurse: true,
        mtime: ENTRY_TIME,
      },
      [target.exe, "LICENSE", "README.md"],
    );
    return { file, bytes: fs.statSync(file).size, sha256: sha256(file) };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Writes one archive per target and the checksums file into `out`: the plugin's (unless
 * `binaries` is null), and the emulator's when `emulatorBinaries` is given.
 * @param {{ binaries?: string | null, emulatorBinaries?: string, out?: string, version?: string, targets?: string[] }} [opts] -
 *   where the plugin's executables are (one folder per `<os>-<arch>`; null: no plugin archive),
 *   where the emulator's are (none: no emulator archive), where to write, the version (package.json's), and which
 *   targets (default: every one of TARGETS; a release needs them all).
 * @returns {Promise<{ file: string, bytes: number, sha256: string }[]>} the archives: the
 *   plugin's in TARGETS order, then the emulator's; the checksums file lists them in that order.
 * @throws Error naming the missing executable when a target's is not built.
 */
async function releaseArchives(opts = {}) {
  const binaries =
    opts.binaries === undefined ? path.join(REPO_ROOT, "dist", "plugin-binaries") : opts.binaries;
  const out = opts.out ?? path.join(REPO_ROOT, "dist", "release");
  const version = opts.version ?? packageVersion();
  fs.mkdirSync(out, { recursive: true });
  const made = [];
  const chosen = (targets) => (opts.targets ? targets.filter((t) => opts.targets.includes(t.name)) : targets);
  for (const target of binaries === null ? [] : chosen(TARGETS)) {
    const file = path.join(out, archiveName(version, target.name));
    made.push(await pack(binaries, target, REPO_ROOT, file, "npm run build:plugin-binaries"));
  }
  if (opts.emulatorBinaries !== undefined) {
    for (const target of chosen(EMULATOR_TARGETS)) {
      const file = path.join(out, emulatorArchiveName(version, target.name));
      made.push(
        await pack(opts.emulatorBinaries, target, EMULATOR_DOCS, file, "npm run build:emulator-binaries"),
      );
    }
  }
  fs.writeFileSync(
    path.join(out, checksumsName(version)),
    made.map((m) => `${m.sha256}  ${path.basename(m.file)}\n`).join(""),
  );
  return made;
}

module.exports = {
  EMULATOR,
  PLUGIN,
  archiveName,
  checksumsName,
  emulatorArchiveName,
  packageVersion,
  releaseArchives,
};

if (require.main === module) {
  const args = process.argv.slice(2);
  const opt = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  releaseArchives({
    binaries: opt("--binaries"),
    emulatorBinaries: opt("--emulator-binaries") ?? path.join(REPO_ROOT, "dist", "emulator-binaries"),
    out: opt("--out"),
  }).then(
    (made) => {
      for (const m of made) process.stdout.write(`${m.file} ${m.bytes} ${m.sha256}\n`);
    },
    (err) => {
      process.stderr.write(`release-archives: ${err.message}\n`);
      process.exit(1);
    },
  );
}

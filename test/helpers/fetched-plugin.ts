/**
 * What the engine tests of a plugin the engine downloads by itself share: a local release of the
 * plugin (the self-contained executable of one platform, packed by scripts/release-archives.js
 * and served by test/helpers/file-tree-server.ts, as a GitHub release serves its assets), the
 * environment of a program that can get the plugin only from there, and the Pulumi CLI run in it.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { PLUGIN_DOWNLOAD_URL } from "../../provider/native/schema";
import { REPO_ROOT } from "../../scripts/pulumi-env";
import { startFileTreeServer, type FileTreeServer } from "./file-tree-server";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildPluginBinaries } = require("../../scripts/build-plugin-binaries") as {
  buildPluginBinaries(opts: { targetNames?: string[]; outDir?: string }): Promise<unknown>;
};
/** scripts/release-archives.js, typed: archive and checksums names, the version, the packing. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const release = require("../../scripts/release-archives") as {
  archiveName(version: string, target: string): string;
  checksumsName(version: string): string;
  packageVersion(): string;
  releaseArchives(opts: {
    binaries?: string;
    out?: string;
    targets?: string[];
  }): Promise<{ file: string; bytes: number; sha256: string }[]>;
};

const exec = promisify(execFile);

/** The download URL every SDK names for the plugin (the schema's `pluginDownloadURL`). */
export { PLUGIN_DOWNLOAD_URL };

/** A local release of the plugin; see {@link startPluginRelease}. */
export interface PluginRelease {
  /** The plugin's version, the packages' (`0.1.0`). */
  version: string;
  /** The archive's file name, `pulumi-resource-service-v<version>-<target>.tar.gz`. */
  archive: string;
  /** The server holding the archive (and its checksums file) in its root. */
  server: FileTreeServer;
}

/** Where build:plugin-binaries puts the executables (one folder per `<os>-<arch>`). */
export const PLUGIN_BINARIES = path.join(REPO_ROOT, "dist", "plugin-binaries");

/**
 * Builds the plugin's executable for `target` (default `linux-amd64`, this machine's) into
 * {@link PLUGIN_BINARIES} (made again only when it changed; the build's lock makes other builds of
 * the folder wait), packs its release archive into `dir/release` and serves that folder.
 * Minutes the first time (the executable's build), seconds when the build is up to date.
 * @throws the build's or the server's error.
 */
export async function startPluginRelease(dir: string, target = "linux-amd64"): Promise<PluginRelease> {
  const binaries = PLUGIN_BINARIES;
  const out = path.join(dir, "release");
  await buildPluginBinaries({ targetNames: [target], outDir: binaries });
  await release.releaseArchives({ binaries, out, targets: [target] });
  const version = release.packageVersion();
  return { version, archive: release.archiveName(version, target), server: await startFileTreeServer(out) };
}

/**
 * `PATH` with no folder that could answer for the plugin or hand a program anything of this
 * repository: folders holding a `pulumi-resource-service` (npm puts the package's bin on PATH
 * under `npm run`/`npx`) and folders inside the repository are left out.
 */
export function pathWithoutPlugin(pathValue: string): string {
  return pathValue
    .split(path.delimiter)
    .filter(
      (d) =>
        d &&
        !fs.existsSync(path.join(d, "pulumi-resource-service")) &&
        d !== REPO_ROOT &&
        !d.startsWith(REPO_ROOT + path.sep),
    )
    .join(path.delimiter);
}

/**
 * The environment of a program whose plugin can only come from `serverUrl`: `base` with
 * {@link pathWithoutPlugin}, a fresh Pulumi home `home` (no plugin installed), ambient plugins
 * ignored (`PULUMI_IGNORE_AMBIENT_PLUGINS`), the local file backend `backend` (a folder, made
 * here) with a passphrase, and `PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES` mapping
 * {@link PLUGIN_DOWNLOAD_URL} to `serverUrl`.
 */
export function fetchedPluginEnv(
  base: NodeJS.ProcessEnv,
  opts: { home: string; backend: string; serverUrl: string },
): Record<string, string> {
  fs.mkdirSync(opts.backend, { recursive: true });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v;
  return {
    ...env,
    PATH: pathWithoutPlugin(env.PATH ?? ""),
    PULUMI_IGNORE_AMBIENT_PLUGINS: "true",
    PULUMI_HOME: opts.home,
    PULUMI_BACKEND_URL: `file://${opts.backend}`,
    PULUMI_CONFIG_PASSPHRASE: env.PULUMI_CONFIG_PASSPHRASE ?? "test-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "1",
    PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `^${PLUGIN_DOWNLOAD_URL}=${opts.serverUrl}`,
  };
}

/**
 * Runs `pulumi <args>` (the first `pulumi` on `env.PATH`) in `cwd` and returns its standard
 * output and error, joined.
 * @throws Error with the command, its exit and its whole output when it fails.
 */
export async function runPulumi(args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<string> {
  try {
    const r = await exec("pulumi", args, { env, cwd, maxBuffer: 64 * 1024 * 1024 });
    return r.stdout + r.stderr;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`pulumi ${args.join(" ")} failed: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
  }
}

/** Where {@link startCachedPluginRelease} keeps the releases it packed, one folder per key. */
export const PACKED_RELEASES = path.join(REPO_ROOT, "dist", "plugin-release-cache");

/** How long a packed release of another key is kept, in **milliseconds**: an hour. */
const PACKED_RELEASE_KEEP_MS = 60 * 60 * 1000;

/**
 * The key of a packed release: the version, the target and what the archive is made of (the
 * executable's size and modification time, which each build changes, and LICENSE and README.md).
 */
function packedReleaseKey(version: string, target: string, exe: string): string {
  const stat = fs.statSync(exe);
  const hash = createHash("sha256").update(JSON.stringify([version, target, stat.size, stat.mtimeMs]));
  for (const doc of ["LICENSE", "README.md"]) hash.update(fs.readFileSync(path.join(REPO_ROOT, doc)));
  return `${target}-v${version}-${hash.digest("hex").slice(0, 16)}`;
}

/**
 * {@link startPluginRelease} without packing again what was packed: builds the executable of
 * `target` as that does (seconds when up to date), then serves the release folder of
 * {@link PACKED_RELEASES} that holds the archive of this executable, packing it there first when
 * none does (into a folder of its own, renamed into place, so that test files packing at once
 * never see half an archive). Packing the linux-amd64 archive takes about 8 s on a busy 2-core
 * machine, so the test files that need the same archive share one packing. Folders of other keys
 * older than an hour are removed.
 * @throws the build's, the packing's or the server's error.
 */
export async function startCachedPluginRelease(target = "linux-amd64"): Promise<PluginRelease> {
  await buildPluginBinaries({ targetNames: [target], outDir: PLUGIN_BINARIES });
  const version = release.packageVersion();
  const exe = path.join(
    PLUGIN_BINARIES,
    target,
    "pulumi-resource-service" + (target.startsWith("windows") ? ".exe" : ""),
  );
  const key = packedReleaseKey(version, target, exe);
  const out = path.join(PACKED_RELEASES, key);
  if (!fs.existsSync(path.join(out, release.checksumsName(version)))) {
    fs.mkdirSync(PACKED_RELEASES, { recursive: true });
    const staging = fs.mkdtempSync(path.join(PACKED_RELEASES, `.${key}-`));
    try {
      await release.releaseArchives({ binaries: PLUGIN_BINARIES, out: staging, targets: [target] });
      fs.renameSync(staging, out);
    } catch (err) {
      fs.rmSync(staging, { recursive: true, force: true });
      // Another test file packed the same archive first: use theirs.
      if (!fs.existsSync(path.join(out, release.checksumsName(version)))) throw err;
    }
    for (const old of fs.readdirSync(PACKED_RELEASES)) {
      const dir = path.join(PACKED_RELEASES, old);
      if (old !== key && Date.now() - fs.statSync(dir).mtimeMs > PACKED_RELEASE_KEEP_MS)
        fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  return { version, archive: release.archiveName(version, target), server: await startFileTreeServer(out) };
}

/**
 * `pathValue` without the folders that hold a `node`: the `PATH` of a machine without Node.js
 * (a Pulumi YAML user's, whose plugin is a self-contained executable).
 */
export function pathWithoutNode(pathValue: string): string {
  return pathValue
    .split(path.delimiter)
    .filter((d) => d && !fs.existsSync(path.join(d, "node")))
    .join(path.delimiter);
}

/** The commands of Node.js itself, hidden by {@link pathHidingNode}. */
const NODE_COMMANDS = new Set(["node", "nodejs", "npm", "npx", "corepack"]);

/**
 * `pathValue` as on a machine where Node.js was never installed and everything else was: each
 * folder that holds a `node` (often `/usr/bin`, beside `bash`, `python3`, `gcc`, so that leaving
 * it out, as {@link pathWithoutNode} does, would take those too) is replaced by a folder of
 * `shadowDir` (made here) holding a link to each of its entries but Node.js's own commands
 * (`node`, `nodejs`, `npm`, `npx`, `corepack`) and the commands npm installed globally (links into
 * a `node_modules` folder). Folders without a `node` are kept as they are.
 * @throws Error when `shadowDir` exists already (it must be a fresh folder of the caller's).
 */
export function pathHidingNode(pathValue: string, shadowDir: string): string {
  fs.mkdirSync(shadowDir, { recursive: false });
  let n = 0;
  return pathValue
    .split(path.delimiter)
    .filter(Boolean)
    .map((d) => {
      if (!fs.existsSync(path.join(d, "node"))) return d;
      const shadow = path.join(shadowDir, String(n++));
      fs.mkdirSync(shadow);
      for (const name of fs.readdirSync(d)) {
        if (NODE_COMMANDS.has(name)) continue;
        const entry = path.join(d, name);
        let real: string;
        try {
          real = fs.realpathSync(entry);
        } catch {
          continue; // a dangling link
        }
        if (real.split(path.sep).includes("node_modules")) continue;
        fs.symlinkSync(entry, path.join(shadow, name));
      }
      return shadow;
    })
    .join(path.delimiter);
}

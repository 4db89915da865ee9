/**
 * The five packages as npm publishes them: packed with `npm pack` (from the builds `npm test`'s
 * `pretest` made) once per test run and shared by the test files that install them
 * ({@link packAll}), and the environment a stranger's shell has for commands run outside the
 * repository (the project's Pulumi CLI on PATH, a home folder of its own, no Pulumi backend or
 * service settings inherited from this machine).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { lockFolder } from "../../scripts/pulumi-env";
import { RUN_DIR_ENV } from "./global-setup";
import { requirePulumi } from "./pulumi";

const REPO = path.resolve(__dirname, "../..");

/** The packages of this repository, by name, with their folders. */
export const PACKAGES = [
  { name: "service-cli-kit", dir: path.join(REPO, "packages/cli") },
  { name: "service-contract", dir: path.join(REPO, "packages/contract") },
  { name: "pulumi-service", dir: REPO },
  { name: "service-emulator", dir: path.join(REPO, "packages/emulator") },
  { name: "service-policy", dir: path.join(REPO, "packages/policy") },
] as const;

/** A package's name. */
export type PackageName = (typeof PACKAGES)[number]["name"];

/** One packed package. */
export interface Packed {
  name: PackageName;
  /** Absolute path of the `.tgz`. */
  tarball: string;
  /** Size of the tarball in bytes. */
  size: number;
  /** Paths inside the package. */
  files: string[];
}

/** The folder of the run's folder ({@link RUN_DIR_ENV}) that holds the run's packed packages. */
export const RUN_PACKED_DIR = "packed";

/** The file, in {@link RUN_PACKED_DIR}, describing its tarballs: {@link PackedRecord}[] as JSON. */
const PACKED_FILE = "packed.json";

/** What {@link PACKED_FILE} keeps of one packed package: its tarball's file name, not its path. */
interface PackedRecord {
  name: PackageName;
  /** The tarball's file name, e.g. `pulumi-service-0.1.0.tgz`. */
  filename: string;
  /** Size of the tarball in bytes. */
  size: number;
  /** Paths inside the package, as `npm pack` listed them. */
  files: string[];
}

/** Runs `npm pack` of the five packages into `dir`, without their scripts (they are built). */
function packInto(dir: string): PackedRecord[] {
  return PACKAGES.map((pkg) => {
    const [info] = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], {
        cwd: pkg.dir,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
        timeout: 300_000,
      }),
    ) as { filename: string; size: number; files: { path: string }[] }[];
    return { name: pkg.name, filename: info.filename, size: info.size, files: info.files.map((f) => f.path) };
  });
}

/**
 * The run's packed packages in `shared`, packing them there first when no caller of this run
 * has (no {@link PACKED_FILE} yet): under the lock folder `<shared>.lock` (two jest workers may ask
 * at once; the second waits for the first's tarballs). The description is written last, so an
 * interrupted pack is redone by the next caller.
 */
function runPacked(shared: string): PackedRecord[] {
  const release = lockFolder(shared);
  try {
    const file = path.join(shared, PACKED_FILE);
    if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, "utf8")) as PackedRecord[];
    fs.rmSync(shared, { recursive: true, force: true });
    fs.mkdirSync(shared, { recursive: true });
    const records = packInto(shared);
    fs.writeFileSync(`${file}.partial`, JSON.stringify(records));
    fs.renameSync(`${file}.partial`, file);
    return records;
  } finally {
    release();
  }
}

/**
 * Puts the tarball `source` at `target` (replacing a file there, as `npm pack` does): a hard
 * link, or a copy where the two folders are on different file systems.
 */
function linkTarball(source: string, target: string): void {
  fs.rmSync(target, { force: true });
  try {
    fs.linkSync(source, target);
  } catch (e) {
    if (!["EXDEV", "EPERM", "EMLINK"].includes((e as NodeJS.ErrnoException).code ?? "")) throw e;
    fs.copyFileSync(source, target);
  }
}

/**
 * The five packages (already built) packed, as tarballs in `dest` (a folder that exists): the
 * caller may remove `dest`, or write beside them, but must not change a tarball in place.
 *
 * In a jest run (the run's folder named by {@link RUN_DIR_ENV}, see test/helpers/global-setup.ts)
 * the packages are packed once for the whole run, into the run's folder ({@link RUN_PACKED_DIR}),
 * and every call hard-links (or copies) those tarballs into its `dest`: `pretest` builds the
 * packages before the run and nothing rebuilds them during it. Outside a run, each call runs
 * `npm pack` into `dest`.
 *
 * @returns each package's tarball in `dest`, its size in bytes and the paths `npm pack` put in it.
 * @throws Error when `npm pack` fails, or after 15 minutes of waiting for another worker's pack.
 */
export function packAll(dest: string): Record<PackageName, Packed> {
  const run = process.env[RUN_DIR_ENV];
  const shared = run ? path.join(run, RUN_PACKED_DIR) : undefined;
  const records = shared ? runPacked(shared) : packInto(dest);
  const out = {} as Record<PackageName, Packed>;
  for (const r of records) {
    const tarball = path.join(dest, r.filename);
    if (shared) linkTarball(path.join(shared, r.filename), tarball);
    out[r.name] = { name: r.name, tarball, size: r.size, files: r.files };
  }
  return out;
}

/** Whether `name` is one of {@link PACKAGES}. */
function isPackageName(name: string): name is PackageName {
  return PACKAGES.some((p) => p.name === name);
}

/**
 * The packages of this repository that `name` depends on, directly or through another of them,
 * dependencies first: read from the `dependencies`, `optionalDependencies` and
 * `peerDependencies` of each one's `package.json` (what npm installs with it).
 */
function workspaceDependencies(name: PackageName): PackageName[] {
  const out: PackageName[] = [];
  const seen = new Set<PackageName>([name]);
  const visit = (pkg: PackageName) => {
    const dir = PACKAGES.find((p) => p.name === pkg)!.dir;
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as Record<
      "dependencies" | "optionalDependencies" | "peerDependencies",
      Record<string, string> | undefined
    >;
    const deps = [manifest.dependencies, manifest.optionalDependencies, manifest.peerDependencies].flatMap(
      (d) => Object.keys(d ?? {}),
    );
    for (const dep of deps) {
      if (!isPackageName(dep) || seen.has(dep)) continue;
      seen.add(dep);
      visit(dep);
      out.push(dep);
    }
  };
  visit(name);
  return out;
}

/**
 * What `npm install` must be given instead of the package `name` so that npm takes it from the
 * tarballs and never asks the registry for one of ours: the packed tarballs of the package's own
 * workspace dependencies ({@link workspaceDependencies}: those of its `package.json`, and theirs),
 * then its own tarball (npm satisfies those dependencies from the tarballs given in the same
 * command).
 */
export function installSpecs(name: PackageName, packed: Record<PackageName, Packed>): string[] {
  return [...workspaceDependencies(name).map((dep) => packed[dep].tarball), packed[name].tarball];
}

/** Variables a command run "as a stranger" must not inherit from this machine or this test run. */
const NOT_INHERITED = /^(PULUMI_|SERVICE_|npm_|NPM_|INIT_CWD$|JEST_WORKER_ID$|NODE_OPTIONS$)/;

/**
 * The environment of a shell outside the repository: PATH with the project's Pulumi CLI first,
 * `HOME` (and so `~/.pulumi`, which `pulumi login --local` uses) and `PULUMI_HOME` in `home`,
 * `PULUMI_CONFIG_PASSPHRASE` set (a terminal would prompt for it), no Pulumi backend, no
 * `SERVICE_*` settings. npm keeps this machine's cache and user config (registry settings),
 * but `npx` never downloads a missing package: a command that needs one of ours fails instead.
 */
export function strangerEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const realHome = os.homedir();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !NOT_INHERITED.test(k)) env[k] = v;
  }
  fs.mkdirSync(path.join(home, ".pulumi"), { recursive: true });
  const npmrc = path.join(realHome, ".npmrc");
  return {
    ...env,
    PATH: [...requirePulumi().dirs, process.env.PATH ?? ""].join(path.delimiter),
    HOME: home,
    PULUMI_HOME: path.join(home, ".pulumi"),
    PULUMI_SKIP_UPDATE_CHECK: "1",
    PULUMI_CONFIG_PASSPHRASE: "stranger-passphrase",
    npm_config_cache: path.join(realHome, ".npm"),
    ...(fs.existsSync(npmrc) ? { npm_config_userconfig: npmrc } : {}),
    npm_config_yes: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
    npm_config_update_notifier: "false",
    ...extra,
  };
}

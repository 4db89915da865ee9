/**
 * The four packages as npm publishes them: packed with `npm pack` (from the builds `npm test`'s
 * `pretest` made), and the environment a stranger's shell has for commands run outside the
 * repository (the project's Pulumi CLI on PATH, a home folder of its own, no Pulumi backend or
 * service settings inherited from this machine).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { requirePulumi } from "./pulumi";

const REPO = path.resolve(__dirname, "../..");

/** The packages of this repository, by name, with their folders. */
export const PACKAGES = [
  { name: "service-cli-kit", dir: path.join(REPO, "packages/cli") },
  { name: "service-contract", dir: path.join(REPO, "packages/contract") },
  { name: "pulumi-service", dir: REPO },
  { name: "service-emulator", dir: path.join(REPO, "packages/emulator") },
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

/** Packs the four packages (already built) into `dest`, without running their scripts. */
export function packAll(dest: string): Record<PackageName, Packed> {
  const out = {} as Record<PackageName, Packed>;
  for (const pkg of PACKAGES) {
    const [info] = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dest], {
        cwd: pkg.dir,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
        timeout: 300_000,
      }),
    ) as { filename: string; size: number; files: { path: string }[] }[];
    out[pkg.name] = {
      name: pkg.name,
      tarball: path.join(dest, info.filename),
      size: info.size,
      files: info.files.map((f) => f.path),
    };
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

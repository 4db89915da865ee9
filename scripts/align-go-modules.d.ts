/** Types of scripts/align-go-modules.js: one set of dependency versions across the Go tool modules. */

/** An aligned module: its folder (relative to the repository) and the modules it keeps at its own version, with why. */
export interface AlignedModule {
  dir: string;
  holds: Record<string, string>;
}
/** tools/pulumi-oldest and tools/pulumi-yaml, with their holds. */
export const ALIGNED: AlignedModule[];
/** Pulumi's `pkg/v3` and `sdk/v3`: the release each module builds, never aligned. */
export const PULUMI_MODULES: string[];
/** `tools/pulumi`: the module whose versions the others follow. */
export const REFERENCE: string;
/** A module required at another version than the reference's. */
export interface Mismatch {
  module: string;
  /** The reference's version. */
  want: string;
  /** The aligned module's version. */
  have: string;
}
/**
 * The modules that `goMod` and `referenceGoMod` (paths of go.mod files) both require at different
 * versions, but for PULUMI_MODULES and `holds`, sorted by module path.
 * @throws Error when a file cannot be read.
 */
export function mismatches(goMod: string, referenceGoMod: string, holds?: Record<string, string>): Mismatch[];
/**
 * The requirements of a go.mod file, direct and indirect: module path to version.
 * @throws Error when the file cannot be read.
 */
export function requirements(file: string): Map<string, string>;

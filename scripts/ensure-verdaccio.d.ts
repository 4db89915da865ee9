/** Types of scripts/ensure-verdaccio.js: Verdaccio, a local npm registry, installed once into the project's cache. */

/** The Verdaccio release installed (scripts/requirements/verdaccio/package.json pins it). */
export const VERDACCIO_VERSION: string;

/** A folder of the cache this user cannot safely use (a link, not a folder, another user's, open to others). */
export class UntrustedFolderError extends Error {
  /** The folder at fault. */
  readonly path: string;
  constructor(folder: string, problem: string);
}

/**
 * What makes `folder` unfit, or null: a link, not a folder, owned by another user, writable by
 * others, or (`strict`) any permission for group or others. `missing` is true when it does not exist.
 */
export function folderProblem(folder: string, strict: boolean): { missing: boolean; problem: string | null };

/** `<cache>/verdaccio-<version>-<hash of the lock file and the Node.js major>`, whether or not it exists. */
export function verdaccioDir(): string;

/**
 * The finished install folder, or null when there is none.
 * @throws UntrustedFolderError when the cache or the install folder is not this user's alone.
 */
export function findVerdaccio(): string | null;

/**
 * Verdaccio's executable script (run it with `node`), installed into the cache first when missing
 * (`npm ci` of scripts/requirements/verdaccio, under a lock, into a private folder).
 * @throws UntrustedFolderError when the cache or the install folder is not this user's alone;
 *   Error when the install fails.
 */
export function ensureVerdaccio(): string;

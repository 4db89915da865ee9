/** A temporary folder for the tests of one file or `describe` block. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * Makes a fresh folder under the system's temporary directory before the tests of the enclosing
 * block (`beforeAll`) and removes it with its content after them (`afterAll`).
 * @param prefix - the start of the folder's name, e.g. `emulator-store-`.
 * @returns a function giving the folder's path (call it inside a test or hook).
 */
export function useTempDir(prefix: string): () => string {
  let dir: string | undefined;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), prefix));
  });
  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (dir === undefined) throw new Error("useTempDir: the folder exists only inside tests and hooks");
    return dir;
  };
}

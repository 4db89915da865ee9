/** Types of files.js (the source files of a mutation module and their fingerprints). */
export function globRegExp(glob: string): RegExp;
export function moduleFiles(root: string, globs: string[]): string[];
export function hasCode(text: string): boolean;
export function lineHashes(text: string): string[];
export function changedLines(then: string[], now: string[]): number;
export function drift(
  root: string,
  globs: string[],
  recorded: Record<string, string>,
): { changed: number; lines: number; percent: number; files: string[] };

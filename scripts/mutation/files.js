// The source files of a mutation module (scripts/mutation/modules.js) and their fingerprints:
// what scripts/mutation/summary.js records in test/mutation/summary.json after a run and what
// test/scripts/mutation/summary.test.ts compares with the checkout, with neither git nor Stryker.
"use strict";
const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");

/**
 * A regular expression of one of Stryker's `mutate` globs (`*`: any characters but `/`; `**\/`:
 * any folders, none included). Other glob syntax is not used by modules.js and not supported.
 * @param {string} glob a path from the repository's root
 * @returns {RegExp}
 */
function globRegExp(glob) {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    if (glob.startsWith("**/", i)) {
      out += "(?:.*/)?";
      i += 2;
    } else if (glob[i] === "*") out += "[^/]*";
    else out += glob[i].replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${out}$`);
}

/**
 * The files (paths from `root`, `/`-separated, sorted) matched by any of the module's `mutate`
 * globs, `.d.ts` files left out as stryker.config.mjs leaves them.
 * @param {string} root the repository's root (absolute)
 * @param {string[]} globs
 * @returns {string[]}
 */
function moduleFiles(root, globs) {
  const patterns = globs.map(globRegExp);
  const out = [];
  const walk = (rel) => {
    for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules" && entry.name !== "dist") walk(child);
      } else if (!child.endsWith(".d.ts") && patterns.some((p) => p.test(child))) out.push(child);
    }
  };
  // Walk only the folders the globs start in (their part before the first `*`).
  const starts = new Set(globs.map((g) => path.posix.dirname(g.split("*")[0] + "x")));
  for (const start of starts) if (fs.existsSync(path.join(root, start))) walk(start);
  return [...new Set(out)].sort();
}

/**
 * Whether a TypeScript file's text has code Stryker could change (and so may have mutants): false
 * for a file of types, interfaces, imports, re-exports (`export { x } from "./x"`) and comments
 * only, which Stryker leaves out of its report. Decided on TypeScript's own syntax tree: any
 * top-level statement other than those.
 * @param {string} text a `.ts` file's text
 * @returns {boolean}
 */
function hasCode(text) {
  const ts = require("typescript");
  const file = ts.createSourceFile("file.ts", text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const declared = (s) => (ts.getModifiers(s) ?? []).some((m) => m.kind === ts.SyntaxKind.DeclareKeyword);
  return file.statements.some(
    (s) =>
      !(
        ts.isImportDeclaration(s) ||
        ts.isExportDeclaration(s) ||
        ts.isInterfaceDeclaration(s) ||
        ts.isTypeAliasDeclaration(s) ||
        (ts.canHaveModifiers(s) && declared(s))
      ),
  );
}

/**
 * The fingerprint of a file's text: one 6-hex-digit hash per line (sha256 of the line with its
 * surrounding blanks trimmed, blank lines left out), so that the lines changed since a run can be
 * counted without the old text. 6 digits: two different lines share a hash once in 16.7 million.
 * @param {string} text
 * @returns {string[]}
 */
function lineHashes(text) {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .map((line) => crypto.createHash("sha256").update(line).digest("hex").slice(0, 6));
}

/**
 * How many lines differ between two fingerprints: lines of `now` with no equal line left in
 * `then`, plus lines of `then` with no equal line in `now` (a multiset difference, blind to
 * lines that only moved).
 * @param {string[]} then
 * @param {string[]} now
 * @returns {number}
 */
function changedLines(then, now) {
  const left = new Map();
  for (const h of then) left.set(h, (left.get(h) ?? 0) + 1);
  let added = 0;
  for (const h of now) {
    const n = left.get(h) ?? 0;
    if (n > 0) left.set(h, n - 1);
    else added++;
  }
  let removed = 0;
  for (const n of left.values()) removed += n;
  return added + removed;
}

/**
 * How far a module's files in the checkout at `root` have moved since the run whose fingerprints
 * are `recorded` (path → the file's 6-digit line hashes joined, as test/mutation/summary.json
 * keeps them): the lines changed (added, removed or edited, in files kept, added or removed)
 * and their share of the module's lines (the larger of its count then and now), in percent.
 * @param {string} root the repository's root (absolute)
 * @param {string[]} globs the module's `mutate` globs
 * @param {Record<string, string>} recorded
 * @returns {{ changed: number, lines: number, percent: number, files: string[] }} `files`: those changed
 */
function drift(root, globs, recorded) {
  const split = (joined) => joined.match(/.{6}/g) ?? [];
  const now = Object.fromEntries(
    moduleFiles(root, globs).map((f) => [f, lineHashes(fs.readFileSync(path.join(root, f), "utf8"))]),
  );
  let changed = 0;
  let linesThen = 0;
  let linesNow = 0;
  const files = [];
  for (const file of new Set([...Object.keys(recorded), ...Object.keys(now)])) {
    const then = split(recorded[file] ?? "");
    const current = now[file] ?? [];
    linesThen += then.length;
    linesNow += current.length;
    const n = changedLines(then, current);
    if (n > 0) files.push(file);
    changed += n;
  }
  const lines = Math.max(linesThen, linesNow);
  return { changed, lines, percent: lines ? (100 * changed) / lines : 0, files: files.sort() };
}

module.exports = {
  hasCode,
  globRegExp,
  moduleFiles,
  lineHashes,
  changedLines,
  drift,
};

/**
 * The fenced code blocks of the Markdown documentation, and the shell script a reader types when
 * following one document from top to bottom.
 *
 * Markers, an HTML comment on the last non-blank line before a fence:
 * - `<!-- not run: <reason> -->` on a shell block: an illustration, or a command about a clone
 *   of this repository; the reason says why no test runs it;
 * - `<!-- run by: <test file> -->` on a shell block: a command that installs the published
 *   release (from npm, PyPI, the Go module proxy, the plugin's GitHub release), which
 *   test/docs/blocks.test.ts leaves to the named test file (relative to the repository, e.g.
 *   `test/e2e/install.test.ts`); that file runs it as printed with local registries in place of
 *   the real ones, takes its blocks with {@link blocksRunBy}, and fails when one of them is not
 *   run (blocks.test.ts fails a marker naming a file that does not call {@link blocksRunBy});
 * - `<!-- file: <name> -->` on any other block: the reader saves the block as that file (in the
 *   folder the document's commands are in at that point).
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** Languages of the blocks a reader types into a shell. */
export const SHELL_LANGUAGES = new Set(["sh", "bash", "shell", "console"]);

/** The kinds of marker: see the module's comment. */
export type MarkerKind = "not run" | "file" | "run by";

/** One fenced block. */
export interface DocBlock {
  /** Path of the document, relative to the repository. */
  doc: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's language (`""` when it names none). */
  lang: string;
  /** The lines between the fences. */
  body: string;
  /** The marker on the line before it, if any. */
  marker?: { kind: MarkerKind; value: string };
  /** The HTML comment before it when it looks like a marker but is not a valid one. */
  badMarker?: string;
}

/** Every fenced block of `file` (absolute), in order; `doc` is its name in messages. */
export function docBlocks(file: string, doc: string): DocBlock[] {
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const out: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    // Fences may be indented (a block inside a list item); its lines lose that indentation.
    const open = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[i]);
    if (!open) continue;
    const indent = open[1].length;
    const fence = open[2];
    let end = i + 1;
    while (end < lines.length && !lines[end].trimStart().startsWith(fence)) end++;
    let prev = i - 1;
    while (prev >= 0 && lines[prev].trim() === "") prev--;
    const comment = prev >= 0 ? lines[prev].trim() : "";
    const marker = /^<!--\s*(not run|file|run by):\s*(.*?)\s*-->$/.exec(comment);
    out.push({
      doc,
      line: i + 1,
      lang: open[3],
      body: lines
        .slice(i + 1, end)
        .map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)))
        .join("\n"),
      ...(marker ? { marker: { kind: marker[1] as MarkerKind, value: marker[2] } } : {}),
      ...(!marker && /^<!--\s*(not[ -]?run|file|run[ -]?by)\b/i.test(comment) ? { badMarker: comment } : {}),
    });
    i = end;
  }
  return out;
}

/**
 * Whether a block is one test/docs/blocks.test.ts runs: a shell block without a `not run` or a
 * `run by` marker.
 */
export function isRun(b: DocBlock): boolean {
  return SHELL_LANGUAGES.has(b.lang) && b.marker?.kind !== "not run" && b.marker?.kind !== "run by";
}

/** The commands of a shell block: a `console` block's `$ ` lines, any other block whole. */
export function commands(b: DocBlock): string {
  if (b.lang !== "console") return b.body;
  return b.body
    .split("\n")
    .filter((l) => l.startsWith("$ "))
    .map((l) => l.slice(2))
    .join("\n");
}

/**
 * Rewrites the `npm install` (`i`, `add`) lines of a script: each argument naming one of
 * `specs`' packages (optionally with `@version`) is replaced by `specs[name]` (the tarballs). The
 * rest of the line, a trailing comment included, is kept.
 *
 * @returns the script and the package names replaced, in order.
 */
export function substituteInstalls(
  script: string,
  specs: Record<string, string[]>,
): { script: string; replaced: string[] } {
  const replaced: string[] = [];
  const lines = script.split("\n").map((line) => {
    if (!/^\s*npm\s+(install|i|add)(\s|$)/.test(line)) return line;
    const hash = line.search(/\s#/);
    const [code, comment] = hash === -1 ? [line, ""] : [line.slice(0, hash), line.slice(hash)];
    const args = code.split(/(\s+)/).flatMap((token) => {
      const name = /^(@?[^@\s]+)(@\S+)?$/.exec(token)?.[1];
      if (name === undefined || !(name in specs)) return [token];
      replaced.push(name);
      return [specs[name].map((s) => `'${s}'`).join(" ")];
    });
    return args.join("") + comment;
  });
  return { script: lines.join("\n"), replaced };
}

/**
 * The script of a document: its run blocks and saved files in order, in one bash that stops at
 * the first failing command (`set -e -o pipefail`) and names it.
 */
export function docScript(blocks: DocBlock[]): string {
  const parts = [
    "set -e -o pipefail",
    `trap 'echo "a command of the document failed (exit code $?): $BASH_COMMAND" >&2' ERR`,
  ];
  for (const b of blocks) {
    if (b.marker?.kind === "file") {
      const name = b.marker.value;
      if (!/^[\w./-]+$/.test(name) || name.includes("..")) throw new Error(`bad file name ${name}`);
      parts.push(
        `# ${b.doc}:${b.line}: saved as ${name}`,
        `cat > '${name}' <<'__DOC_FILE_END__'`,
        b.body,
        "__DOC_FILE_END__",
      );
    } else if (isRun(b)) {
      parts.push(`# ${b.doc}:${b.line}`, commands(b));
    }
  }
  return parts.join("\n") + "\n";
}

/**
 * The documents whose blocks may carry a `run by` marker, relative to `repo`: README.md, every page
 * of docs/ and every example's README.md (`examples/<language>/<example>/README.md`).
 */
export function markedDocuments(repo: string): string[] {
  const examples = path.join(repo, "examples");
  const readmes = fs
    .readdirSync(examples, { withFileTypes: true })
    .filter((l) => l.isDirectory())
    .flatMap((l) =>
      fs
        .readdirSync(path.join(examples, l.name), { withFileTypes: true })
        .filter((e) => e.isDirectory() && fs.existsSync(path.join(examples, l.name, e.name, "README.md")))
        .map((e) => `examples/${l.name}/${e.name}/README.md`),
    )
    .sort();
  return [...documents(repo), ...readmes];
}

/**
 * The blocks of {@link markedDocuments} marked `<!-- run by: <testFile> -->`, in document order:
 * what the test file `testFile` (relative to `repo`, with `/`) must run.
 */
export function blocksRunBy(repo: string, testFile: string): DocBlock[] {
  return markedDocuments(repo)
    .flatMap((doc) => docBlocks(path.join(repo, doc), doc))
    .filter((b) => b.marker?.kind === "run by" && b.marker.value === testFile);
}

/**
 * The commands of a shell block as bash sees them, for telling two blocks' commands apart: each
 * line without its trailing comment (` # …`) and outer blanks, blank lines left out. Good for
 * the simple commands of install blocks (no `#` inside quotes).
 */
export function commandLines(b: DocBlock): string[] {
  return commands(b)
    .split("\n")
    .map((l) => l.replace(/(^|\s)#.*$/, "").trim())
    .filter(Boolean);
}

/** README.md and every page of docs/, relative to `repo`. */
export function documents(repo: string): string[] {
  return [
    "README.md",
    ...fs
      .readdirSync(path.join(repo, "docs"))
      .filter((f) => f.endsWith(".md"))
      .sort()
      .map((f) => `docs/${f}`),
  ];
}

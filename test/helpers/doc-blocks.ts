/**
 * The fenced code blocks of the Markdown documentation, and the shell script a reader types when
 * following one document from top to bottom.
 *
 * Markers, an HTML comment on the last non-blank line before a fence:
 * - `<!-- not run: <reason> -->` on a shell block: an illustration, or a command about a clone
 *   of this repository; the reason says why no test runs it;
 * - `<!-- file: <name> -->` on any other block: the reader saves the block as that file (in the
 *   folder the document's commands are in at that point).
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** Languages of the blocks a reader types into a shell. */
export const SHELL_LANGUAGES = new Set(["sh", "bash", "shell", "console"]);

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
  marker?: { kind: "not run" | "file"; value: string };
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
    const marker = /^<!--\s*(not run|file):\s*(.*?)\s*-->$/.exec(comment);
    out.push({
      doc,
      line: i + 1,
      lang: open[3],
      body: lines
        .slice(i + 1, end)
        .map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)))
        .join("\n"),
      ...(marker ? { marker: { kind: marker[1] as "not run" | "file", value: marker[2] } } : {}),
      ...(!marker && /^<!--\s*(not[ -]?run|file)\b/i.test(comment) ? { badMarker: comment } : {}),
    });
    i = end;
  }
  return out;
}

/** Whether a block is one the tests run: a shell block without a `not run` marker. */
export function isRun(b: DocBlock): boolean {
  return SHELL_LANGUAGES.has(b.lang) && b.marker?.kind !== "not run";
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

/**
 * The TypeScript blocks (```ts, ```typescript) of the documentation, type-checked as one
 * TypeScript program against the built packages, the way a reader's project would compile them.
 *
 * The rule for a block: it is a complete module (its imports and declarations are in it), unless
 * the line before it (after any blank lines) is `<!-- fragment: <TypeScript> -->`: then it is
 * checked with that TypeScript before it, which states what the fragment assumes (`import * as
 * pulumi from "@pulumi/pulumi"; const config = new pulumi.Config();`). That prelude type-checks
 * too and may not say `any`, so a fragment cannot assume a name without giving it a real type.
 *
 * A block marked `<!-- file: <name> -->` is checked as that file: `.ts` beside this repository's
 * package.json (CommonJS, as in a project of `pulumi new typescript`), `.mts` as an ES module.
 * Any other block is checked as an ES module (`.mts`), where top-level `await` is allowed: a
 * snippet that is not a file of a program may be pasted into either kind.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import type { DocBlock } from "./doc-blocks";

/** Languages of the blocks checked as TypeScript. */
export const TS_LANGUAGES = new Set(["ts", "typescript"]);

/** The marker of a fragment: the TypeScript it assumes, from the comment before the block. */
export function fragmentPrelude(docText: string, block: DocBlock): string | undefined {
  const lines = docText.split("\n");
  let prev = block.line - 2;
  while (prev >= 0 && lines[prev].trim() === "") prev--;
  return /^<!--\s*fragment:\s*([\s\S]*?)\s*-->$/.exec(lines[prev]?.trim() ?? "")?.[1];
}

/**
 * Compiler options of a reader's project: strict, Node.js 20's ES2022, Node's module resolution
 * (package.json `exports` honoured), `@types/node`; unused imports reported (see
 * `unusedLocalNotImport`); no output. `skipLibCheck` as in the projects
 * `pulumi new` makes (the packages' declarations are checked by their own builds).
 */
export const READER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  lib: ["lib.es2022.d.ts"],
  module: ts.ModuleKind.Node16,
  moduleResolution: ts.ModuleResolutionKind.Node16,
  types: ["node"],
  esModuleInterop: true,
  skipLibCheck: true,
  noEmit: true,
  noUnusedLocals: true,
};

/**
 * Type-checks `blocks` (each with the text of its document) as one program whose files sit in
 * `<repo>/.doc-blocks/` (virtual: nothing is written), so that `pulumi-service`, its subpaths,
 * `@pulumi/pulumi` and `service-emulator` resolve from the repository's node_modules to the built
 * packages.
 * @returns the problems, each `<doc>:<line>: TS<code> <message>` at the document's line.
 */
export function checkTypeScript(repo: string, blocks: { block: DocBlock; docText: string }[]): string[] {
  const problems: string[] = [];
  const files = new Map<string, { text: string; block: DocBlock; preludeLines: number }>();
  for (const { block, docText } of blocks) {
    const prelude = fragmentPrelude(docText, block);
    if (prelude !== undefined && /\bany\b/.test(prelude))
      problems.push(`${block.doc}:${block.line}: the fragment's prelude may not use \`any\`: ${prelude}`);
    const name = block.marker?.kind === "file" ? block.marker.value : "snippet.mts";
    const file = path.join(
      repo,
      ".doc-blocks",
      `${block.doc.replace(/\W+/g, "_")}_${block.line}`,
      path.basename(name),
    );
    const head = prelude === undefined ? "" : `${prelude}\n`;
    files.set(file, { text: head + block.body + "\n", block, preludeLines: head.split("\n").length - 1 });
  }
  const host = ts.createCompilerHost(READER_OPTIONS);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (f) => files.has(f) || fileExists.call(host, f);
  host.readFile = (f) => files.get(f)?.text ?? readFile.call(host, f);
  host.getSourceFile = (f, lang, onError, create) => {
    const v = files.get(f);
    return v
      ? ts.createSourceFile(f, v.text, lang, true)
      : getSourceFile.call(host, f, lang, onError, create);
  };
  const program = ts.createProgram({ rootNames: [...files.keys()], options: READER_OPTIONS, host });
  for (const d of ts.getPreEmitDiagnostics(program).filter((d) => !unusedLocalNotImport(d))) {
    const message = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    const v = d.file ? files.get(d.file.fileName) : undefined;
    if (!d.file || d.start === undefined) {
      problems.push(`TS${d.code} ${message}`);
    } else if (!v) {
      problems.push(`${path.relative(repo, d.file.fileName)}: TS${d.code} ${message}`);
    } else {
      const line = d.file.getLineAndCharacterOfPosition(d.start).line;
      const where =
        line < v.preludeLines
          ? `${v.block.doc}:${v.block.line} (its fragment marker)`
          : `${v.block.doc}:${v.block.line + 1 + line - v.preludeLines}`;
      problems.push(`${where}: TS${d.code} ${message}`);
    }
  }
  return problems;
}

/**
 * Whether `d` is an unused-name diagnostic (`noUnusedLocals`: TS6133, TS6196) about anything but
 * an import. A resource a program declares and never reads is usual (it is made for its effect);
 * an import a block never uses is not, and is reported, as pyflakes reports it in Python blocks.
 */
function unusedLocalNotImport(d: ts.Diagnostic): boolean {
  if ((d.code !== 6133 && d.code !== 6196) || !d.file || d.start === undefined) return false;
  let node: ts.Node | undefined = findNode(d.file, d.start);
  while (node && !ts.isImportDeclaration(node)) node = node.parent;
  return node === undefined;
}

/** The innermost node of `file` that starts at `pos`. */
function findNode(file: ts.SourceFile, pos: number): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (n: ts.Node) => {
    if (pos >= n.getStart(file) && pos < n.getEnd()) {
      found = n;
      n.forEachChild(visit);
    }
  };
  file.forEachChild(visit);
  return found;
}

/** Whether the packages the blocks import are built (their declarations exist). */
export function builtDeclarations(repo: string): string[] {
  return [
    "dist/provider/index.d.ts",
    "dist/client/index.d.ts",
    "dist/sdk/nodejs/index.d.ts",
    "packages/emulator/dist/index.d.ts",
  ].filter((f) => !fs.existsSync(path.join(repo, f)));
}

/**
 * The committed summary of the mutation runs (test/mutation/summary.md, test/mutation/summary.json) is
 * not older than the sources it covers by more than its margin: for each module run, the lines
 * of its files changed since that run (added, removed or edited, counted against the per-line
 * fingerprints the summary keeps, so neither git history nor Stryker is needed) are at most
 * `marginPercent` of the module's lines. Past it, the module is run again
 * (`MUTATION_MODULES=<module> npm run test:mutation`, incremental) and the summary updated
 * (`node scripts/mutation/summary.js <report>`). docs/testing.md § Mutation testing.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { drift, hasCode, lineHashes } from "../../../scripts/mutation/files";
import { MODULES } from "../../../scripts/mutation/modules";
import { END, START, render, type Summary } from "../../../scripts/mutation/summary";

const ROOT = path.resolve(__dirname, "..", "..", "..");
const summary = JSON.parse(
  fs.readFileSync(path.join(ROOT, "test", "mutation", "summary.json"), "utf8"),
) as Summary;

describe("the mutation summary", () => {
  it("covers modules of scripts/mutation/modules.js only, at least one", () => {
    const names = MODULES.map((m) => m.name);
    expect(Object.keys(summary.modules).filter((n) => !names.includes(n))).toEqual([]);
    expect(Object.keys(summary.modules).length).toBeGreaterThan(0);
  });

  it("is no older than the sources of each module it covers, by at most its margin of lines", () => {
    expect(summary.marginPercent).toBe(10);
    const stale = MODULES.filter((m) => summary.modules[m.name])
      .map((m) => ({ module: m.name, ...drift(ROOT, m.mutate, summary.modules[m.name].files) }))
      .filter((d) => d.percent > summary.marginPercent)
      .map((d) => `${d.module}: ${d.percent.toFixed(1)}% of its lines changed (${d.files.join(", ")})`);
    expect(stale).toEqual([]);
  });

  it("test/mutation/summary.md shows what summary.json holds", () => {
    const doc = fs.readFileSync(path.join(ROOT, "test", "mutation", "summary.md"), "utf8");
    const generated = doc.slice(doc.indexOf(START) + START.length, doc.indexOf(END)).trim();
    // Prettier pads the table's cells; the text is the same.
    const cells = (md: string) => md.replace(/ +/g, " ").replace(/-{3,}/g, "---");
    expect(cells(generated)).toBe(cells(render(summary)));
  });
});

describe("drift (scripts/mutation/files.js)", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "mutation-drift-"));
  const file = path.join(root, "src", "a.ts");
  const lines = Array.from({ length: 20 }, (_, i) => `export const v${i} = ${i};`);
  fs.mkdirSync(path.dirname(file));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  /** Writes src/a.ts (20 lines) and returns its fingerprint as the summary records it. */
  function recordedNow(): Record<string, string> {
    fs.writeFileSync(file, lines.join("\n"));
    return { "src/a.ts": lineHashes(lines.join("\n")).join("") };
  }

  it("counts an edited line as one removed and one added, and ignores blank lines and indentation", () => {
    const recorded = recordedNow();
    fs.writeFileSync(file, ["", ...lines.map((l) => `  ${l}`)].join("\n"));
    expect(drift(root, ["src/**/*.ts"], recorded)).toEqual({ changed: 0, lines: 20, percent: 0, files: [] });
    fs.writeFileSync(file, [...lines.slice(0, 19), "export const v19 = 20;"].join("\n"));
    expect(drift(root, ["src/**/*.ts"], recorded)).toEqual({
      changed: 2,
      lines: 20,
      percent: 10,
      files: ["src/a.ts"],
    });
  });

  it("counts every line of a file added or removed since the run", () => {
    const recorded = recordedNow();
    fs.writeFileSync(path.join(root, "src", "b.ts"), "export const b = 1;\n");
    expect(drift(root, ["src/**/*.ts"], recorded)).toMatchObject({ changed: 1, files: ["src/b.ts"] });
    fs.rmSync(path.join(root, "src", "b.ts"));
    fs.rmSync(file);
    expect(drift(root, ["src/**/*.ts"], recorded)).toEqual({
      changed: 20,
      lines: 20,
      percent: 100,
      files: ["src/a.ts"],
    });
  });
});

describe("hasCode (scripts/mutation/files.js): a module's run is recognized though its files of types or re-exports only have no mutants", () => {
  it("is false for types, interfaces, imports, re-exports and comments only", () => {
    const types = [
      "/** A record. */",
      'import type { A } from "./a";',
      'import { b } from "./b";',
      "export interface R { id: string; a: A }",
      'export type S = Omit<R, "a">;',
      'export { x, type Y } from "./x";',
      'export * from "./z";',
      "export { b };",
      "declare const c: number;",
      "// the end",
    ].join("\n");
    expect(hasCode(types)).toBe(false);
  });

  it("is true as soon as one statement Stryker could change is there: a constant, a function, an enum, a class", () => {
    for (const code of [
      "export const LIMIT = 3;",
      "export function f(): number { return 1; }",
      "export enum E { A }",
      "export class K { n = 1; }",
    ])
      expect(hasCode(`export { x } from "./x";\n${code}`)).toBe(true);
  });
});

describe("test/mutation/equivalent.json", () => {
  interface Entry {
    file: string;
    mutator: string;
    replacement: string;
    code: string;
    why: string;
  }
  const entries = JSON.parse(
    fs.readFileSync(path.join(ROOT, "test", "mutation", "equivalent.json"), "utf8"),
  ) as Entry[];

  const lines = new Map<string, string[]>();
  /** The lines of `file` (a path from the repository's root), read once. */
  const linesOf = (file: string) => {
    if (!lines.has(file)) lines.set(file, fs.readFileSync(path.join(ROOT, file), "utf8").split("\n"));
    return lines.get(file)!;
  };

  it("lists each mutant once: no two entries name the same mutator and replacement on one line of a file", () => {
    const twice: string[] = [];
    entries.forEach((a, i) =>
      entries.slice(i + 1).forEach((b) => {
        if (a.file !== b.file || a.mutator !== b.mutator || a.replacement !== b.replacement) return;
        const line = linesOf(a.file).findIndex((l) => l.includes(a.code) && l.includes(b.code));
        if (line >= 0) twice.push(`${a.file}:${line + 1} ${a.mutator} → ${a.replacement}`);
      }),
    );
    expect(twice).toEqual([]);
  });

  it("gives each entry a file that exists, a part of one of its lines and a reason", () => {
    const problems = entries.flatMap((e) => {
      if (!fs.existsSync(path.join(ROOT, e.file))) return [`${e.file}: no such file`];
      const found = linesOf(e.file).some((l) => l.includes(e.code));
      return [
        ...(found ? [] : [`${e.file}: no line holds ${JSON.stringify(e.code)}`]),
        ...(e.why ? [] : [`${e.file}: no reason`]),
      ];
    });
    expect(problems).toEqual([]);
  });
});

/**
 * The examples of docs/resources.md in TypeScript, Python and Go are generated from one PCL
 * source each (docs/examples/<name>.pp) by Pulumi's program generators (`npm run gen:examples`,
 * scripts/gen-examples.js): the page must be current with them, the generated TypeScript must
 * type-check against the built Node.js SDK (`pulumi-service/native`, from `npm run build`) and the
 * generated Go must build against the generated Go SDK (sdk/go). The Python one is deployed through the engine by
 * test/e2e/python.test.ts.
 */
import { spawnSync } from "child_process";
import * as ts from "typescript";
import * as fs from "fs";
import * as path from "path";
import { REPO_ROOT } from "../../scripts/pulumi-env";
import { docBlocks } from "../helpers/doc-blocks";
import { goFlags } from "../helpers/go-flags";
import { writeSdkGoModule } from "../helpers/go-module";
import { GEN_EXAMPLES_TIMEOUT_MS, genExamples } from "../helpers/gen-examples";
import { useTempDir } from "../helpers/temp-dir";

// The first run builds the generator; the Go build compiles Pulumi's Go SDK when not cached.
const TIMEOUT = GEN_EXAMPLES_TIMEOUT_MS;
const DOC = "docs/resources.md";
/** The documents that show generated examples (DEFAULT_DOCUMENTS of scripts/gen-examples.js). */
const DOCS = [DOC, "docs/_index.md", "docs/providers.md"];
const EXAMPLES = path.join(REPO_ROOT, "docs", "examples");
const LANGUAGES = ["typescript", "python", "go"];

describe("docs/resources.md examples in three languages, generated from PCL", () => {
  const tmp = useTempDir("doc-examples-");

  it("shows every example of docs/examples in TypeScript, Python and Go", () => {
    const text = DOCS.map((doc) => fs.readFileSync(path.join(REPO_ROOT, doc), "utf8")).join("\n");
    const names = fs
      .readdirSync(EXAMPLES)
      .filter((f) => f.endsWith(".pp"))
      .map((f) => f.slice(0, -3));
    expect(names.length).toBeGreaterThan(0);
    for (const name of names)
      for (const lang of LANGUAGES)
        expect(text).toContain(
          `<!-- generated from docs/examples/${name}.pp: ${lang} (npm run gen:examples) -->`,
        );
  });

  it(
    "is current with the generators (npm run gen:examples writes nothing new)",
    () => {
      // What --check is for: exit 0 and no file named stale. A first run may also print
      // progress on stderr (building the generator), which is not a finding.
      const r = genExamples("--check");
      const stale = r.stderr.split("\n").filter((line) => line.includes("is stale"));
      expect({ status: r.status, stale }).toEqual({ status: 0, stale: [] });
    },
    TIMEOUT,
  );

  it(
    "a generated block edited by hand is reported stale",
    () => {
      const copy = path.join(tmp(), "resources.md");
      const text = fs.readFileSync(path.join(REPO_ROOT, DOC), "utf8");
      const edited = text.replace(
        'urls=["https://phish.example.com/login"]',
        'urls=["https://edited.example.com"]',
      );
      expect(edited).not.toBe(text);
      fs.writeFileSync(copy, edited);
      const r = genExamples("--check", copy);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`${copy} is stale: run npm run gen:examples`);
    },
    TIMEOUT,
  );

  it(
    "the Go example builds against the generated Go SDK",
    () => {
      const mod = path.join(tmp(), "go-example");
      fs.mkdirSync(mod);
      writeSdkGoModule(mod);
      const blocks = docBlocks(path.join(REPO_ROOT, DOC), DOC).filter((b) => b.lang === "go");
      expect(blocks).toHaveLength(1);
      fs.writeFileSync(path.join(mod, "main.go"), blocks[0].body);
      const r = spawnSync("go", ["vet", "./..."], {
        cwd: mod,
        encoding: "utf8",
        timeout: TIMEOUT,
        env: { ...process.env, GOFLAGS: goFlags("-mod=mod") },
      });
      expect({ status: r.status, out: r.status === 0 ? "" : `${r.stdout}${r.stderr}` }).toEqual({
        status: 0,
        out: "",
      });
    },
    TIMEOUT,
  );

  it("every TypeScript example of the native SDK type-checks against pulumi-service/native", () => {
    // Inside the repository, so that `pulumi-service/native` resolves to this package's own
    // export (a self-reference) and `@pulumi/pulumi` to its node_modules.
    // The state folder exists only once some test has made it (a fresh clone has none).
    fs.mkdirSync(path.join(REPO_ROOT, ".pulumi-state"), { recursive: true });
    const dir = fs.mkdtempSync(path.join(REPO_ROOT, ".pulumi-state", "doc-example-ts-"));
    try {
      const blocks = DOCS.flatMap((doc) => docBlocks(path.join(REPO_ROOT, doc), doc)).filter(
        (b) => b.lang === "ts" && /pulumi-service\/native/.test(b.body),
      );
      // The generated quick-start and multi-account examples, the functions' example, providers.md's program.
      expect(blocks.length).toBeGreaterThanOrEqual(4);
      const failures = blocks.map((block) => {
        const file = path.join(dir, `${path.basename(block.doc, ".md")}-line-${block.line}.ts`);
        fs.writeFileSync(file, block.body);
        const program = ts.createProgram([file], {
          module: ts.ModuleKind.Node16,
          moduleResolution: ts.ModuleResolutionKind.Node16,
          target: ts.ScriptTarget.ES2022,
          strict: true,
          noEmit: true,
          skipLibCheck: true,
        });
        const messages = ts
          .getPreEmitDiagnostics(program)
          .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
        return { doc: block.doc, line: block.line, messages };
      });
      expect(failures).toEqual(blocks.map((b) => ({ doc: b.doc, line: b.line, messages: [] })));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

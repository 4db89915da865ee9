/**
 * The example projects examples/<language>/quickstart (TypeScript on the native SDK, Python,
 * Go) stay what their source gives: each program file is exactly what scripts/gen-examples.js
 * generates from docs/examples/quickstart.pp (the source of the docs' blocks too), a hand edit is
 * reported stale, and each manifest names the packages a user installs at this repository's
 * version. test/e2e/typescript-native.test.ts, python.test.ts and go.test.ts deploy them.
 */
import * as fs from "fs";
import * as path from "path";
import { OLDEST_PULUMI_VERSION, REPO_ROOT } from "../../scripts/pulumi-env";
import { readmeInstallCommand } from "../helpers/quickstart-deploy";
import { GEN_EXAMPLES_TIMEOUT_MS, genExamples } from "../helpers/gen-examples";
import { useTempDir } from "../helpers/temp-dir";

// The first run builds the generator.
const TIMEOUT = GEN_EXAMPLES_TIMEOUT_MS;
const VERSION = (
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string }
).version;
/** The generated program of each project, relative to examples/ (PROJECTS of gen-examples.js). */
const PROGRAMS = ["go/quickstart/main.go", "python/quickstart/__main__.py", "typescript/quickstart/index.ts"];

/** Every file below `dir`, relative to it, sorted. */
function filesBelow(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => fs.statSync(path.join(dir, f)).isFile())
    .sort();
}

/** A file of examples/<language>/quickstart. */
function exampleFile(language: string, file: string): string {
  return fs.readFileSync(path.join(REPO_ROOT, "examples", language, "quickstart", file), "utf8");
}

describe("examples/<language>/quickstart, generated from docs/examples/quickstart.pp", () => {
  const tmp = useTempDir("example-projects-");

  it(
    "each program (TypeScript, Python, Go) is exactly what the generator writes into a fresh folder",
    () => {
      const out = path.join(tmp(), "fresh");
      const r = genExamples("--examples", out);
      expect(r.status).toBe(0);
      const written = filesBelow(out);
      expect(written).toEqual(PROGRAMS);
      for (const f of written)
        expect({ f, text: fs.readFileSync(path.join(out, f), "utf8") }).toEqual({
          f,
          text: fs.readFileSync(path.join(REPO_ROOT, "examples", f), "utf8"),
        });
    },
    TIMEOUT,
  );

  it(
    "a program edited by hand is reported stale, and regenerating restores it",
    () => {
      const copy = path.join(tmp(), "edited");
      for (const f of PROGRAMS) {
        fs.mkdirSync(path.dirname(path.join(copy, f)), { recursive: true });
        fs.copyFileSync(path.join(REPO_ROOT, "examples", f), path.join(copy, f));
      }
      const edited = path.join(copy, "python", "quickstart", "__main__.py");
      const text = fs.readFileSync(edited, "utf8");
      fs.writeFileSync(edited, text.replace("https://phish.example.com/login", "https://edited.example.com"));
      expect(fs.readFileSync(edited, "utf8")).not.toBe(text);

      const check = genExamples("--check", "--examples", copy);
      expect(check.status).toBe(1);
      expect(check.stderr.split("\n").filter((l) => l.includes("is stale"))).toEqual([
        `gen-examples: ${edited} is stale: run npm run gen:examples`,
      ]);
      expect(genExamples("--examples", copy).status).toBe(0);
      expect(fs.readFileSync(edited, "utf8")).toBe(text);
      expect(genExamples("--check", "--examples", copy)).toEqual({ status: 0, stderr: "" });
    },
    TIMEOUT,
  );

  it("each manifest names the published packages at this repository's version", () => {
    expect(exampleFile("python", "requirements.txt")).toBe(
      `pulumi~=${OLDEST_PULUMI_VERSION}\npulumi_service==${VERSION}\n`,
    );
    const goMod = exampleFile("go", "go.mod");
    expect(goMod).toContain(`\tgithub.com/pulumi-service/pulumi-service/sdk/go v${VERSION}\n`);
    expect(goMod).toContain(`\tgithub.com/pulumi/pulumi/sdk/v3 v${OLDEST_PULUMI_VERSION}\n`);
    expect(goMod).not.toContain("replace");
    const pkg = JSON.parse(exampleFile("typescript", "package.json")) as {
      dependencies: Record<string, string>;
    };
    const minor = OLDEST_PULUMI_VERSION.split(".").slice(0, 2).join(".");
    expect(pkg.dependencies).toEqual({ "@pulumi/pulumi": `~${minor}.0`, "pulumi-service": `^${VERSION}` });
  });

  it("each README gives two commands: an install command, then pulumi up", () => {
    const installs = ["typescript", "python", "go"].map((language) =>
      readmeInstallCommand(path.join(REPO_ROOT, "examples", language, "quickstart", "README.md")),
    );
    expect(installs).toEqual([
      "npm install",
      "python3 -m venv venv && venv/bin/pip install -r requirements.txt",
      "go mod tidy",
    ]);
  });
});

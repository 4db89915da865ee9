/**
 * The example projects examples/<language>/quickstart (TypeScript on the native SDK, Python,
 * Go) and examples/<language>/multi-account (Python, Go) stay what their source gives: each
 * program file is exactly what scripts/gen-examples.js generates from docs/examples/<name>.pp
 * (the source of the docs' blocks too), a hand edit is reported stale, each manifest names the
 * packages a user installs at this repository's version, and each README gives the stack's
 * commands, then the install command and `pulumi up`. test/e2e/typescript-native.test.ts,
 * python.test.ts and go.test.ts deploy them.
 */
import * as fs from "fs";
import * as path from "path";
import { OLDEST_PULUMI_VERSION, REPO_ROOT } from "../../scripts/pulumi-env";
import { DOCUMENTED_BASE_URL, readmeCommands } from "../helpers/quickstart-deploy";
import { GEN_EXAMPLES_TIMEOUT_MS, genExamples } from "../helpers/gen-examples";
import { useTempDir } from "../helpers/temp-dir";

// The first run builds the generator.
const TIMEOUT = GEN_EXAMPLES_TIMEOUT_MS;
const VERSION = (
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string }
).version;
/** The generated program of each project, relative to examples/ (PROJECTS of gen-examples.js). */
const PROGRAMS = [
  "go/multi-account/main.go",
  "go/quickstart/main.go",
  "python/multi-account/__main__.py",
  "python/quickstart/__main__.py",
  "typescript/quickstart/index.ts",
];

/** Every file below `dir`, relative to it, sorted. */
function filesBelow(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => fs.statSync(path.join(dir, f)).isFile())
    .sort();
}

/** A file of examples/<language>/<name>. */
function exampleFile(language: string, file: string, name = "quickstart"): string {
  return fs.readFileSync(path.join(REPO_ROOT, "examples", language, name, file), "utf8");
}

describe("examples/<language>/<name>, generated from docs/examples/<name>.pp", () => {
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
    for (const name of ["quickstart", "multi-account"]) {
      expect([name, exampleFile("python", "requirements.txt", name)]).toEqual([
        name,
        `pulumi~=${OLDEST_PULUMI_VERSION}\npulumi_service==${VERSION}\n`,
      ]);
      const goMod = exampleFile("go", "go.mod", name);
      expect(goMod).toContain(`\tgithub.com/pulumi-service/pulumi-service/sdk/go v${VERSION}\n`);
      expect(goMod).toContain(`\tgithub.com/pulumi/pulumi/sdk/v3 v${OLDEST_PULUMI_VERSION}\n`);
      expect(goMod).not.toContain("replace");
    }
    const pkg = JSON.parse(exampleFile("typescript", "package.json")) as {
      dependencies: Record<string, string>;
    };
    const minor = OLDEST_PULUMI_VERSION.split(".").slice(0, 2).join(".");
    expect(pkg.dependencies).toEqual({ "@pulumi/pulumi": `~${minor}.0`, "pulumi-service": `^${VERSION}` });
  });

  it("each README gives the stack's commands, pointing it at the service, then an install command and pulumi up", () => {
    const readme = (language: string, name: string) =>
      readmeCommands(path.join(REPO_ROOT, "examples", language, name, "README.md"));
    const installs = ["typescript", "python", "go"].map((language) => readme(language, "quickstart").install);
    expect(installs).toEqual([
      "npm install",
      "python3 -m venv venv && venv/bin/pip install -r requirements.txt",
      "go mod tidy",
    ]);
    const quickstartStack = [
      "pulumi stack init dev",
      `pulumi config set service:baseUrl ${DOCUMENTED_BASE_URL}`,
      'pulumi config set --secret service:apiKey "$SERVICE_API_KEY"',
      "pulumi config set --secret datadogApiKey dd-example-api-key",
    ];
    const multiStack = [
      "pulumi stack init dev",
      `pulumi config set baseUrl ${DOCUMENTED_BASE_URL}`,
      'pulumi config set --secret prodApiKey "$PROD_API_KEY"',
      'pulumi config set --secret devApiKey "$DEV_API_KEY"',
      "pulumi config set --secret ddApiKey dd-example-api-key",
    ];
    for (const language of ["typescript", "python", "go", "yaml"])
      expect([language, readme(language, "quickstart").stack]).toEqual([language, quickstartStack]);
    for (const language of ["python", "go", "yaml"])
      expect([language, readme(language, "multi-account").stack]).toEqual([language, multiStack]);
    expect(readme("python", "multi-account").install).toBe(installs[1]);
    expect(readme("go", "multi-account").install).toBe(installs[2]);
    expect(readme("yaml", "quickstart").install).toBeUndefined();
  });

  it("no README of a Python, Go or YAML example sends its reader to Node.js: no npx or npm install, no link to the README's emulator section, the emulator without Node.js linked", () => {
    for (const language of ["python", "go", "yaml"])
      for (const name of ["quickstart", "multi-account"]) {
        const text = exampleFile(language, "README.md", name);
        expect([language, name, text.match(/\bnpx\b|\bnpm install\b/g)]).toEqual([language, name, null]);
        expect([language, name, text]).toEqual([
          language,
          name,
          expect.stringContaining("docs/emulator.md#the-emulator-without-nodejs"),
        ]);
        expect(text).not.toContain("README.md#against-the-emulator");
      }
  });
});

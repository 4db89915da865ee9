/**
 * Docs that agree with themselves and with the code (README.md, docs/, examples/):
 *
 * - every package name of ours they name is one a manifest defines (package.json files,
 *   sdk/python/pyproject.toml, sdk/go/go.mod), and every version written next to one of our
 *   packages is the manifests' one, except history, told apart by the rule of `isHistory`
 *   (test/helpers/doc-check.ts): an older version the text dates ("its name in 0.1.0", a
 *   measurement's record with its date), or Go's `v0.0.0` beside a `replace` of our module
 *   (CHANGELOG.md and test/upgrade, history by nature, are not read);
 * - every module path (`pulumi-service/native`, `pulumi-service/provider/impl/runtime`,
 *   `pulumi_service.<name>`) resolves through package.json `exports` to a built file, or to the
 *   Python SDK;
 * - every `service:<key>` is a config variable of the schema, and a list of settings that holds
 *   one required setting holds them all; the schema marks none required (each has an environment
 *   fallback), so the required ones are those the provider refuses to run without, found by
 *   asking it (`getClient` with nothing set, then with each setting its error names);
 * - the Pulumi releases named as tested or supported are those of scripts/pulumi-env.js (and the
 *   newest SDK the consumer test runs), and the Pulumi SDK a reader is told to install is the
 *   oldest supported one;
 * - every TypeScript block of README.md and docs/*.md type-checks against the built packages, one
 *   program for all (rules for fragments and module kinds: test/helpers/doc-check-ts.ts);
 * - every Python block compiles and has no undefined name (pyflakes, pinned in
 *   scripts/requirements/pyflakes.txt, in the venv scripts/ensure-venv.js makes), and names only
 *   what the Python SDK exports.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { OLDEST_PULUMI_VERSION, PULUMI_VERSION } from "../../scripts/pulumi-env";
import { docBlocks, documents } from "../helpers/doc-blocks";
import {
  checkModulePaths,
  checkPackageNames,
  checkPulumiVersions,
  checkSettings,
  checkVersions,
  docTexts,
  readManifests,
} from "../helpers/doc-check";
import { checkPython } from "../helpers/doc-check-python";
import { builtDeclarations, checkTypeScript, TS_LANGUAGES } from "../helpers/doc-check-ts";

const REPO = path.resolve(__dirname, "../..");
const TEXTS = docTexts(REPO);
const MANIFESTS = readManifests(REPO);
const BLOCKS = documents(REPO).flatMap((doc) => {
  const docText = fs.readFileSync(path.join(REPO, doc), "utf8");
  return docBlocks(path.join(REPO, doc), doc).map((block) => ({ block, docText }));
});

/**
 * The settings the provider cannot run without: `getClient()` with no setting made, then again
 * with each setting its error names set through its environment fallback, until it builds a
 * client. The environment is restored afterwards.
 */
async function requiredSettings(): Promise<{ key: string; env: string }[]> {
  const saved = { ...process.env };
  for (const name of Object.keys(process.env)) if (name.startsWith("SERVICE_")) delete process.env[name];
  const runtime = await import("../../provider/impl/runtime");
  const found: { key: string; env: string }[] = [];
  try {
    for (let i = 0; i < 10; i++) {
      try {
        await runtime.getClient().close();
        return found;
      } catch (e) {
        const message = (e as Error).message;
        const key = /service:(\w+)/.exec(message)?.[1];
        const env = /\b(SERVICE_[A-Z_]+)\b/.exec(message)?.[1];
        if (!key || !env || found.some((f) => f.key === key)) throw e;
        found.push({ key, env });
        process.env[env] = key === "baseUrl" ? "http://127.0.0.1:1" : `set-${key}`;
      }
    }
    throw new Error(`getClient() still refuses after ${found.length} settings`);
  } finally {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  }
}

describe("the documentation against the manifests", () => {
  it("reads the documents and one version from every manifest", () => {
    expect(TEXTS.map((t) => t.file)).toEqual(
      expect.arrayContaining([
        "README.md",
        "docs/resources.md",
        "examples/python/quickstart/requirements.txt",
      ]),
    );
    expect(MANIFESTS.version).toBe(
      JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")).version,
    );
    expect([...MANIFESTS.npm].sort()).toEqual([
      "@pulumi-service/service",
      "pulumi-service",
      "service-cli-kit",
      "service-contract",
      "service-emulator",
      "service-policy",
    ]);
  });

  it("names only packages of ours that a manifest defines", () => {
    expect(checkPackageNames(TEXTS, MANIFESTS, REPO)).toEqual([]);
  });

  it("writes the manifests' version next to our packages, history aside", () => {
    const { problems, history } = checkVersions(TEXTS, MANIFESTS);
    console.log(`history, by the rule:\n${history.join("\n")}`);
    expect(problems).toEqual([]);
  });

  it("names module paths that resolve through package.json exports or the Python SDK", () => {
    expect(builtDeclarations(REPO)).toEqual([]); // `npm run build` (pretest) made them
    expect(checkModulePaths(TEXTS, MANIFESTS, REPO)).toEqual([]);
  });

  it("names only the schema's settings, and every list of required settings is whole", async () => {
    const schema = JSON.parse(fs.readFileSync(path.join(REPO, "provider/native/schema.json"), "utf8")) as {
      config: { variables: Record<string, unknown> };
    };
    const required = await requiredSettings();
    console.log(
      `required settings, by the provider: ${required.map((r) => `service:${r.key} (${r.env})`).join(", ")}`,
    );
    expect(required.map((r) => r.key).sort()).toEqual(expect.arrayContaining(["apiKey"]));
    for (const r of required) expect(schema.config.variables).toHaveProperty(r.key);
    expect(checkSettings(REPO, TEXTS, schema.config.variables, required)).toEqual([]);
  });

  it("names the releases of scripts/pulumi-env.js as the tested and supported Pulumi", () => {
    const consumer = fs.readFileSync(path.join(REPO, "test/e2e/consumer.test.ts"), "utf8");
    const newestSdk = /const NEWEST_SDK = "([\d.]+)"/.exec(consumer)?.[1];
    expect(newestSdk).toBeDefined();
    expect(
      checkPulumiVersions(TEXTS, {
        engine: PULUMI_VERSION,
        oldest: OLDEST_PULUMI_VERSION,
        newestSdk: newestSdk!,
      }),
    ).toEqual([]);
  });
});

describe("the documentation's code blocks", () => {
  it("every TypeScript block type-checks against the built packages", () => {
    const ts = BLOCKS.filter((b) => TS_LANGUAGES.has(b.block.lang));
    expect(ts.length).toBeGreaterThan(5);
    expect(builtDeclarations(REPO)).toEqual([]);
    const started = Date.now();
    const problems = checkTypeScript(REPO, ts);
    console.log(`${ts.length} TypeScript blocks type-checked in ${Date.now() - started} ms`);
    expect(problems).toEqual([]);
  }, 120_000);

  it(
    "every Python block compiles, with no undefined name, and names only what the SDK exports",
    () => {
      const py = BLOCKS.filter((b) => b.block.lang === "python" || b.block.lang === "py");
      expect(py.length).toBeGreaterThan(0);
      const venv = spawnSync(
        process.execPath,
        [
          path.join(REPO, "scripts/ensure-venv.js"),
          "pyflakes",
          path.join(REPO, "scripts/requirements/pyflakes.txt"),
        ],
        { encoding: "utf8", timeout: 15 * 60_000 },
      );
      if (venv.status !== 0)
        throw new Error(
          `pyflakes is not available: scripts/ensure-venv.js exited ${venv.status}:\n${venv.stderr}`,
        );
      const python = path.join(venv.stdout.trim().split("\n").pop()!, "bin", "python");
      const byName = new Map(py.map(({ block }) => [`${block.doc}:${block.line}`, block]));
      const problems = checkPython(
        python,
        path.join(REPO, "sdk/python", MANIFESTS.pypi),
        py.map(({ block }) => ({ name: `${block.doc}:${block.line}`, code: block.body })),
      ).map((p) => {
        // `<doc>:<fence line>: line <n>: …` → `<doc>:<line in the document>: …`
        const m = /^(.*?): line (\d+): ([\s\S]*)$/.exec(p);
        const block = m && byName.get(m[1]);
        return block ? `${block.doc}:${block.line + Number(m[2])}: ${m[3]}` : p;
      });
      expect(problems).toEqual([]);
    },
    15 * 60_000,
  );
});

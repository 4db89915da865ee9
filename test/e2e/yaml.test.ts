/**
 * Pulumi YAML programs through the real Pulumi engine against the real emulator: the project
 * examples/yaml/quickstart (the quickstart of docs/resources.md in YAML), run by Pulumi YAML's
 * language host (github.com/pulumi/pulumi-yaml, built from tools/pulumi-yaml by
 * scripts/ensure-pulumi.js) with the v3.248.0 engine and the native plugin
 * `pulumi-resource-service`. It checks that the YAML block of docs/resources.md is the program
 * part of the project's Pulumi.yaml, that Pulumi YAML's converter turns the project into the
 * same PCL program as docs/examples/quickstart.pp, and deploys it: up (checked on the emulator),
 * a preview with no changes, refresh of a change made on the emulator, no secret in plain form
 * in the state, destroy leaving the account empty. And examples/yaml/multi-account: two explicit
 * providers (`pulumi:providers:service`), each resource in its provider's account only.
 */
import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { promisify } from "util";
import { findYaml, REPO_ROOT, yamlCacheBinDir } from "../../scripts/pulumi-env";
import { ServiceClient } from "../../client";
import { docBlocks } from "../helpers/doc-blocks";
import { startEngineStack, type EngineStack } from "../helpers/engine-stack";
import { requirePulumi } from "../helpers/pulumi";
import { itDeploysTheQuickstart } from "../helpers/quickstart-deploy";

const exec = promisify(execFile);

/** Per step, in **milliseconds**: the first run of the YAML host loads the plugin's schema. */
const STEP_TIMEOUT = 300_000;
const DD_KEY = "dd-yaml-quickstart-secret-5c1a9e";
const EXAMPLE = path.join(REPO_ROOT, "examples", "yaml", "quickstart");
/** The `plugins.providers[].path` of the example, relative to its folder. */
const RELATIVE_PLUGIN_PATH = "path: ../../../bin";

/**
 * The program part of a YAML project file: from its first top-level `config:`, `variables:`,
 * `resources:` or `outputs:` line to the end.
 */
function programPart(pulumiYaml: string): string {
  const m = /^(config|variables|resources|outputs):/m.exec(pulumiYaml);
  if (!m) throw new Error("no program in this Pulumi.yaml");
  return pulumiYaml.slice(m.index);
}

/**
 * A PCL program reduced to what it declares, for comparing two spellings of one program:
 * without comments, `description` of config blocks, the converter's `__logicalName`
 * attributes (equal to the names), whitespace and commas.
 */
function normalizePcl(pcl: string): string {
  return pcl
    .replace(/\/\/.*$/gm, "")
    .replace(/^\s*__logicalName\s*=.*$/gm, "")
    .replace(/(config \w+ [\w.]+ \{)[^}]*\}/g, "$1}")
    .replace(/[\s,]+/g, "");
}

/** Copies the project `dir` into a new folder below `tmp` with the plugin's path made absolute. */
function copyProject(dir: string, tmp: string): string {
  const program = path.join(tmp, path.basename(dir));
  fs.cpSync(dir, program, { recursive: true });
  const manifest = path.join(program, "Pulumi.yaml");
  const yaml = fs.readFileSync(manifest, "utf8");
  expect(yaml).toContain(RELATIVE_PLUGIN_PATH);
  fs.writeFileSync(manifest, yaml.replace(RELATIVE_PLUGIN_PATH, `path: ${REPO_ROOT}/bin`));
  return program;
}

describe("a Pulumi YAML program on the native plugin through the engine (real engine, real emulator)", () => {
  let e2e: EngineStack;
  let tmp: string;
  let program: string;

  beforeAll(async () => {
    if (!findYaml())
      throw new Error(`no Pulumi YAML host in ${yamlCacheBinDir()}: run \`node scripts/ensure-pulumi.js\``);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "yaml-deploy-"));
    program = copyProject(EXAMPLE, tmp);
    e2e = await startEngineStack({ workDir: program, stackName: "yaml", backendName: "e2e-yaml" });
    await e2e.stack.setConfig("datadogApiKey", { value: DD_KEY, secret: true });
  }, STEP_TIMEOUT);

  afterAll(async () => {
    await e2e?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("the YAML block of docs/resources.md is the program part of examples/yaml/quickstart/Pulumi.yaml", () => {
    const blocks = docBlocks(path.join(REPO_ROOT, "docs", "resources.md"), "docs/resources.md").filter(
      (b) => b.lang === "yaml",
    );
    expect(blocks).toHaveLength(1);
    const file = fs.readFileSync(path.join(EXAMPLE, "Pulumi.yaml"), "utf8");
    expect(blocks[0].body + "\n").toBe(programPart(file));
  });

  it(
    "Pulumi YAML's converter turns it into the program of docs/examples/quickstart.pp",
    async () => {
      const out = path.join(tmp, "pcl");
      const pulumi = path.join(requirePulumi().dirs[0], "pulumi");
      await exec(pulumi, ["convert", "--from", "yaml", "--language", "pcl", "--out", out], {
        cwd: program,
        env: e2e.env,
      });
      const converted = fs
        .readdirSync(out)
        .filter((f) => f.endsWith(".pp"))
        .map((f) => fs.readFileSync(path.join(out, f), "utf8"))
        .join("\n");
      const source = fs.readFileSync(path.join(REPO_ROOT, "docs", "examples", "quickstart.pp"), "utf8");
      expect(normalizePcl(converted)).toBe(normalizePcl(source));
    },
    STEP_TIMEOUT,
  );

  itDeploysTheQuickstart(() => e2e, DD_KEY, STEP_TIMEOUT);
});

describe("a Pulumi YAML program with two explicit providers (real engine, real emulator)", () => {
  const KEYS = { prod: "sk_prod_yaml_e2e_3f8a1c", dev: "sk_dev_yaml_e2e_9b2d7e" };
  const DEFAULT_KEY = "sk_default_yaml_e2e_6e4c02";
  let e2e: EngineStack;
  let tmp: string;
  let clients: Record<keyof typeof KEYS, ServiceClient>;

  /** Every subscription and destination ID the account of `client` holds, sorted. */
  async function contents(client: ServiceClient): Promise<string[]> {
    const ids: string[] = [];
    for await (const s of client.eventSubscriptions.list()) ids.push(s.id);
    for await (const d of client.eventDestinations.list()) ids.push(d.id);
    return ids.sort();
  }

  beforeAll(async () => {
    if (!findYaml())
      throw new Error(`no Pulumi YAML host in ${yamlCacheBinDir()}: run \`node scripts/ensure-pulumi.js\``);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "yaml-multi-"));
    const program = copyProject(path.join(REPO_ROOT, "examples", "yaml", "multi-account"), tmp);
    // The stack's default provider (service:apiKey) gets the first key: its account must stay empty.
    e2e = await startEngineStack({
      workDir: program,
      stackName: "yaml-multi",
      backendName: "e2e-yaml-multi",
      apiKeys: [DEFAULT_KEY, KEYS.prod, KEYS.dev],
    });
    const client = (apiKey: string) =>
      new ServiceClient({ apiKey, baseUrl: e2e.emulator.url, maxRetries: 0 });
    clients = { prod: client(KEYS.prod), dev: client(KEYS.dev) };
    await e2e.stack.setAllConfig({
      baseUrl: { value: e2e.emulator.url },
      prodApiKey: { value: KEYS.prod, secret: true },
      devApiKey: { value: KEYS.dev, secret: true },
      ddApiKey: { value: DD_KEY, secret: true },
    });
  }, STEP_TIMEOUT);

  afterAll(async () => {
    await Promise.all(Object.values(clients ?? {}).map((c) => c.close()));
    await e2e?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it(
    "up puts each destination and subscription in its provider's account and in no other",
    async () => {
      const up = await e2e.stack.up();
      expect(up.summary.resourceChanges?.create).toBe(7); // 2 providers, 4 resources, the stack
      const o = await e2e.outputs<Record<string, string>>();
      for (const account of ["prod", "dev"] as const) {
        const ids = [o[`${account}DestinationId`], o[`${account}SubscriptionId`]].sort();
        expect(await contents(clients[account])).toEqual(ids);
        const subscription = await clients[account].eventSubscriptions.get(o[`${account}SubscriptionId`]);
        expect(subscription.description).toBe(`${account} policy changes`);
        expect(subscription.destinations.map((d) => d.id)).toEqual([o[`${account}DestinationId`]]);
      }
      expect(await contents(e2e.client)).toEqual([]);
      expect((await e2e.resource("prod"))?.type).toBe("pulumi:providers:service");
    },
    STEP_TIMEOUT,
  );

  it(
    "a preview after up shows no changes",
    async () => {
      const preview = await e2e.stack.preview({ expectNoChanges: true });
      expect(preview.changeSummary).toEqual({ same: 7 });
    },
    STEP_TIMEOUT,
  );

  it(
    "the state holds no API key in plain form",
    async () => {
      const exported = (await e2e.cli("stack", "export")).stdout;
      for (const key of [...Object.values(KEYS), DEFAULT_KEY, DD_KEY]) expect(exported).not.toContain(key);
    },
    STEP_TIMEOUT,
  );

  it(
    "destroy empties both accounts",
    async () => {
      const destroy = await e2e.stack.destroy();
      expect(destroy.summary.resourceChanges?.delete).toBe(7);
      for (const c of Object.values(clients)) expect(await contents(c)).toEqual([]);
    },
    STEP_TIMEOUT,
  );
});

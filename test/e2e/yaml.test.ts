/**
 * Pulumi YAML programs through the real Pulumi engine against the real emulator, run as a YAML
 * user runs them: each example folder copied as it is to a fresh folder outside the repository,
 * a fresh Pulumi home, no Node.js (nor npm, nor anything of the repository) on the PATH the
 * engine and the program see, and the plugin `pulumi-resource-service` downloaded by the engine
 * from the release the program names with the resource options `version` and
 * `pluginDownloadURL`: a local release of the plugin's self-contained linux-amd64 executable
 * (test/helpers/fetched-plugin.ts, packed by scripts/release-archives.js, served as a GitHub
 * release serves its assets), to which `PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES` maps the download
 * URL, as a mirror's user does. The programs are run by Pulumi YAML's language host
 * (github.com/pulumi/pulumi-yaml, built from tools/pulumi-yaml by scripts/ensure-pulumi.js).
 *
 * examples/yaml/quickstart (the quickstart of docs/resources.md in YAML): the YAML block of
 * docs/resources.md is the program part of the project's Pulumi.yaml, Pulumi YAML's converter
 * turns the project into the program of docs/examples/quickstart.pp (with the plugin's options
 * on each resource), and it deploys: up (checked on the emulator), a preview with no changes,
 * refresh of a change made on the emulator, no secret in plain form in the state, destroy
 * leaving the account empty. examples/yaml/multi-account: two explicit providers
 * (`pulumi:providers:service`), each resource in its provider's account only, and the converter
 * turns it into docs/examples/multi-account.pp (the source of the Python and Go versions). Each
 * stack is made by its README's stack commands, run as printed (the service's address the
 * emulator's: test/helpers/quickstart-deploy.ts runReadmeStackCommands). Both examples, and
 * the YAML the docs show, name the package's version (package.json's) and the schema's download
 * URL. (The command of docs/installation-configuration.md that installs that release ahead of
 * time is run as printed by test/e2e/install.test.ts, with the docs' other install commands.)
 */
import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { promisify } from "util";
import { parse as parseYaml } from "yaml";
import { findOnPath, findYaml, REPO_ROOT, yamlCacheBinDir } from "../../scripts/pulumi-env";
import { ServiceClient } from "../../client";
import { docBlocks } from "../helpers/doc-blocks";
import { startEmulator, type RunningEmulator } from "../helpers/emulator";
import type { EngineStack } from "../helpers/engine-stack";
import {
  PLUGIN_DOWNLOAD_URL,
  pathWithoutNode,
  pathWithoutPlugin,
  release,
  startCachedPluginRelease,
  type PluginRelease,
} from "../helpers/fetched-plugin";
import { requirePulumi } from "../helpers/pulumi";
import {
  installedPlugins,
  itDeploysTheQuickstart,
  readmeCommands,
  runReadmeStackCommands,
} from "../helpers/quickstart-deploy";

const exec = promisify(execFile);

/** Per step, in **milliseconds**: the first run of the YAML host loads the plugin's schema. */
const STEP_TIMEOUT = 300_000;
/** The local release's set-up, in **milliseconds**: minutes when the executable must be built. */
const RELEASE_TIMEOUT = 900_000;
/** The Datadog key the READMEs' stack commands set. */
const DD_KEY = "dd-example-api-key";
const EXAMPLES = path.join(REPO_ROOT, "examples", "yaml");
const EXAMPLE = path.join(EXAMPLES, "quickstart");
/** The package's version (package.json's), the plugin release the examples must name. */
const VERSION = release.packageVersion();

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

/**
 * A PCL program without the `options` blocks that name only the plugin (`version` and
 * `pluginDownloadURL`, which Pulumi YAML's converter writes for each resource), and those
 * options, in order.
 */
function withoutPluginOptions(pcl: string): {
  pcl: string;
  options: { version: string; pluginDownloadURL: string }[];
} {
  const options: { version: string; pluginDownloadURL: string }[] = [];
  const rest = pcl.replace(
    /\n\s*options\s*\{\s*version\s*=\s*"([^"]*)"\s*pluginDownloadURL\s*=\s*"([^"]*)"\s*\}/g,
    (_m, version: string, pluginDownloadURL: string) => {
      options.push({ version, pluginDownloadURL });
      return "";
    },
  );
  return { pcl: rest, options };
}

/**
 * A PCL program without the `options` blocks that name only a resource's provider
 * (`options { provider = prod }`), and each such resource's provider, by resource name.
 */
function withoutProviderOptions(pcl: string): { pcl: string; providers: Record<string, string> } {
  const providers: Record<string, string> = {};
  const rest = pcl
    .split(/^(?=resource )/m)
    .map((chunk) =>
      chunk.replace(/\n\s*options\s*\{\s*provider\s*=\s*(\w+)\s*\}/, (_m, provider: string) => {
        providers[/^resource (\w+)/.exec(chunk)![1]] = provider;
        return "";
      }),
    )
    .join("");
  return { pcl: rest, providers };
}

/**
 * The plugin options (`version`, `pluginDownloadURL`) of each resource of the Pulumi YAML program
 * `programYaml` that takes the package `service` from a provider it does not name: a
 * `pulumi:providers:service`, or a `service:` resource without `options.provider` (the stack's
 * default provider). By resource name.
 */
function pluginOptions(
  programYaml: string,
): Record<string, { version?: unknown; pluginDownloadURL?: unknown }> {
  const program = parseYaml(programYaml) as {
    resources?: Record<string, { type: string; options?: Record<string, unknown> }>;
  };
  const out: Record<string, { version?: unknown; pluginDownloadURL?: unknown }> = {};
  for (const [name, r] of Object.entries(program.resources ?? {})) {
    const ownProvider = r.type === "pulumi:providers:service";
    if (ownProvider || (r.type.startsWith("service:") && r.options?.provider === undefined))
      out[name] = { version: r.options?.version, pluginDownloadURL: r.options?.pluginDownloadURL };
  }
  return out;
}

/**
 * Copies the project folder `dir` as it is (without stack settings, `Pulumi.<stack>.yaml`, which
 * a run in place may have left) into a new folder below `tmp`, and returns that folder.
 */
function copyProject(dir: string, tmp: string): string {
  const program = path.join(tmp, path.basename(dir));
  fs.cpSync(dir, program, {
    recursive: true,
    filter: (src) => !/^Pulumi\..+\.yaml$/.test(path.basename(src)),
  });
  return program;
}

/**
 * The PATH of a YAML user's machine: the Pulumi CLI and Pulumi YAML's host, no Node.js, npm or
 * plugin, nothing of the repository. Checked here, so that a machine where the CLI shares a
 * folder with `node` fails the test rather than hiding Node.js from nothing.
 */
function yamlUserPath(): string {
  const userPath = pathWithoutPlugin(
    pathWithoutNode([...requirePulumi().dirs, process.env.PATH ?? ""].join(path.delimiter)),
  );
  for (const absent of ["node", "npm", "npx", "pulumi-resource-service"])
    expect([absent, findOnPath(absent, userPath)]).toEqual([absent, null]);
  for (const present of ["pulumi", "pulumi-language-yaml", "pulumi-converter-yaml"])
    expect([present, findOnPath(present, userPath)]).toEqual([present, expect.any(String)]);
  return userPath;
}

/**
 * The variables of a YAML user's environment: PATH {@link yamlUserPath}, the fresh Pulumi home
 * `home` (no plugin installed) and the download URL the programs name mapped to the local release
 * `plugin`.
 */
function yamlUserEnv(plugin: PluginRelease, home: string): Record<string, string> {
  return {
    PATH: yamlUserPath(),
    PULUMI_HOME: home,
    PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `^${PLUGIN_DOWNLOAD_URL}=${plugin.server.url}`,
  };
}

/**
 * Runs the stack commands of the README of the copied YAML example in `program` (it has no
 * install step: a YAML reader installs nothing), as its reader types them, against `emulator`
 * with `apiKey`, the plugin downloaded by the engine into `home`; `vars` are the README's
 * variables. @returns the deployed stack.
 */
async function runYamlReadme(
  program: string,
  home: string,
  emulator: RunningEmulator,
  backendName: string,
  apiKey: string,
  vars: Record<string, string>,
): Promise<EngineStack> {
  const readme = readmeCommands(path.join(program, "README.md"));
  expect(readme.install).toBeUndefined();
  return runReadmeStackCommands({
    program,
    commands: readme.stack,
    stackName: readme.stackName,
    backendName,
    emulator,
    apiKey,
    env: yamlUserEnv(plugin, home),
    vars,
  });
}

/**
 * Runs Pulumi YAML's converter (`pulumi convert --from yaml --language pcl`, the CLI this suite
 * built) on the project in `program` with `env`, into the new folder `out`.
 * @returns the PCL it wrote, its `.pp` files joined by newlines.
 * @throws the CLI's error when the conversion fails.
 */
async function convertToPcl(program: string, out: string, env: NodeJS.ProcessEnv): Promise<string> {
  const pulumi = path.join(requirePulumi().dirs[0], "pulumi");
  await exec(pulumi, ["convert", "--from", "yaml", "--language", "pcl", "--out", out], { cwd: program, env });
  return fs
    .readdirSync(out)
    .filter((f) => f.endsWith(".pp"))
    .map((f) => fs.readFileSync(path.join(out, f), "utf8"))
    .join("\n");
}

/** The local release of the plugin both examples download, shared by the file's tests. */
let plugin: PluginRelease;

beforeAll(async () => {
  if (!findYaml())
    throw new Error(`no Pulumi YAML host in ${yamlCacheBinDir()}: run \`node scripts/ensure-pulumi.js\``);
  plugin = await startCachedPluginRelease();
}, RELEASE_TIMEOUT);

afterAll(async () => {
  await plugin?.server.close();
});

describe("what the YAML examples and docs name: the package's release of the plugin", () => {
  const programs = {
    "examples/yaml/quickstart/Pulumi.yaml": fs.readFileSync(path.join(EXAMPLE, "Pulumi.yaml"), "utf8"),
    "examples/yaml/multi-account/Pulumi.yaml": fs.readFileSync(
      path.join(EXAMPLES, "multi-account", "Pulumi.yaml"),
      "utf8",
    ),
  };

  it("each example names no plugin path, and each of its providers names the package's version and the schema's download URL", () => {
    for (const [file, yaml] of Object.entries(programs)) {
      expect([file, (parseYaml(yaml) as Record<string, unknown>).plugins]).toEqual([file, undefined]);
      const options = pluginOptions(yaml);
      expect(Object.keys(options).length).toBeGreaterThan(0);
      for (const [name, o] of Object.entries(options))
        expect([file, name, o]).toEqual([
          file,
          name,
          { version: VERSION, pluginDownloadURL: PLUGIN_DOWNLOAD_URL },
        ]);
    }
    // The explicit providers carry them; the resources they manage take their plugin.
    expect(Object.keys(pluginOptions(programs["examples/yaml/multi-account/Pulumi.yaml"]))).toEqual([
      "prod",
      "dev",
    ]);
  });

  it("every YAML block of the docs that names the plugin names the package's version and the schema's download URL", () => {
    const blocks = ["docs/resources.md", "docs/installation-configuration.md"].flatMap((doc) =>
      docBlocks(path.join(REPO_ROOT, doc), doc).filter(
        (b) => b.lang === "yaml" && /^resources:/m.test(b.body),
      ),
    );
    expect(blocks.map((b) => b.doc).sort()).toEqual([
      "docs/installation-configuration.md",
      "docs/resources.md",
    ]);
    for (const b of blocks)
      for (const [name, o] of Object.entries(pluginOptions(b.body)))
        expect([`${b.doc}:${b.line}`, name, o]).toEqual([
          `${b.doc}:${b.line}`,
          name,
          { version: VERSION, pluginDownloadURL: PLUGIN_DOWNLOAD_URL },
        ]);
  });
});

describe("the YAML quickstart from a fresh folder, the plugin downloaded by the engine (real engine, real emulator)", () => {
  const KEY = "sk_yaml_quickstart_e2e_7a1c3f";
  let e2e: EngineStack;
  let emulator: RunningEmulator;
  let tmp: string;
  let home: string;
  let program: string;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "yaml-deploy-"));
    program = copyProject(EXAMPLE, tmp);
    home = path.join(tmp, "pulumi-home");
    emulator = await startEmulator({ apiKeys: [KEY] });
    e2e = await runYamlReadme(program, home, emulator, "e2e-yaml", KEY, { SERVICE_API_KEY: KEY });
  }, STEP_TIMEOUT);

  afterAll(async () => {
    await e2e?.close();
    await emulator?.close();
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
    "Pulumi YAML's converter downloads the plugin and turns the project into the program of docs/examples/quickstart.pp",
    async () => {
      expect(installedPlugins(home)).toEqual([]);
      const before = plugin.server.requests.length;
      const converted = await convertToPcl(program, path.join(tmp, "pcl"), e2e.env);
      // The fresh home got the release the program names, from the (mapped) download URL.
      expect(plugin.server.requests.slice(before)).toEqual([`/${plugin.archive}`]);
      expect(installedPlugins(home)).toEqual([`resource-service-v${VERSION}`]);
      const { pcl, options } = withoutPluginOptions(converted);
      expect(options).toEqual(Array(3).fill({ version: VERSION, pluginDownloadURL: PLUGIN_DOWNLOAD_URL }));
      const source = fs.readFileSync(path.join(REPO_ROOT, "docs", "examples", "quickstart.pp"), "utf8");
      expect(normalizePcl(pcl)).toBe(normalizePcl(source));
    },
    STEP_TIMEOUT,
  );

  itDeploysTheQuickstart(() => e2e, DD_KEY, STEP_TIMEOUT);
});

describe("the YAML program with two explicit providers from a fresh folder, the plugin downloaded by the engine (real engine, real emulator)", () => {
  const KEYS = { prod: "sk_prod_yaml_e2e_3f8a1c", dev: "sk_dev_yaml_e2e_9b2d7e" };
  const DEFAULT_KEY = "sk_default_yaml_e2e_6e4c02";
  let e2e: EngineStack;
  let emulator: RunningEmulator;
  let tmp: string;
  let home: string;
  let program: string;
  let clients: Record<keyof typeof KEYS, ServiceClient>;

  /** Every subscription and destination ID the account of `client` holds, sorted. */
  async function contents(client: ServiceClient): Promise<string[]> {
    const ids: string[] = [];
    for await (const s of client.eventSubscriptions.list()) ids.push(s.id);
    for await (const d of client.eventDestinations.list()) ids.push(d.id);
    return ids.sort();
  }

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "yaml-multi-"));
    program = copyProject(path.join(EXAMPLES, "multi-account"), tmp);
    home = path.join(tmp, "pulumi-home");
    emulator = await startEmulator({ apiKeys: [DEFAULT_KEY, KEYS.prod, KEYS.dev] });
    e2e = await runYamlReadme(program, home, emulator, "e2e-yaml-multi", DEFAULT_KEY, {
      PROD_API_KEY: KEYS.prod,
      DEV_API_KEY: KEYS.dev,
    });
    const client = (apiKey: string) => new ServiceClient({ apiKey, baseUrl: emulator.url, maxRetries: 0 });
    clients = { prod: client(KEYS.prod), dev: client(KEYS.dev) };
    // Beyond the README: the stack's default provider gets a third account, which must stay empty.
    await e2e.stack.setAllConfig({
      "service:baseUrl": { value: emulator.url },
      "service:apiKey": { value: DEFAULT_KEY, secret: true },
    });
  }, STEP_TIMEOUT);

  afterAll(async () => {
    await Promise.all(Object.values(clients ?? {}).map((c) => c.close()));
    await e2e?.close();
    await emulator?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it(
    "up puts each destination and subscription in its provider's account and in no other",
    async () => {
      expect(installedPlugins(home)).toEqual([]);
      const before = plugin.server.requests.length;
      const up = await e2e.stack.up();
      expect(up.summary.resourceChanges?.create).toBe(7); // 2 providers, 4 resources, the stack
      expect(plugin.server.requests.slice(before)).toEqual([`/${plugin.archive}`]);
      expect(installedPlugins(home)).toEqual([`resource-service-v${VERSION}`]);
      const o = await e2e.outputs<Record<string, string>>();
      for (const account of ["prod", "dev"] as const) {
        const ids = [o[`${account}DestinationId`], o[`${account}SubscriptionId`]].sort();
        expect(await contents(clients[account])).toEqual(ids);
        const subscription = await clients[account].eventSubscriptions.get(o[`${account}SubscriptionId`]);
        expect(subscription.description).toBe(`${account} policy changes`);
        expect(subscription.destinations.map((d) => d.id)).toEqual([o[`${account}DestinationId`]]);
      }
      expect(await contents(e2e.client)).toEqual([]);
      for (const account of ["prod", "dev"]) {
        const provider = await e2e.resource(account);
        expect(provider?.type).toBe("pulumi:providers:service");
        expect(provider?.outputs?.version).toBe(VERSION);
      }
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

  it(
    "Pulumi YAML's converter turns the project into the program of docs/examples/multi-account.pp, the source of the Python and Go examples",
    async () => {
      const converted = await convertToPcl(program, path.join(tmp, "pcl"), e2e.env);
      // Pulumi YAML 1.25's converter writes each resource's plugin options (its provider's) and
      // drops its `provider` option: compared apart, from the project's YAML.
      const { pcl, options } = withoutPluginOptions(converted);
      expect(options).toEqual(Array(6).fill({ version: VERSION, pluginDownloadURL: PLUGIN_DOWNLOAD_URL }));
      const source = withoutProviderOptions(
        fs.readFileSync(path.join(REPO_ROOT, "docs", "examples", "multi-account.pp"), "utf8"),
      );
      expect(withoutProviderOptions(pcl).providers).toEqual({});
      expect(normalizePcl(pcl)).toBe(normalizePcl(source.pcl));
      const yaml = parseYaml(fs.readFileSync(path.join(program, "Pulumi.yaml"), "utf8")) as {
        resources: Record<string, { options?: { provider?: string } }>;
      };
      const yamlProviders = Object.fromEntries(
        Object.entries(yaml.resources)
          .filter(([, r]) => r.options?.provider !== undefined)
          .map(([name, r]) => [name, /^\$\{(\w+)\}$/.exec(r.options!.provider!)?.[1]]),
      );
      expect(yamlProviders).toEqual(source.providers);
      expect(Object.keys(source.providers).sort()).toEqual([
        "devAudit",
        "devPolicies",
        "prodAudit",
        "prodPolicies",
      ]);
    },
    STEP_TIMEOUT,
  );
});

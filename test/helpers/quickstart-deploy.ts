/**
 * The engine test of an example project deployed from another language than YAML:
 * examples/<lang>/quickstart (its program generated from docs/examples/quickstart.pp, like the
 * example of docs/resources.md in that language), copied as git holds it to a folder under the
 * system's temporary directory, its stack made by the README's stack commands as printed (the
 * only change: the service's address, `https://api.example.com`, is the emulator's), its packages
 * installed by the install command of its README from this checkout's builds instead of the
 * public registry (the only change: environment variables or the local packages named to that
 * command, never an edit of the copy), run by this repository's language host for that language
 * and deployed through the native plugin `pulumi-resource-service` with the real Pulumi engine
 * against the real emulator over HTTP: up (checked on the emulator), a preview with no changes,
 * refresh of a change made on the emulator, no secret in plain form in the state, destroy leaving
 * the account empty.
 *
 * A Python or Go reader has no Node.js: their commands and the engine run with no `node`, `npm`
 * or `npx` on `PATH` ({@link pathWithoutNodeShadowed}), a fresh Pulumi home, and the plugin the
 * SDK names downloaded by the engine from a local release of its self-contained executable
 * (test/helpers/fetched-plugin.ts). Their examples/<lang>/multi-account (two explicit providers,
 * docs/examples/multi-account.pp) is deployed in the same set-up: the same emulator (two more
 * accounts), plugin and virtual environment or module cache; up puts each resource in its
 * provider's account only, the state holds no key in plain form, destroy empties both accounts.
 *
 * Used by test/e2e/python.test.ts, test/e2e/go.test.ts and test/e2e/typescript-native.test.ts;
 * {@link itDeploysTheQuickstart} and {@link runReadmeStackCommands} by test/e2e/yaml.test.ts too.
 */
import { execFile, execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { promisify } from "util";
import { findOnPath, REPO_ROOT } from "../../scripts/pulumi-env";
import { NotFoundError, ServiceClient } from "../../client";
import { docBlocks } from "./doc-blocks";
import { startEmulator, type RunningEmulator } from "./emulator";
import { engineStackOf, refreshOutOfBandEdit, type EngineStack } from "./engine-stack";
import {
  PLUGIN_DOWNLOAD_URL,
  pathWithoutPlugin,
  release,
  startCachedPluginRelease,
  type PluginRelease,
} from "./fetched-plugin";
import { engineEnv, freshBackend, localStack, readStoredState, requirePulumi } from "./pulumi";

/** Per step, in **milliseconds**: preparing a program installs packages or compiles. */
export const DEPLOY_TIMEOUT = 600_000;
/** The Datadog key the READMEs' stack commands set (`datadogApiKey`, `ddApiKey`). */
const DD_KEY = "dd-example-api-key";
/** The service's address in the READMEs' stack commands; the tests give the emulator's instead. */
export const DOCUMENTED_BASE_URL = "https://api.example.com";
/** The emulator's accounts: the quickstart's, and multi-account's two. */
const KEYS = {
  quickstart: "sk_quickstart_e2e_5e0b7d21",
  prod: "sk_prod_account_e2e_8c3f1a64",
  dev: "sk_dev_account_e2e_2d9e6b03",
};
/** The executables a machine without Node.js lacks. */
const NODE_EXECUTABLES = ["node", "npm", "npx", "corepack"];

/** How the test of one language's example project installs it from this checkout. */
export interface QuickstartExample {
  /** The language: the projects are examples/<lang>/quickstart and examples/<lang>/multi-account. */
  lang: "python" | "go" | "typescript";
  /**
   * Runs the README's install command `command` in the copied project `program`, in the reader's
   * environment `env`, against this checkout's packages, built into `tmp` (scratch space), and
   * checks that they, not a registry's, were installed. Resolves with the variables the engine
   * needs besides (a Go module cache…), `{}` when none.
   */
  install(
    program: string,
    command: string,
    tmp: string,
    env: Record<string, string>,
  ): Promise<Record<string, string>>;
  /**
   * Where the engine gets the plugin: `"download"`, the reader has no Node.js and the engine
   * downloads the release the SDK names (Python, Go); else the folder that holds the
   * `pulumi-resource-service` the engine is to run, put on `PATH` (TypeScript, whose package
   * carries the plugin).
   */
  plugin: "download" | ((program: string) => string);
  /**
   * With it, examples/<lang>/multi-account is deployed in the same set-up: installs it in
   * `program` by the README's `command` (the quickstart's), sharing what the quickstart's install
   * made in `quickstart` (a virtual environment, a module cache), in the environment `env` (the
   * quickstart's install variables included).
   */
  installMultiAccount?(
    program: string,
    quickstart: string,
    command: string,
    env: Record<string, string>,
  ): Promise<void>;
}

/** The files of examples/<lang>/<name> that git holds (or would: not ignored), copied to `to`. */
function copyExample(lang: string, name: string, to: string): void {
  const rel = path.join("examples", lang, name);
  const files = execFileSync(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", rel],
    {
      cwd: REPO_ROOT,
      encoding: "utf8",
    },
  )
    .split("\0")
    .filter((f) => f !== "" && fs.existsSync(path.join(REPO_ROOT, f)));
  expect(files.map((f) => path.basename(f))).toContain("Pulumi.yaml");
  for (const f of files) {
    const dest = path.join(to, path.relative(rel, f));
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.copyFileSync(path.join(REPO_ROOT, f), dest);
  }
}

/** The lines of a shell block without comments and blank lines. */
function commandLines(body: string): string[] {
  return body
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter(Boolean);
}

/**
 * The two shell blocks of an example's README: the stack's commands (`pulumi stack init <name>`,
 * then `pulumi config set …` lines), and the deploy commands: an install command, if the project
 * has one to run (a YAML project has none), then `pulumi up --yes`.
 * @returns the stack's commands (comments dropped), the stack's name and the install command.
 */
export function readmeCommands(readme: string): { stack: string[]; stackName: string; install?: string } {
  const blocks = docBlocks(readme, readme).filter((b) => b.lang === "sh");
  expect(blocks).toHaveLength(2);
  const stack = commandLines(blocks[0].body);
  const stackName = /^pulumi stack init (\S+)$/.exec(stack[0])?.[1];
  expect([stack[0], stackName]).toEqual([stack[0], expect.any(String)]);
  for (const line of stack.slice(1)) expect(line).toMatch(/^pulumi config set /);
  const deploy = commandLines(blocks[1].body);
  expect(deploy.length).toBeLessThanOrEqual(2);
  expect(deploy[deploy.length - 1]).toBe("pulumi up --yes");
  return { stack, stackName: stackName!, ...(deploy.length === 2 ? { install: deploy[0] } : {}) };
}

/**
 * The install command of an example's README ({@link readmeCommands}).
 * @throws when the README has none.
 */
export function readmeInstallCommand(readme: string): string {
  const { install } = readmeCommands(readme);
  if (install === undefined) throw new Error(`${readme}: no install command before \`pulumi up --yes\``);
  return install;
}

/** Runs `command` with bash in `cwd`; rejects with its whole output when it fails. */
export async function runCommand(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  try {
    // bash by its path: a PATH without Node.js may hold no bash of its own folder.
    const r = await promisify(execFile)("/bin/bash", ["-e", "-o", "pipefail", "-c", command], {
      cwd,
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
    return r.stdout + r.stderr;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`\`${command}\` failed: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
  }
}

/**
 * `pathValue` as on a machine without Node.js whose other tools are where this one has them:
 * each folder that holds a `node` is replaced by a folder of `dir` (made here) of links to
 * everything it holds but {@link NODE_EXECUTABLES} (/usr/bin holds node, bash and python3 alike
 * on many machines, so dropping it would drop the reader's shell and Python too), and folders
 * holding a `pulumi-resource-service` or inside the repository are left out (pathWithoutPlugin).
 * Checked: no Node.js executable is found on the result.
 */
export function pathWithoutNodeShadowed(pathValue: string, dir: string): string {
  const out = pathWithoutPlugin(pathValue)
    .split(path.delimiter)
    .map((d, i) => {
      if (!fs.existsSync(path.join(d, "node"))) return d;
      const shadow = path.join(dir, `path-${i}`);
      fs.mkdirSync(shadow, { recursive: true });
      for (const f of fs.readdirSync(d))
        if (!NODE_EXECUTABLES.includes(f)) fs.symlinkSync(path.join(d, f), path.join(shadow, f));
      return shadow;
    })
    .join(path.delimiter);
  for (const absent of NODE_EXECUTABLES) expect([absent, findOnPath(absent, out)]).toEqual([absent, null]);
  return out;
}

/**
 * Runs the README's stack commands `commands` (readmeCommands) in `program` as printed, in the
 * engine's environment of a fresh backend folder `backendName` with `env` over it and `vars` (the
 * keys the commands read), the documented address replaced by `baseUrl`; then opens that stack
 * with the Automation API, as {@link EngineStack} of `emulator`'s account `apiKey`. Its `close`
 * closes the client; the emulator is the caller's.
 */
export async function runReadmeStackCommands(opts: {
  program: string;
  commands: string[];
  stackName: string;
  backendName: string;
  emulator: RunningEmulator;
  apiKey: string;
  env: Record<string, string>;
  vars: Record<string, string>;
}): Promise<EngineStack> {
  const backend = freshBackend(opts.backendName);
  const client = new ServiceClient({ apiKey: opts.apiKey, baseUrl: opts.emulator.url, maxRetries: 0 });
  try {
    const script = opts.commands.join("\n").split(DOCUMENTED_BASE_URL).join(opts.emulator.url);
    await runCommand(script, opts.program, { ...engineEnv(backend, opts.env), ...opts.vars });
    // The stack the commands made, selected.
    const { stack, env } = await localStack(opts.program, opts.stackName, backend, opts.env);
    return engineStackOf({
      emulator: opts.emulator,
      client,
      apiKey: opts.apiKey,
      backend,
      stack,
      env,
      program: opts.program,
      stackName: opts.stackName,
      close: () => client.close(),
    });
  } catch (e) {
    await client.close();
    throw e;
  }
}

/** This process's environment without unset variables. */
function processEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return env;
}

/** The plugin releases installed in the Pulumi home `home` (`resource-service-v<version>`). */
export function installedPlugins(home: string): string[] {
  const dir = path.join(home, "plugins");
  return fs.existsSync(dir)
    ? fs.readdirSync(dir).filter((f) => /^resource-service-v[^.]+\.\d+\.\d+$/.test(f))
    : [];
}

/** Every subscription and destination ID the account of `client` holds, sorted. */
async function contents(client: ServiceClient): Promise<string[]> {
  const ids: string[] = [];
  for await (const s of client.eventSubscriptions.list()) ids.push(s.id);
  for await (const d of client.eventDestinations.list()) ids.push(d.id);
  return ids.sort();
}

/** Declares the describe block of the deployment test of the example projects of `p`. */
export function describeQuickstartDeployment(title: string, p: QuickstartExample): void {
  describe(title, () => {
    let e2e: EngineStack;
    let emulator: RunningEmulator;
    let plugin: PluginRelease | undefined;
    let tmp: string;
    let quickstart: string;
    let installCommand: string;
    /**
     * What the reader's environment changes of this process's: PATH, and without Node.js a fresh
     * Pulumi home and the plugin's download URL mapped to the local release.
     */
    let userEnv: Record<string, string>;
    /** What the install command added for the engine (a Go module cache…). */
    let installEnv: Record<string, string>;

    beforeAll(async () => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), `${p.lang}-quickstart-`));
      quickstart = path.join(tmp, "quickstart");
      copyExample(p.lang, "quickstart", quickstart);
      const readme = readmeCommands(path.join(quickstart, "README.md"));
      installCommand = readmeInstallCommand(path.join(quickstart, "README.md"));
      const pulumiPath = [...requirePulumi().dirs, process.env.PATH ?? ""].join(path.delimiter);
      if (p.plugin === "download") {
        plugin = await startCachedPluginRelease();
        userEnv = {
          PATH: pathWithoutNodeShadowed(pulumiPath, path.join(tmp, "bin")),
          PULUMI_HOME: path.join(tmp, "pulumi-home"),
          PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `^${PLUGIN_DOWNLOAD_URL}=${plugin.server.url}`,
        };
      } else {
        userEnv = { PATH: [p.plugin(quickstart), pulumiPath].join(path.delimiter) };
      }
      emulator = await startEmulator({ apiKeys: Object.values(KEYS) });
      installEnv = await p.install(quickstart, installCommand, tmp, { ...processEnv(), ...userEnv });
      e2e = await runReadmeStackCommands({
        program: quickstart,
        commands: readme.stack,
        stackName: readme.stackName,
        backendName: `e2e-${p.lang}`,
        emulator,
        apiKey: KEYS.quickstart,
        env: { ...userEnv, ...installEnv },
        vars: { SERVICE_API_KEY: KEYS.quickstart },
      });
    }, DEPLOY_TIMEOUT);

    afterAll(async () => {
      await e2e?.close();
      await emulator?.close();
      await plugin?.server.close();
      // A Go module cache's files are read-only.
      if (tmp) {
        await promisify(execFile)("chmod", ["-R", "u+w", tmp]).catch(() => undefined);
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    });

    it("the README's stack commands point the stack at the service: its address and the key, a secret", async () => {
      const config = await e2e.stack.getAllConfig();
      expect(config["service:baseUrl"]).toEqual({ value: emulator.url, secret: false });
      expect(config["service:apiKey"]).toEqual({ value: KEYS.quickstart, secret: true });
      expect(config[`${path.basename(quickstart)}-${p.lang}:datadogApiKey`]?.secret).toBe(true);
    });

    itDeploysTheQuickstart(() => e2e, DD_KEY);

    if (p.plugin === "download")
      it("the engine downloaded the plugin the SDK names into the fresh Pulumi home, once, with no Node.js on PATH", () => {
        expect(plugin!.server.requests).toEqual([`/${plugin!.archive}`]);
        expect(installedPlugins(userEnv.PULUMI_HOME)).toEqual([
          `resource-service-v${release.packageVersion()}`,
        ]);
        expect(findOnPath("node", e2e.env.PATH)).toBeNull();
      });

    if (p.installMultiAccount)
      describe(`examples/${p.lang}/multi-account: two accounts, an explicit provider each, in the same set-up`, () => {
        let multi: EngineStack;
        let clients: Record<"prod" | "dev", ServiceClient>;

        beforeAll(async () => {
          const program = path.join(tmp, "multi-account");
          copyExample(p.lang, "multi-account", program);
          const readme = readmeCommands(path.join(program, "README.md"));
          expect(readme.install).toBe(installCommand);
          await p.installMultiAccount!(program, quickstart, installCommand, {
            ...processEnv(),
            ...userEnv,
            ...installEnv,
          });
          multi = await runReadmeStackCommands({
            program,
            commands: readme.stack,
            stackName: readme.stackName,
            backendName: `e2e-${p.lang}-multi`,
            emulator,
            apiKey: KEYS.quickstart,
            env: { ...userEnv, ...installEnv },
            vars: { PROD_API_KEY: KEYS.prod, DEV_API_KEY: KEYS.dev },
          });
          const client = (apiKey: string) =>
            new ServiceClient({ apiKey, baseUrl: emulator.url, maxRetries: 0 });
          clients = { prod: client(KEYS.prod), dev: client(KEYS.dev) };
        }, DEPLOY_TIMEOUT);

        afterAll(async () => {
          await Promise.all(Object.values(clients ?? {}).map((c) => c.close()));
          await multi?.close();
        });

        it(
          "up puts each destination and subscription in its provider's account and in no other",
          async () => {
            const up = await multi.stack.up();
            expect(up.summary.resourceChanges).toEqual({ create: 7 }); // 2 providers, 4 resources, the stack
            const o = await multi.outputs<Record<string, string>>();
            for (const account of ["prod", "dev"] as const) {
              const other = clients[account === "prod" ? "dev" : "prod"];
              const [destination, subscription] = [
                o[`${account}DestinationId`],
                o[`${account}SubscriptionId`],
              ];
              expect({ account, ids: await contents(clients[account]) }).toEqual({
                account,
                ids: [destination, subscription].sort(),
              });
              const sub = await clients[account].eventSubscriptions.get(subscription);
              expect(sub.description).toBe(`${account} policy changes`);
              expect(sub.destinations.map((d) => d.id)).toEqual([destination]);
              await expect(other.eventSubscriptions.get(subscription)).rejects.toBeInstanceOf(NotFoundError);
              await expect(other.eventDestinations.get(destination)).rejects.toBeInstanceOf(NotFoundError);
            }
            // The quickstart's account (destroyed above) got nothing.
            expect(await contents(e2e.client)).toEqual([]);
            const providers = (await multi.resources()).filter((r) => r.type === "pulumi:providers:service");
            expect(providers.map((r) => r.urn.split("::").pop()).sort()).toEqual(["dev", "prod"]);
          },
          DEPLOY_TIMEOUT,
        );

        it(
          "the state holds no API key in plain form",
          async () => {
            const exported = (await multi.cli("stack", "export")).stdout;
            for (const text of [exported, readStoredState(multi.backend)])
              for (const key of [KEYS.prod, KEYS.dev, DD_KEY]) expect(text).not.toContain(key);
            expect(exported).toContain('"ciphertext"');
          },
          DEPLOY_TIMEOUT,
        );

        it(
          "destroy empties both accounts",
          async () => {
            const destroy = await multi.stack.destroy();
            expect(destroy.summary.resourceChanges?.delete).toBe(7);
            for (const account of ["prod", "dev"] as const)
              expect({ account, left: await contents(clients[account]) }).toEqual({ account, left: [] });
          },
          DEPLOY_TIMEOUT,
        );
      });
  });
}

/**
 * Declares the tests of a deployed quickstart (the example of docs/resources.md, in any language):
 * up creates the three resources (checked on the emulator), a preview after it has no changes,
 * refresh takes an out-of-band edit and up restores it, the state holds neither the API key nor
 * `ddKey` (the stack's secret `datadogApiKey`) in plain form, destroy empties the account.
 * @param e2e - the engine stack of the program, made by the caller's `beforeAll`.
 * @param timeoutMs - each test's timeout, in **milliseconds**.
 */
export function itDeploysTheQuickstart(
  e2e: () => EngineStack,
  ddKey: string,
  timeoutMs = DEPLOY_TIMEOUT,
): void {
  it(
    "up creates the destination, the subscription and the report on the service",
    async () => {
      const up = await e2e().stack.up();
      expect(up.summary.resourceChanges?.create).toBe(4); // 3 resources and the stack
      const o = await e2e().outputs<Record<string, string>>();
      const subscription = await e2e().client.eventSubscriptions.get(o.subscriptionId);
      expect(subscription.description).toBe("IP policy changes");
      expect(subscription.sources.map((s) => s.type).sort()).toEqual([
        "ip_policy_created.v0",
        "ip_policy_updated.v0",
      ]);
      expect(subscription.destinations).toHaveLength(1);
      const destination = await e2e().client.eventDestinations.get(subscription.destinations[0].id);
      expect(destination.description).toBe("Operational events to Datadog");
      expect(destination.target).toMatchObject({ datadog: { ddsite: "datadoghq.eu" } });
      expect(o.reportStatus).toBe("PENDING");
      // Declared through the generated SDK's tokens, created by the native plugin.
      expect((await e2e().resource("ipPolicyChanges"))?.urn).toContain("service:index:EventSubscription");
    },
    timeoutMs,
  );

  it(
    "a preview after up shows no changes",
    async () => {
      const preview = await e2e().stack.preview({ expectNoChanges: true });
      expect(preview.changeSummary).toEqual({ same: 4 });
    },
    timeoutMs,
  );

  it(
    "refresh takes a change made on the service into the state; up restores the program's value",
    async () => {
      const id = (await e2e().outputs<Record<string, string>>()).subscriptionId;
      await refreshOutOfBandEdit(e2e(), id, "ipPolicyChanges");
      const up = await e2e().stack.up();
      expect(up.summary.resourceChanges?.update).toBe(1);
      expect((await e2e().client.eventSubscriptions.get(id)).description).toBe("IP policy changes");
    },
    timeoutMs,
  );

  it(
    "the state holds no secret in plain form: the API key and the Datadog key are encrypted",
    async () => {
      const exported = (await e2e().cli("stack", "export")).stdout;
      for (const text of [exported, readStoredState(e2e().backend)]) {
        expect(text).not.toContain(e2e().apiKey);
        expect(text).not.toContain(ddKey);
      }
      expect(exported).toContain('"ciphertext"');
    },
    timeoutMs,
  );

  it(
    "destroy deletes the destination and the subscription: the account is empty",
    async () => {
      const destroy = await e2e().stack.destroy();
      expect(destroy.summary.resourceChanges?.delete).toBe(4);
      const left: unknown[] = [];
      for await (const d of e2e().client.eventDestinations.list()) left.push(d);
      for await (const s of e2e().client.eventSubscriptions.list()) left.push(s);
      expect(left).toEqual([]);
    },
    timeoutMs,
  );
}

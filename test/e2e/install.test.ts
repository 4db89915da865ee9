/**
 * Every SDK installed as a user installs it, with the command the docs print, and the docs' quick
 * start deployed from each: the install blocks of README.md, docs/installation-configuration.md
 * and docs/resources.md marked `<!-- run by: test/e2e/install.test.ts -->` (test/helpers/doc-blocks.ts
 * `blocksRunBy`) are run as printed, in one bash each, with nothing changed but where the packages
 * come from; the Python, Go and TypeScript examples of docs/resources.md (the generated blocks) are
 * then each the program of a fresh folder under the system's temporary directory, outside this
 * repository:
 *
 * - npm (`npm install pulumi-service @pulumi/pulumi`): from a real npm registry on 127.0.0.1,
 *   Verdaccio (test/helpers/verdaccio.ts, installed on demand into the project's cache by
 *   scripts/ensure-verdaccio.js), where the four packed packages are published as `npm publish`
 *   uploads them and every other package is proxied from this machine's registry; the reader's
 *   folder has an `.npmrc` naming it;
 * - pip (`pip install pulumi_service`, `venv/bin/pip install pulumi_service`): pip's own
 *   configuration, `PIP_INDEX_URL` a local PEP 503 index holding the wheel and sdist
 *   `npm run build:python-sdk` makes, `PIP_EXTRA_INDEX_URL` this machine's index for the SDK's
 *   requirements (`pulumi`, `parver`, `semver`);
 * - go (`go get github.com/pulumi-service/pulumi-service/sdk/go/service@v<version>`, no `replace`):
 *   `GOPROXY` a local Go module proxy serving sdk/go as that module's `v<version>` first,
 *   `GONOSUMDB` naming our module so that the checksum database is not asked for it, and a module
 *   cache of its own (a shared one would keep this version forever);
 * - the plugin (`pulumi plugin install resource service <version> --server github://…`): the
 *   download URL mapped to a local plugin server by `PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES`.
 *
 * Each in a fresh folder with a fresh HOME and Pulumi home; the Python, Go and plugin commands, and
 * the engine and programs of Python and Go, with no Node.js on PATH (fetched-plugin.ts
 * `pathHidingNode`). A marked block whose commands this file does not know, or that it did not
 * run, fails the last test. No `plugins.providers` entry, no plugin on PATH, nothing of the
 * repository on PATH: `pulumi up` against the emulator makes the engine download the plugin's
 * linux-amd64 archive from the local plugin server, which the test checks was asked, as it checks
 * the resources on the emulator and that `pulumi destroy` removes them. One archive build, one
 * plugin server, one index server and one registry serve them all.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { findOnPath, REPO_ROOT } from "../../scripts/pulumi-env";
import {
  ensureVerdaccio,
  folderProblem,
  UntrustedFolderError,
  verdaccioDir,
} from "../../scripts/ensure-verdaccio";
import { blocksRunBy, commandLines, commands, docBlocks, type DocBlock } from "../helpers/doc-blocks";
import { startEmulator, type RunningEmulator } from "../helpers/emulator";
import {
  fetchedPluginEnv,
  pathHidingNode,
  PLUGIN_DOWNLOAD_URL,
  runPulumi,
  startPluginRelease,
  type PluginRelease,
} from "../helpers/fetched-plugin";
import { startFileTreeServer, type FileTreeServer } from "../helpers/file-tree-server";
import { goFlags } from "../helpers/go-flags";
import { writeGoProxyModule, writePythonIndex, type GoProxyModule } from "../helpers/package-indexes";
import { PACKAGES, packAll, strangerEnv } from "../helpers/tarballs";
import { useTempDir } from "../helpers/temp-dir";
import { startVerdaccio, type LocalRegistry } from "../helpers/verdaccio";

const exec = promisify(execFile);
const TIMEOUT = 900_000;
jest.setTimeout(TIMEOUT);

const GO_MODULE = "github.com/pulumi-service/pulumi-service/sdk/go";
const DD_KEY = "dd-install-test-secret-5c1e";
/** This file, as the docs' `run by` markers name it. */
const THIS_FILE = "test/e2e/install.test.ts";
/** The blocks the docs leave to this file. */
const MARKED = blocksRunBy(REPO_ROOT, THIS_FILE);

/** What a marked block installs, by the form of its commands (each of its lines has the form). */
const KINDS = {
  npm: /^npm install /,
  pip: /^(venv\/bin\/)?pip install /,
  go: /^go get /,
  plugin: /^pulumi plugin install /,
} as const;
type Kind = keyof typeof KINDS;

/** The kind of `b`, or undefined when its lines are of none or of several. */
function kindOf(b: DocBlock): Kind | undefined {
  const lines = commandLines(b);
  return (Object.keys(KINDS) as Kind[]).find((k) => lines.length > 0 && lines.every((l) => KINDS[k].test(l)));
}

/** `<doc>:<line>` of a block. */
const at = (b: DocBlock) => `${b.doc}:${b.line}`;

/** The marked blocks run so far, `<doc>:<line>`. */
const ran = new Set<string>();

/**
 * The distinct commands of the marked blocks of `kind`, in the docs' order: each the script of its
 * first block as printed (comments included) and every block that prints the same commands.
 */
function printed(kind: Kind): { script: string; blocks: DocBlock[] }[] {
  const groups = new Map<string, { script: string; blocks: DocBlock[] }>();
  for (const b of MARKED.filter((m) => kindOf(m) === kind)) {
    const key = commandLines(b).join("\n");
    const g = groups.get(key) ?? { script: commands(b), blocks: [] };
    g.blocks.push(b);
    groups.set(key, g);
  }
  return [...groups.values()];
}

/**
 * Runs a printed block's `script` as a reader types it, in `cwd`, with `env` (bash by its path,
 * `-e -o pipefail`); marks its blocks run.
 * @returns its output. @throws Error naming the blocks, with the whole output, when it fails.
 */
async function runPrinted(
  group: { script: string; blocks: DocBlock[] },
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  try {
    const r = await exec("/bin/bash", ["-e", "-o", "pipefail", "-c", group.script], {
      cwd,
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
    group.blocks.forEach((b) => ran.add(at(b)));
    return r.stdout + r.stderr;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `the block of ${group.blocks.map(at).join(", ")} failed: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`,
    );
  }
}

/**
 * The quick start of docs/resources.md in `language` (`python`, `go`, `typescript`): the block
 * generated from docs/examples/quickstart.pp, the first after its marker comment.
 */
function quickstart(language: string): string {
  const doc = path.join(REPO_ROOT, "docs", "resources.md");
  const marker = `<!-- generated from docs/examples/quickstart.pp: ${language} `;
  const line = fs
    .readFileSync(doc, "utf8")
    .split("\n")
    .findIndex((l) => l.startsWith(marker));
  expect(line).toBeGreaterThanOrEqual(0);
  const block = docBlocks(doc, "docs/resources.md").find((b) => b.line > line + 1);
  if (!block) throw new Error(`no block after ${marker}`);
  return block.body;
}

/** Runs `file args` in `cwd` with `env`; throws with the whole output when it fails. */
async function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  try {
    const r = await exec(file, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
    return r.stdout + r.stderr;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${file} ${args.join(" ")} failed: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
  }
}

/** `go env <name>` of this machine (its usual settings, before the test changes any). */
async function goEnv(name: string): Promise<string> {
  return (await exec("go", ["env", name])).stdout.trim();
}

/**
 * `env` as on a machine without Node.js: PATH through {@link pathHidingNode} (shadow folders in
 * `shadowDir`), checked to find no `node`, `npm` or `npx` and to find `bash`, `python3`, `go` and
 * `pulumi`.
 */
function withoutNode(env: Record<string, string>, shadowDir: string): Record<string, string> {
  const PATH = pathHidingNode(env.PATH, shadowDir);
  for (const absent of ["node", "npm", "npx"])
    expect([absent, findOnPath(absent, PATH)]).toEqual([absent, null]);
  for (const present of ["bash", "python3", "go", "pulumi"])
    expect([present, findOnPath(present, PATH)]).toEqual([present, expect.any(String)]);
  return { ...env, PATH };
}

it("every install block the docs leave to this file is one it knows how to run", () => {
  expect(MARKED.length).toBeGreaterThan(0);
  expect(MARKED.filter((b) => kindOf(b) === undefined).map(at)).toEqual([]);
  // Each language of each document's install list, and the plugin's command.
  for (const kind of Object.keys(KINDS) as Kind[])
    expect([kind, printed(kind).length]).not.toEqual([kind, 0]);
});

describe("each SDK from a package index, the plugin fetched by the engine (real engine, local indexes, real emulator)", () => {
  const tmp = useTempDir("install-");
  let plugin: PluginRelease;
  let indexes: FileTreeServer;
  let registry: LocalRegistry;
  let goModule: GoProxyModule;
  let pythonFiles: string[];
  let version: string;

  beforeAll(async () => {
    expect(tmp().startsWith(REPO_ROOT)).toBe(false);
    plugin = await startPluginRelease(path.join(tmp(), "plugin"));
    version = plugin.version;
    const root = path.join(tmp(), "indexes");
    // Python: the wheel and the sdist in a PEP 503 simple index at <url>/pypi/simple/.
    const dists = path.join(tmp(), "python-dist");
    await exec(process.execPath, [path.join(REPO_ROOT, "scripts", "build-python-sdk.js"), "--out", dists]);
    pythonFiles = fs.readdirSync(dists).map((f) => path.join(dists, f));
    expect(writePythonIndex(path.join(root, "pypi"), pythonFiles)).toEqual(["pulumi-service"]);
    // Go: sdk/go as version v<version> of its module, in a module proxy tree at <url>/goproxy.
    goModule = writeGoProxyModule(path.join(root, "goproxy"), {
      modulePath: GO_MODULE,
      version,
      moduleDir: path.join(REPO_ROOT, "sdk", "go"),
    });
    indexes = await startFileTreeServer(root);
    // npm: the packed packages published to a local registry, as `npm publish` uploads them.
    const npmDir = path.join(tmp(), "npm");
    fs.mkdirSync(npmDir);
    const packed = packAll(npmDir);
    registry = await startVerdaccio(
      path.join(tmp(), "registry"),
      PACKAGES.map((p) => p.name),
    );
    for (const p of PACKAGES) await registry.publish(packed[p.name].tarball);
    for (const p of PACKAGES) expect([p.name, await registry.versions(p.name)]).toEqual([p.name, [version]]);
  });

  afterAll(async () => {
    await plugin?.server.close();
    await indexes?.close();
    await registry?.close();
  });

  it("pulumi plugin install … --server github://…, as printed, installs the release into a fresh Pulumi home without Node.js", async () => {
    const dir = path.join(tmp(), "plugin-install");
    const home = path.join(dir, "home");
    const env = withoutNode(
      fetchedPluginEnv(strangerEnv(home), {
        home: path.join(home, ".pulumi"),
        backend: path.join(dir, "backend"),
        serverUrl: plugin.server.url,
      }),
      path.join(dir, "path"),
    );
    for (const group of printed("plugin")) {
      expect(group.script).toContain(`--server ${PLUGIN_DOWNLOAD_URL}`);
      fs.rmSync(path.join(env.PULUMI_HOME, "plugins"), { recursive: true, force: true });
      const before = plugin.server.requests.length;
      await runPrinted(group, dir, env);
      expect(plugin.server.requests.slice(before)).toEqual([`/${plugin.archive}`]);
      const listed = JSON.parse(await runPulumi(["plugin", "ls", "--json"], env, dir)) as {
        name: string;
        kind: string;
        version: string;
      }[];
      expect(listed.map((p) => [p.kind, p.name, p.version])).toEqual([["resource", "service", version]]);
    }
  });

  /**
   * One language's program: a folder `<tmp>/<lang>` with `program/`, a home (HOME and
   * PULUMI_HOME), a backend and an emulator of its own.
   */
  function describeProgram(
    lang: "python" | "go" | "typescript",
    prepare: (program: string, env: Record<string, string>) => Promise<Record<string, string>>,
  ): void {
    describe(lang, () => {
      let emulator: RunningEmulator;
      let program: string;
      let env: Record<string, string>;

      beforeAll(async () => {
        emulator = await startEmulator();
        const dir = path.join(tmp(), lang);
        program = path.join(dir, "program");
        fs.mkdirSync(program, { recursive: true });
        const home = path.join(dir, "home");
        const base = strangerEnv(home, {
          // Caches of this machine, which a fresh home would lose: downloads and compiled packages.
          PIP_CACHE_DIR: path.join(os.homedir(), ".cache", "pip"),
          GOCACHE: await goEnv("GOCACHE"),
        });
        env = fetchedPluginEnv(base, {
          home: path.join(home, ".pulumi"),
          backend: path.join(dir, "backend"),
          serverUrl: plugin.server.url,
        });
        // A Python or Go user's machine has no Node.js: neither the install nor the engine sees one.
        if (lang !== "typescript") env = withoutNode(env, path.join(dir, "path"));
        env = { ...env, ...(await prepare(program, env)) };
        await runPulumi(["stack", "init", "dev"], env, program);
        await runPulumi(["config", "set", "service:baseUrl", emulator.url], env, program);
        await runPulumi(["config", "set", "--secret", "service:apiKey", emulator.apiKeys[0]], env, program);
        await runPulumi(["config", "set", "--secret", "datadogApiKey", DD_KEY], env, program);
      });

      afterAll(async () => {
        await emulator?.close();
      });

      it("pulumi up fetches the plugin from the plugin server and deploys the quick start; destroy removes it", async () => {
        expect(fs.readFileSync(path.join(program, "Pulumi.yaml"), "utf8")).not.toContain("plugins:");
        const before = plugin.server.requests.length;
        await runPulumi(["up", "--yes", "--skip-preview", "--non-interactive"], env, program);
        expect(plugin.server.requests.slice(before)).toContain(`/${plugin.archive}`);
        expect(fs.existsSync(path.join(env.PULUMI_HOME, "plugins", `resource-service-v${version}`))).toBe(
          true,
        );
        const outputs = JSON.parse(
          await runPulumi(["stack", "output", "--json", "--show-secrets"], env, program),
        ) as Record<string, string>;
        const snapshot = emulator.store.snapshot();
        expect(snapshot.event_subscriptions.map((s) => (s as { id: string }).id)).toEqual([
          outputs.subscriptionId,
        ]);
        expect(snapshot.event_destinations).toHaveLength(1);
        expect(snapshot.abuse_reports).toHaveLength(1);
        expect(outputs.reportStatus).toBe("PENDING");
        await runPulumi(["destroy", "--yes", "--skip-preview", "--non-interactive"], env, program);
        const after = emulator.store.snapshot();
        expect(after.event_subscriptions).toEqual([]);
        expect(after.event_destinations).toEqual([]);
      });
    });
  }

  describeProgram("python", async (program, env) => {
    fs.writeFileSync(
      path.join(program, "Pulumi.yaml"),
      "name: quickstart-python\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n",
    );
    fs.writeFileSync(path.join(program, "__main__.py"), quickstart("python"));
    await run("python3", ["-m", "venv", "venv"], program, env);
    const venv = path.join(program, "venv");
    // pip's own configuration: our project from the local index, the rest from this machine's
    // usual index (PyPI unless pip is told otherwise); nothing else of this machine's pip settings.
    const pipEnv: Record<string, string> = {
      ...env,
      PIP_INDEX_URL: `${indexes.url}/pypi/simple/`,
      PIP_EXTRA_INDEX_URL: process.env.PIP_INDEX_URL ?? "https://pypi.org/simple/",
    };
    for (const k of ["PIP_FIND_LINKS", "PIP_NO_INDEX"]) delete pipEnv[k];
    // The program's virtual environment, activated (what `source venv/bin/activate` sets).
    const activated = {
      ...pipEnv,
      VIRTUAL_ENV: venv,
      PATH: `${path.join(venv, "bin")}${path.delimiter}${pipEnv.PATH}`,
    };
    const wheel = path.basename(pythonFiles.find((f) => f.endsWith(".whl"))!);
    const groups = printed("pip");
    for (const [i, group] of groups.entries()) {
      // Each printed command installs the SDK: the one before it is taken out again.
      if (i > 0)
        await run(path.join(venv, "bin", "pip"), ["uninstall", "--yes", "pulumi_service"], program, pipEnv);
      const before = indexes.requests.length;
      await runPrinted(group, program, group.script.includes("venv/bin/pip") ? pipEnv : activated);
      expect(indexes.requests.slice(before)).toContain("/pypi/simple/pulumi-service/");
    }
    expect(indexes.requests).toContain(`/pypi/simple/pulumi-service/${wheel}`);
    const shown = await run(
      path.join(venv, "bin", "pip"),
      ["show", "pulumi_service", "pulumi"],
      program,
      pipEnv,
    );
    expect(shown).toMatch(
      new RegExp(`^Name: pulumi_service\\nVersion: ${version.replace(/\./g, "\\.")}$`, "m"),
    );
    console.log(
      `pip installed: ${shown
        .split("\n")
        .filter((l) => /^(Name|Version):/.test(l))
        .join(" ")}`,
    );
    return {};
  });

  describeProgram("go", async (program, env) => {
    fs.writeFileSync(path.join(program, "Pulumi.yaml"), "name: quickstart-go\nruntime: go\n");
    fs.writeFileSync(path.join(program, "main.go"), quickstart("go"));
    const machineCache = await goEnv("GOMODCACHE");
    const goSettings = {
      // Our proxy first; then this machine's module cache read as a proxy (offline, fast); then
      // its usual proxy. A 404 from one passes the request on to the next.
      GOPROXY: [
        `${indexes.url}/goproxy`,
        `file://${path.join(machineCache, "cache", "download")}`,
        await goEnv("GOPROXY"),
      ].join(","),
      // Not GOPRIVATE, which would also bypass every proxy (GONOPROXY) for our module.
      GONOSUMDB: "github.com/pulumi-service/*",
      // -trimpath (goFlags): the module cache below is fresh (a new path) at each run, and without
      // it Go's build cache keys compiled packages by that path, so every run compiled Pulumi's Go
      // SDK again (about 5 minutes on 2 busy cores).
      GOFLAGS: goFlags("-mod=mod"),
      GOMODCACHE: path.join(path.dirname(program), "gomodcache"),
    };
    const goEnvAll = { ...env, ...goSettings };
    // The reader's Go program has a module; `go mod tidy` then adds what it imports.
    await run("go", ["mod", "init", "example.com/quickstart"], program, goEnvAll);
    const before = indexes.requests.length;
    for (const group of printed("go")) {
      expect(group.script).toContain(`@v${version}`);
      await runPrinted(group, program, goEnvAll);
    }
    await run("go", ["mod", "tidy"], program, goEnvAll);
    expect(indexes.requests.slice(before)).toContain(`/goproxy${goModule.paths.zip}`);
    const goMod = fs.readFileSync(path.join(program, "go.mod"), "utf8");
    expect(goMod).toContain(`${GO_MODULE} v${version}`);
    expect(goMod).not.toContain("replace");
    return goSettings;
  });

  describeProgram("typescript", async (program, env) => {
    fs.writeFileSync(
      path.join(program, "Pulumi.yaml"),
      "name: quickstart-typescript\nruntime:\n  name: nodejs\n  options:\n    typescript: true\nmain: index.ts\n",
    );
    fs.writeFileSync(path.join(program, "index.ts"), quickstart("typescript"));
    await run("npm", ["init", "-y"], program, env);
    // The one change: the reader's folder names the local registry.
    fs.writeFileSync(path.join(program, ".npmrc"), `registry=${registry.url}\n`);
    for (const group of printed("npm")) {
      const before = registry.requests.length;
      await runPrinted(group, program, env);
      expect(registry.requests.slice(before)).toEqual(
        expect.arrayContaining(["GET /pulumi-service", "GET /@pulumi%2fpulumi"]),
      );
    }
    const installed = path.join(program, "node_modules", "pulumi-service");
    expect(fs.realpathSync(installed).startsWith(REPO_ROOT)).toBe(false);
    expect(
      (JSON.parse(fs.readFileSync(path.join(installed, "package.json"), "utf8")) as { version: string })
        .version,
    ).toBe(version);
    const pulumiVersion = (
      JSON.parse(
        fs.readFileSync(path.join(program, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8"),
      ) as {
        version: string;
      }
    ).version;
    console.log(`npm installed pulumi-service ${version} and @pulumi/pulumi ${pulumiVersion}`);
    return {};
  });

  afterAll(async () => {
    // The Go module cache's files are read-only: go removes them.
    const cache = path.join(tmp(), "go", "gomodcache");
    if (fs.existsSync(cache))
      await exec("go", ["clean", "-modcache"], { env: { ...process.env, GOMODCACHE: cache } }).catch(
        () => {},
      );
  });
});

it("every install block the docs leave to this file was run, as printed", () => {
  expect(MARKED.map(at).filter((b) => !ran.has(b))).toEqual([]);
});

describe("the on-demand Verdaccio's cache folder: used only when it is this user's alone", () => {
  const tmp = useTempDir("verdaccio-trust-");
  let saved: string | undefined;

  beforeEach(() => {
    saved = process.env.PULUMI_SERVICE_CACHE_DIR;
  });

  afterEach(() => {
    if (saved === undefined) delete process.env.PULUMI_SERVICE_CACHE_DIR;
    else process.env.PULUMI_SERVICE_CACHE_DIR = saved;
  });

  /** Points the cache at `dir` and expects ensureVerdaccio to refuse it for `problem`, leaving no lock. */
  function expectRefused(cache: string, refused: string, problem: RegExp): void {
    process.env.PULUMI_SERVICE_CACHE_DIR = cache;
    let error: unknown;
    try {
      ensureVerdaccio();
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(UntrustedFolderError);
    expect((error as UntrustedFolderError).path).toBe(refused);
    expect((error as Error).message).toMatch(problem);
    expect((error as Error).message).toContain(refused);
    expect(fs.existsSync(`${verdaccioDir()}.lock`)).toBe(false);
  }

  it("refuses a cache folder that is a symbolic link", () => {
    const real = path.join(tmp(), "real");
    fs.mkdirSync(real, { mode: 0o700 });
    const link = path.join(tmp(), "link");
    fs.symlinkSync(real, link);
    expectRefused(link, link, /is a symbolic link/);
    expect(fs.readdirSync(real)).toEqual([]);
  });

  it("refuses a cache folder others may write to", () => {
    const cache = path.join(tmp(), "open");
    fs.mkdirSync(cache);
    fs.chmodSync(cache, 0o777);
    expectRefused(cache, cache, /has mode 0777, which lets other users write in it/);
    expect(fs.readdirSync(cache)).toEqual([]);
  });

  it("refuses an install folder that others may enter, or that is a file", () => {
    const cache = path.join(tmp(), "cache");
    fs.mkdirSync(cache, { mode: 0o755 });
    process.env.PULUMI_SERVICE_CACHE_DIR = cache;
    const install = verdaccioDir();
    fs.mkdirSync(install, { mode: 0o755 });
    fs.chmodSync(install, 0o755);
    expectRefused(cache, install, /has mode 0755, which lets other users in \(it must be 0700\)/);
    fs.rmdirSync(install);
    fs.writeFileSync(install, "");
    expectRefused(cache, install, /is not a folder/);
  });

  it("refuses a folder another user owns", () => {
    const uid = process.getuid!();
    let foreign = "/"; // root's, when this user is not root
    if (uid === 0) {
      foreign = path.join(tmp(), "foreign");
      fs.mkdirSync(foreign, { mode: 0o755 });
      fs.chownSync(foreign, 65534, 65534);
    }
    expect(folderProblem(foreign, false).problem).toMatch(
      new RegExp(`^is owned by uid ${fs.statSync(foreign).uid}, not by this user \\(uid ${uid}\\)$`),
    );
    if (uid === 0) expectRefused(foreign, foreign, /is owned by uid 65534/);
  });
});

/**
 * Every SDK installed from a package index, as a user installs it, and the docs' quick start
 * deployed from each: the Python, Go and TypeScript examples of docs/resources.md (the generated
 * blocks, as test/helpers/quickstart-deploy.ts takes them), each the program of a fresh folder
 * under the system's temporary directory, outside this repository:
 *
 * - Python: a virtual environment gets `pulumi==<OLDEST_PULUMI_VERSION>` and the SDK's other
 *   requirements from the machine's usual index first, then
 *   `pip install pulumi_service==<version> --index-url <local>/simple/` from a local PEP 503
 *   index holding the wheel and sdist `npm run build:python-sdk` makes (its requirements are
 *   then already satisfied, so the local index needs to hold only our project);
 * - Go: `go get github.com/pulumi-service/pulumi-service/sdk/go/service@v<version>` (no
 *   `replace`) through a local Go module proxy serving sdk/go as that module's `v<version>`,
 *   first in `GOPROXY`, with `GONOSUMDB` naming our module so that the checksum database is not
 *   asked for it, and a module cache of its own (a shared one would keep this version forever);
 * - TypeScript: `npm install` of `@pulumi/pulumi` and the packed `pulumi-service` (with the
 *   workspace packages it depends on), the program importing `pulumi-service/native`.
 *
 * No `plugins.providers` entry, no plugin on PATH, nothing of the repository on PATH, a fresh
 * Pulumi home each: `pulumi up` against the emulator makes the engine download the plugin's
 * linux-amd64 archive from a local plugin server (test/helpers/fetched-plugin.ts), which the test
 * checks was asked, as it checks the resources on the emulator and that `pulumi destroy`
 * removes them. One archive build, one plugin server and one index server serve the three.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { OLDEST_PULUMI_VERSION, REPO_ROOT } from "../../scripts/pulumi-env";
import { docBlocks } from "../helpers/doc-blocks";
import { startEmulator, type RunningEmulator } from "../helpers/emulator";
import {
  fetchedPluginEnv,
  runPulumi,
  startPluginRelease,
  type PluginRelease,
} from "../helpers/fetched-plugin";
import { startFileTreeServer, type FileTreeServer } from "../helpers/file-tree-server";
import { goFlags } from "../helpers/go-flags";
import { writeGoProxyModule, writePythonIndex, type GoProxyModule } from "../helpers/package-indexes";
import { installSpecs, packAll, strangerEnv } from "../helpers/tarballs";
import { useTempDir } from "../helpers/temp-dir";

const exec = promisify(execFile);
const TIMEOUT = 900_000;
jest.setTimeout(TIMEOUT);

const GO_MODULE = "github.com/pulumi-service/pulumi-service/sdk/go";
const GO_PACKAGE = `${GO_MODULE}/service`;
const DD_KEY = "dd-install-test-secret-5c1e";

/**
 * The quick start of docs/resources.md in `language` (`python`, `go`, `typescript`): the block
 * generated from docs/examples/quickstart.pp, the first after its marker comment.
 */
function quickstart(language: string): string {
  const doc = path.join(REPO_ROOT, "docs", "resources.md");
  const marker = `<!-- generated from docs/examples/quickstart.pp: ${language} `;
  const at = fs
    .readFileSync(doc, "utf8")
    .split("\n")
    .findIndex((l) => l.startsWith(marker));
  expect(at).toBeGreaterThanOrEqual(0);
  const block = docBlocks(doc, "docs/resources.md").find((b) => b.line > at + 1);
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

describe("each SDK from a package index, the plugin fetched by the engine (real engine, local indexes, real emulator)", () => {
  const tmp = useTempDir("install-");
  let plugin: PluginRelease;
  let indexes: FileTreeServer;
  let goModule: GoProxyModule;
  let pythonFiles: string[];
  let packedSpecs: string[];

  beforeAll(async () => {
    expect(tmp().startsWith(REPO_ROOT)).toBe(false);
    plugin = await startPluginRelease(path.join(tmp(), "plugin"));
    const root = path.join(tmp(), "indexes");
    // Python: the wheel and the sdist in a PEP 503 simple index at <url>/pypi/simple/.
    const dists = path.join(tmp(), "python-dist");
    await exec(process.execPath, [path.join(REPO_ROOT, "scripts", "build-python-sdk.js"), "--out", dists]);
    pythonFiles = fs.readdirSync(dists).map((f) => path.join(dists, f));
    expect(writePythonIndex(path.join(root, "pypi"), pythonFiles)).toEqual(["pulumi-service"]);
    // Go: sdk/go as version v<version> of its module, in a module proxy tree at <url>/goproxy.
    goModule = writeGoProxyModule(path.join(root, "goproxy"), {
      modulePath: GO_MODULE,
      version: plugin.version,
      moduleDir: path.join(REPO_ROOT, "sdk", "go"),
    });
    indexes = await startFileTreeServer(root);
    // npm: the packed packages, as `npm publish` would upload them.
    const npmDir = path.join(tmp(), "npm");
    fs.mkdirSync(npmDir);
    packedSpecs = installSpecs("pulumi-service", packAll(npmDir));
  });

  afterAll(async () => {
    await plugin?.server.close();
    await indexes?.close();
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
        expect(
          fs.existsSync(path.join(env.PULUMI_HOME, "plugins", `resource-service-v${plugin.version}`)),
        ).toBe(true);
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
    const python = path.join(program, "venv", "bin", "python");
    // The SDK's requirements from the machine's usual index, pulumi at the CLI's release: the
    // local index holds only pulumi_service, so its install must find them satisfied.
    const wheel = pythonFiles.find((f) => f.endsWith(".whl"))!;
    const requires = (
      await run(
        python,
        [
          "-c",
          "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nm = next(n for n in z.namelist() if n.endswith('.dist-info/METADATA'))\nprint('\\n'.join(l[len('Requires-Dist: '):] for l in z.read(m).decode().splitlines() if l.startswith('Requires-Dist: ')))",
          wheel,
        ],
        program,
        env,
      )
    )
      .split("\n")
      .filter((r) => r && !/^pulumi([<>=!~ ;]|$)/.test(r));
    await run(
      python,
      ["-m", "pip", "install", "--quiet", `pulumi==${OLDEST_PULUMI_VERSION}`, ...requires],
      program,
      env,
    );
    // Then the SDK from the local index only: no find-links or extra index of this machine.
    const pipEnv = { ...env };
    for (const k of ["PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL", "PIP_INDEX_URL", "PIP_NO_INDEX"])
      delete pipEnv[k];
    const before = indexes.requests.length;
    await run(
      python,
      [
        "-m",
        "pip",
        "install",
        `pulumi_service==${plugin.version}`,
        "--index-url",
        `${indexes.url}/pypi/simple/`,
      ],
      program,
      pipEnv,
    );
    const asked = indexes.requests.slice(before);
    expect(asked).toContain("/pypi/simple/pulumi-service/");
    expect(asked).toContain(`/pypi/simple/pulumi-service/${path.basename(wheel)}`);
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
    await run("go", ["mod", "init", "example.com/quickstart"], program, goEnvAll);
    const before = indexes.requests.length;
    await run("go", ["get", `${GO_PACKAGE}@v${plugin.version}`], program, goEnvAll);
    await run("go", ["mod", "tidy"], program, goEnvAll);
    expect(indexes.requests.slice(before)).toContain(`/goproxy${goModule.paths.zip}`);
    const goMod = fs.readFileSync(path.join(program, "go.mod"), "utf8");
    expect(goMod).toContain(`${GO_MODULE} v${plugin.version}`);
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
    await run("npm", ["install", `@pulumi/pulumi@${OLDEST_PULUMI_VERSION}`, ...packedSpecs], program, env);
    expect(fs.realpathSync(path.join(program, "node_modules", "pulumi-service")).startsWith(REPO_ROOT)).toBe(
      false,
    );
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

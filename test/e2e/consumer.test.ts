/**
 * The packages as a user installs them, from outside this repository, on every Node.js release
 * line they are tested on (scripts/ensure-node.js: 20, 22 and 24; docs/development.md § Tested
 * versions). The packages are packed once for the test run (`packAll` of
 * test/helpers/tarballs.ts); then, per line, with that line's `node` first on PATH (for npm, the
 * Pulumi engine's language host, the program and the dynamic-provider process alike) and its
 * headers as `npm_config_nodedir` (should a native module be built), a new project in a temporary
 * folder:
 * - installs `@pulumi/pulumi` first, as `pulumi new` does: on Node.js 20 the release the lock file
 *   holds, on 22 and 24 the newest release tested ({@link NEWEST_SDK});
 * - installs the resources package (`pulumi-service`, `service-contract` and `service-cli-kit`
 *   tarballs) and checks that the project still holds exactly one copy of `@pulumi/pulumi`
 *   (`npm ls --json --all`, and on disk), the one it chose, and no native module;
 * - adds TypeScript and Node's types, as `pulumi new typescript` does, and type-checks the quick
 *   start with `tsc` without skipLibCheck, so the published declarations are checked against that
 *   line's SDK;
 * - runs the quick-start program through the Pulumi CLI against the file's one emulator, as an
 *   account of its own (its own API key): `up`, a second `up` that changes nothing, `refresh`, the
 *   installed `service-drift`, `destroy`, after which the account holds nothing.
 * The emulator is installed once, on Node.js 20 ({@link EMULATOR_LINE}, the line the repository
 * runs on and builds with): as a dev dependency of that line's project, after the resources,
 * where it must leave one copy of `@pulumi/pulumi`; its installed command line (`service-emulator`,
 * with better-sqlite3 built or downloaded for that line) then serves every line's deployment, one
 * account per line. The resources package has no native module, so the other lines need nothing
 * of the emulator's.
 * Apart from the lines, a project on an SDK older than the peer range gets npm's ERESOLVE rather
 * than a second copy. It prints the tarball sizes and, per line, install times, package counts
 * and operation times.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ServiceClient } from "../../client";
import { startPrebuildMirror, type PrebuildMirror } from "../helpers/prebuilds";
import { engineEnv } from "../helpers/pulumi";
import { installSpecs, packAll, type PackageName, type Packed } from "../helpers/tarballs";
import { ensureNodeLine, TESTED_NODE_LINES, type NodeLine } from "../../scripts/ensure-node";

const REPO = path.resolve(__dirname, "../..");

/**
 * The release line whose project installs the emulator and whose `node` runs it for every line:
 * the one the repository runs on, which built the emulator. It must be the first line tested
 * (its block runs first and starts the emulator the later blocks deploy against).
 */
const EMULATOR_LINE = 20;

/** The API key of a line's account in the shared emulator (each key is an account of its own). */
const apiKey = (major: number) => `sk_consumer_test_node${major}_0123456789`;

/** The `@pulumi/pulumi` release the repository's lock file holds (what Node.js 20 runs). */
const LOCKED_SDK = (
  JSON.parse(fs.readFileSync(path.join(REPO, "package-lock.json"), "utf8")) as {
    packages: Record<string, { version: string }>;
  }
).packages["node_modules/@pulumi/pulumi"].version;

/**
 * The newest `@pulumi/pulumi` release the test installs (on Node.js 22 and 24), named rather than
 * `latest`: a tag that moves between two runs makes a run depend on the day, and a registry can
 * serve a new release before the packages it needs (3.276.0 named an
 * `@opentelemetry/context-async-hooks` the registry did not have yet). Moving it to a newer release
 * is one edit here and in docs/development.md § Tested versions.
 */
const NEWEST_SDK = "3.270.0";

/** Per release line: the SDK the new project installs first (Node.js 20: the locked one). */
const LINES = TESTED_NODE_LINES.map((major) => ({ major, sdk: major === 20 ? LOCKED_SDK : NEWEST_SDK }));

interface Result {
  status: number | null;
  out: string;
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Result {
  const r = spawnSync(cmd, args, { cwd, env, encoding: "utf8", timeout: 900_000 });
  if (r.error) return { status: null, out: `${cmd}: ${r.error.message}` };
  return { status: r.status, out: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

/** Runs npm; throws with its output when it fails. Returns stdout. */
function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync("npm", args, { cwd, env, encoding: "utf8", timeout: 900_000 });
  if (r.status !== 0) {
    throw new Error(`npm ${args.join(" ")} failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr}`);
  }
  return r.stdout;
}

/** Every package folder under `node_modules` (scoped ones included). */
function installedPackages(nodeModules: string): string[] {
  const out: string[] = [];
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === ".bin") continue;
      const full = path.join(dir, entry.name);
      if (entry.name.startsWith("@")) {
        visit(full);
        continue;
      }
      if (fs.existsSync(path.join(full, "package.json"))) out.push(full);
      if (fs.existsSync(path.join(full, "node_modules"))) visit(path.join(full, "node_modules"));
    }
  };
  visit(nodeModules);
  return out;
}

function manifest(dir: string): { name: string; version: string } {
  return JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as {
    name: string;
    version: string;
  };
}

/**
 * The environment of a user's shell on `line`: its `node` first on PATH, its headers for native
 * builds, and none of the `npm_*` variables (nor `NODE`, `INIT_CWD`) that `npm test` hands jest,
 * which would point npm and node-gyp at the Node.js running jest.
 */
function lineEnv(line: NodeLine, base: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) {
    if (v === undefined || /^npm_/i.test(k) || k === "NODE" || k === "INIT_CWD") continue;
    env[k] = v;
  }
  env.PATH = [line.binDir, base.PATH ?? ""].join(path.delimiter);
  if (line.nodedir) env.npm_config_nodedir = line.nodedir;
  // better-sqlite3 compiles from source when its prebuilt binary cannot be downloaded (from
  // GitHub; not reachable from our machines): on every core.
  env.JOBS ??= "max";
  return env;
}

/** Seconds since `started` (from `process.hrtime.bigint()`). */
function since(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** The quick start in `project`, plus the Node.js version the program ran on as a stack output. */
function writeProgram(project: string): void {
  fs.writeFileSync(
    path.join(project, "index.ts"),
    fs.readFileSync(path.join(REPO, "examples/typescript/quickstart-dynamic/index.ts"), "utf8") +
      "\n/** The Node.js the program ran on (checked by the consumer test). */\nexport const nodeVersion = process.version;\n",
  );
  fs.writeFileSync(
    path.join(project, "Pulumi.yaml"),
    "name: consumer\nruntime:\n  name: nodejs\n  options:\n    typescript: true\n",
  );
}

/** The emulator every line deploys against, once {@link EMULATOR_LINE}'s project has started it. */
interface SharedEmulator {
  /** Its base URL, `http://127.0.0.1:<port>`. */
  url: string;
  /** The `service-emulator` process, on {@link EMULATOR_LINE}'s node; stopped after the file's tests. */
  child: ChildProcess;
  /** Its stderr, a file of its project. */
  log: string;
  /** Its exit code or signal once it has exited. */
  exited?: string;
}

describe("the packages, installed as a user does", () => {
  let tmp: string;
  let packed: Record<PackageName, Packed>;
  let prebuilds: PrebuildMirror;
  let emulator: SharedEmulator | undefined;
  /** The tarballs a user of the resources installs: `pulumi-service` and the packages it depends on. */
  const resourceTarballs = () => installSpecs("pulumi-service", packed);

  /**
   * The running emulator. @throws Error when it was not started (its test, in the Node.js
   * {@link EMULATOR_LINE} block, runs first) or has exited, with its stderr.
   */
  const sharedEmulator = (): SharedEmulator => {
    if (!emulator)
      throw new Error(
        `no emulator: the Node.js ${EMULATOR_LINE} project's test that installs and starts it failed or did not run`,
      );
    if (emulator.exited !== undefined)
      throw new Error(
        `service-emulator exited (${emulator.exited}):\n${fs.readFileSync(emulator.log, "utf8")}`,
      );
    return emulator;
  };

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-service-consumer-"));
    packed = packAll(tmp);
    prebuilds = await startPrebuildMirror();
  }, 300_000);

  afterAll(async () => {
    if (emulator && emulator.exited === undefined) {
      const { child } = emulator;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    }
    await prebuilds?.close();
    const started = process.hrtime.bigint();
    fs.rmSync(tmp, { recursive: true, force: true });
    console.log(`temporary projects removed in ${since(started).toFixed(1)} s`);
  });

  it("packs only built code, declarations and docs: no test, fixture, source or source map", () => {
    for (const p of Object.values(packed)) {
      const stray = p.files.filter(
        (f) =>
          /(^|\/)(test|tests|fixtures|examples)\//.test(f) || f.endsWith(".map") || /(?<!\.d)\.ts$/.test(f),
      );
      expect({ name: p.name, stray }).toEqual({ name: p.name, stray: [] });
      expect(p.files).toContain("package.json");
    }
    expect(packed["service-emulator"].files).toContain("dist/cli.js");
    const sizes = Object.values(packed).map(
      (p) => `${p.name} ${(p.size / 1024).toFixed(1)} KiB (${p.files.length} files)`,
    );
    console.log(`tarballs: ${sizes.join("; ")}`);
  });

  it("refuses an SDK older than its peer range with npm's error, instead of installing a second copy", () => {
    const project = path.join(tmp, "older-sdk");
    fs.mkdirSync(project);
    fs.writeFileSync(
      path.join(project, "package.json"),
      JSON.stringify({
        name: "older",
        version: "1.0.0",
        private: true,
        dependencies: { "@pulumi/pulumi": "3.247.0" },
      }),
    );
    // Resolution only: what `npm install` decides, without downloading the packages.
    const r = run(
      "npm",
      ["install", "--package-lock-only", "--no-audit", "--no-fund", ...resourceTarballs()],
      project,
      process.env,
    );
    expect(r.status).not.toBe(0);
    expect(r.out).toContain("ERESOLVE");
    expect(r.out).toMatch(/peer @pulumi\/pulumi@"\^3\.248\.0" from pulumi-service@/);
  }, 300_000);

  describe.each(LINES)("on Node.js $major with @pulumi/pulumi@$sdk", ({ major, sdk }) => {
    let line: NodeLine;
    let env: Record<string, string>;
    let project: string;
    let expectedSdk: string;
    const figures: string[] = [];

    beforeAll(() => {
      // Fails (does not skip) when this line's Node.js cannot be obtained.
      line = ensureNodeLine(major);
      env = { ...lineEnv(line, process.env), ...prebuilds.env };
      project = path.join(tmp, `node-${major}`);
      fs.mkdirSync(project);
      expectedSdk = sdk;
    }, 300_000);

    afterAll(() => {
      console.log(`Node.js ${line?.version ?? major}: ${figures.join("; ")}`);
    });

    it("runs npm and the program's node from this line", () => {
      const r = run("node", ["-p", "process.version"], project, env);
      expect(r).toEqual({ status: 0, out: `${line.version}\n` });
      expect(line.version.startsWith(`v${major}.`)).toBe(true);
    });

    it("installs the SDK, then the resources package: one copy of @pulumi/pulumi, no Fastify, better-sqlite3 or native build", () => {
      fs.writeFileSync(
        path.join(project, "package.json"),
        JSON.stringify({ name: "consumer", version: "1.0.0", private: true }, null, 2),
      );
      let started = process.hrtime.bigint();
      npm(["install", "--no-audit", "--no-fund", `@pulumi/pulumi@${sdk}`], project, env);
      const sdkSeconds = since(started);
      const sdkCount = installedPackages(path.join(project, "node_modules")).length;

      started = process.hrtime.bigint();
      npm(["install", "--no-audit", "--no-fund", ...resourceTarballs()], project, env);
      const resourcesSeconds = since(started);

      const installed = installedPackages(path.join(project, "node_modules"));
      const names = installed.map((dir) => manifest(dir).name);
      expect(names).toEqual(
        expect.arrayContaining([
          "pulumi-service",
          "service-contract",
          "service-cli-kit",
          "@pulumi/pulumi",
          "undici",
          "zod",
        ]),
      );
      for (const banned of ["fastify", "better-sqlite3", "fastify-plugin", "service-emulator"]) {
        expect(names).not.toContain(banned);
      }
      const native = installed.filter((dir) => {
        const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as {
          gypfile?: boolean;
          scripts?: Record<string, string>;
        };
        const install = [pkg.scripts?.preinstall, pkg.scripts?.install, pkg.scripts?.postinstall].join(" ");
        return (
          pkg.gypfile === true ||
          fs.existsSync(path.join(dir, "binding.gyp")) ||
          /node-gyp|prebuild/.test(install)
        );
      });
      expect(native.map((d) => path.relative(project, d))).toEqual([]);

      // One copy of the SDK, the project's own: what npm reports and what is on disk.
      const copies = sdkCopies(project, env);
      expect(copies).toEqual([
        { path: path.join(project, "node_modules", "@pulumi", "pulumi"), version: expectedSdk },
      ]);
      const onDisk = installed.filter((dir) => manifest(dir).name === "@pulumi/pulumi");
      expect(onDisk.map((d) => path.relative(project, d))).toEqual([
        path.join("node_modules", "@pulumi", "pulumi"),
      ]);

      figures.push(
        `@pulumi/pulumi ${expectedSdk} installed in ${sdkSeconds.toFixed(1)} s (${sdkCount} packages)`,
        `resources package added in ${resourcesSeconds.toFixed(1)} s (${names.length - sdkCount} more, ${names.length} in all)`,
        `copies of @pulumi/pulumi: ${copies.length}`,
      );
    }, 900_000);

    it("type-checks the quick start and the declarations it reaches against this SDK (tsc, no skipLibCheck)", () => {
      writeProgram(project);
      // What `pulumi new typescript` adds: TypeScript (the repository's release) and Node's types.
      const started = process.hrtime.bigint();
      npm(
        ["install", "--no-audit", "--no-fund", "--save-dev", "typescript@~5.9", `@types/node@${major}`],
        project,
        env,
      );
      const installSeconds = since(started);
      const checked = process.hrtime.bigint();
      const r = run(
        path.join(project, "node_modules", ".bin", "tsc"),
        [
          ...["--noEmit", "--strict", "--esModuleInterop", "--target", "es2022", "--module", "commonjs"],
          ...["--moduleResolution", "node", "--types", "node", "index.ts"],
        ],
        project,
        env,
      );
      expect(r).toEqual({ status: 0, out: "" });
      figures.push(
        `typescript and @types/node added in ${installSeconds.toFixed(1)} s, tsc ${since(checked).toFixed(1)} s`,
      );
    }, 600_000);

    if (major === EMULATOR_LINE) {
      it("adds the emulator as a dev dependency (one copy of @pulumi/pulumi still) and starts its installed command line, one account per line", async () => {
        const started = process.hrtime.bigint();
        npm(
          ["install", "--no-audit", "--no-fund", "--save-dev", packed["service-emulator"].tarball],
          project,
          env,
        );
        const emulatorSeconds = since(started);
        prebuilds.harvest(project, run("node", ["-p", "process.versions.modules"], project, env).out.trim());
        const total = installedPackages(path.join(project, "node_modules")).length;
        const sqlite = manifest(path.join(project, "node_modules", "better-sqlite3")).version;
        figures.push(
          `emulator added in ${emulatorSeconds.toFixed(1)} s (better-sqlite3 ${sqlite}; ${total} packages in all)`,
        );
        // One copy still, the project's own, after the emulator's install.
        expect(sdkCopies(project, env)).toEqual([
          { path: path.join(project, "node_modules", "@pulumi", "pulumi"), version: expectedSdk },
        ]);

        // The installed emulator's command line, as a user's CI starts it, on this line's node.
        const bin = path.join(project, "node_modules", ".bin", "service-emulator");
        const log = path.join(project, "emulator.log");
        const stderr = fs.openSync(log, "a");
        const keys = LINES.map((l) => apiKey(l.major));
        const child = spawn(
          bin,
          [
            "--port",
            "0",
            "--data",
            path.join(project, "emulator.db"),
            ...keys.flatMap((k) => ["--api-key", k]),
          ],
          { env, stdio: ["ignore", "pipe", stderr] },
        );
        fs.closeSync(stderr);
        const shared: SharedEmulator = { url: "", child, log };
        child.on("exit", (code, signal) => (shared.exited = signal ?? `exit code ${code}`));
        const first = await new Promise<{ url: string; apiKeys: string[] }>((resolve, reject) => {
          let text = "";
          child.stdout!.on("data", (d: Buffer) => {
            text += d.toString();
            const line = text.split("\n").find((l) => l.startsWith("{"));
            if (line) resolve(JSON.parse(line) as { url: string; apiKeys: string[] });
          });
          child.on("exit", (code) =>
            reject(new Error(`service-emulator exited with ${code}:\n${fs.readFileSync(log, "utf8")}`)),
          );
        });
        shared.url = first.url;
        emulator = shared;
        expect(first.apiKeys).toEqual(keys);
      }, 900_000);
    }

    it("deploys the quick start with the installed packages, as an account of its own: up, up (no changes), refresh, drift, destroy", async () => {
      writeProgram(project);
      const { url } = sharedEmulator();
      const key = apiKey(major);

      const backend = path.join(project, "state");
      fs.mkdirSync(backend);
      // The engine's environment with this line's node first on PATH, ahead of the Pulumi CLI folders.
      const pulumiEnv = {
        ...lineEnv(line, engineEnv(backend)),
        SERVICE_API_KEY: key,
        SERVICE_BASE_URL: url,
      };
      const times: string[] = [];
      const pulumi = (...args: string[]) => {
        const t = process.hrtime.bigint();
        const r = run("pulumi", [...args, "--non-interactive"], project, pulumiEnv);
        if (r.status !== 0) throw new Error(`pulumi ${args.join(" ")} on Node.js ${line.version}:\n${r.out}`);
        if (["up", "refresh", "destroy"].includes(args[0])) times.push(`${args[0]} ${since(t).toFixed(1)} s`);
        return r.out;
      };
      pulumi("stack", "init", "dev");
      pulumi(
        "config",
        "set-all",
        "--plaintext",
        `service:baseUrl=${url}`,
        "--secret",
        `service:apiKey=${key}`,
      );

      pulumi("up", "--yes", "--skip-preview");
      expect(pulumi("stack", "output", "nodeVersion").trim()).toBe(line.version);
      // The account's resources: the other lines' accounts, in the same emulator, are not listed.
      const client = new ServiceClient({ apiKey: key, baseUrl: url });
      const destinations = [];
      for await (const d of client.eventDestinations.list()) destinations.push(d);
      const subscriptions = [];
      for await (const s of client.eventSubscriptions.list()) subscriptions.push(s);
      expect(destinations.map((d) => d.description).sort()).toEqual([
        "Audit events to Kinesis",
        "Operational events to Datadog",
      ]);
      expect(subscriptions).toHaveLength(3);

      pulumi("up", "--yes", "--skip-preview", "--expect-no-changes");
      pulumi("refresh", "--yes", "--skip-preview", "--expect-no-changes");
      const drift = run(
        path.join(project, "node_modules", ".bin", "service-drift"),
        ["--stack", "dev"],
        project,
        pulumiEnv,
      );
      expect(drift).toEqual({ status: 0, out: expect.stringMatching(/no drift/i) });

      pulumi("destroy", "--yes", "--skip-preview");
      const left = [];
      for await (const d of client.eventDestinations.list()) left.push(d);
      for await (const s of client.eventSubscriptions.list()) left.push(s);
      expect(left).toEqual([]);
      figures.push(`${times.join(", ")}: succeeded`);
    }, 900_000);
  });
});

/**
 * Every copy of `@pulumi/pulumi` in the project, as `npm ls --json --all --long` reports the
 * tree (a deduplicated entry has the same path as the copy it stands for). npm must exit 0: a
 * missing or invalid peer dependency fails the test too.
 */
function sdkCopies(project: string, env: NodeJS.ProcessEnv): { path: string; version: string }[] {
  const r = spawnSync("npm", ["ls", "--json", "--all", "--long"], {
    cwd: project,
    env,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0)
    throw new Error(`npm ls failed (exit ${r.status}):\n${r.stderr}\n${r.stdout.slice(0, 4000)}`);
  interface Node {
    path?: string;
    version?: string;
    dependencies?: Record<string, Node>;
  }
  const found = new Map<string, string>();
  const visit = (node: Node) => {
    for (const [name, dep] of Object.entries(node.dependencies ?? {})) {
      if (name === "@pulumi/pulumi" && dep.path) found.set(dep.path, dep.version ?? "");
      visit(dep);
    }
  };
  visit(JSON.parse(r.stdout) as Node);
  return [...found].map(([p, version]) => ({ path: p, version }));
}

/**
 * The packages as a user installs them, from outside this repository, on every Node.js release
 * line they are tested on (scripts/ensure-node.js: 20, 22 and 24; docs/development.md § Tested
 * versions). Every package is packed once (`npm pack`); then, per line, with that line's `node`
 * first on PATH (for npm, the Pulumi engine's language host, the program, the dynamic-provider
 * process and the emulator alike) and its headers as `npm_config_nodedir` (should better-sqlite3
 * be built), a new project in a temporary folder:
 * - installs `@pulumi/pulumi` first, as `pulumi new` does: on Node.js 20 the release the lock file
 *   holds, on 22 and 24 the newest release tested ({@link NEWEST_SDK});
 * - installs the resources package (`pulumi-service`, `service-contract` and `service-cli-kit`
 *   tarballs) and checks that the project still holds exactly one copy of `@pulumi/pulumi`
 *   (`npm ls --json --all`, and on disk), the one it chose;
 * - adds TypeScript and Node's types, as `pulumi new typescript` does, and type-checks the quick
 *   start with `tsc` without skipLibCheck, so the published declarations are checked against that
 *   line's SDK; then installs the emulator as a dev dependency;
 * - starts the installed `service-emulator` and runs the quick-start program through the Pulumi
 *   CLI: `up`, a second `up` that changes nothing, `refresh`, the installed `service-drift`,
 *   `destroy`.
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
import { ensureNodeLine, TESTED_NODE_LINES, type NodeLine } from "../../scripts/ensure-node";

const REPO = path.resolve(__dirname, "../..");
const PACKAGES = [
  { name: "service-cli-kit", dir: path.join(REPO, "packages/cli") },
  { name: "service-contract", dir: path.join(REPO, "packages/contract") },
  { name: "pulumi-service", dir: REPO },
  { name: "service-emulator", dir: path.join(REPO, "packages/emulator") },
];
const API_KEY = "sk_consumer_test_0123456789";

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

interface Packed {
  name: string;
  tarball: string;
  size: number;
  files: string[];
}

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

/** Packs a package (already built by `pretest`) into `dest`. */
function pack(pkg: { name: string; dir: string }, dest: string): Packed {
  const [out] = JSON.parse(
    npm(["pack", "--json", "--ignore-scripts", "--pack-destination", dest], pkg.dir),
  ) as {
    filename: string;
    size: number;
    files: { path: string }[];
  }[];
  return {
    name: pkg.name,
    tarball: path.join(dest, out.filename),
    size: out.size,
    files: out.files.map((f) => f.path),
  };
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
    fs.readFileSync(path.join(REPO, "examples/quickstart/index.ts"), "utf8") +
      "\n/** The Node.js the program ran on (checked by the consumer test). */\nexport const nodeVersion = process.version;\n",
  );
  fs.writeFileSync(
    path.join(project, "Pulumi.yaml"),
    "name: consumer\nruntime:\n  name: nodejs\n  options:\n    typescript: true\n",
  );
}

describe("the packages, installed as a user does", () => {
  let tmp: string;
  let packed: Packed[];
  let prebuilds: PrebuildMirror;
  const tarball = (name: string) => packed.find((p) => p.name === name)!.tarball;
  /** The tarballs a user of the resources installs: `pulumi-service` and the packages it depends on. */
  const resourceTarballs = () => ["service-cli-kit", "service-contract", "pulumi-service"].map(tarball);

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-service-consumer-"));
    packed = PACKAGES.map((p) => pack(p, tmp));
    prebuilds = await startPrebuildMirror();
  });

  afterAll(async () => {
    await prebuilds?.close();
    const started = process.hrtime.bigint();
    fs.rmSync(tmp, { recursive: true, force: true });
    console.log(`temporary projects removed in ${since(started).toFixed(1)} s`);
  });

  it("packs only built code, declarations and docs: no test, fixture, source or source map", () => {
    for (const p of packed) {
      const stray = p.files.filter(
        (f) =>
          /(^|\/)(test|tests|fixtures|examples)\//.test(f) || f.endsWith(".map") || /(?<!\.d)\.ts$/.test(f),
      );
      expect({ name: p.name, stray }).toEqual({ name: p.name, stray: [] });
      expect(p.files).toContain("package.json");
    }
    const emu = packed.find((p) => p.name === "service-emulator")!;
    expect(emu.files).toContain("dist/cli.js");
    const sizes = packed.map((p) => `${p.name} ${(p.size / 1024).toFixed(1)} KiB (${p.files.length} files)`);
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
    let emulator: ChildProcess | undefined;
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
      emulator?.kill("SIGTERM");
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

    it("deploys the quick start with the installed packages: up, up (no changes), refresh, drift, destroy", async () => {
      const started = process.hrtime.bigint();
      npm(["install", "--no-audit", "--no-fund", "--save-dev", tarball("service-emulator")], project, env);
      const emulatorSeconds = since(started);
      prebuilds.harvest(project, run("node", ["-p", "process.versions.modules"], project, env).out.trim());
      const total = installedPackages(path.join(project, "node_modules")).length;
      const sqlite = manifest(path.join(project, "node_modules", "better-sqlite3")).version;
      figures.push(
        `emulator added in ${emulatorSeconds.toFixed(1)} s (better-sqlite3 ${sqlite}; ${total} packages in all)`,
      );
      // One copy still, after the emulator's install.
      expect(sdkCopies(project, env)).toHaveLength(1);

      writeProgram(project);

      // The installed emulator's command line, as a user's CI starts it, on this line's node.
      const bin = path.join(project, "node_modules", ".bin", "service-emulator");
      emulator = spawn(
        bin,
        ["--port", "0", "--data", path.join(project, "emulator.db"), "--api-key", API_KEY],
        {
          env,
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      const url = await new Promise<string>((resolve, reject) => {
        let text = "";
        let errors = "";
        emulator!.stdout!.on("data", (d: Buffer) => {
          text += d.toString();
          const first = text.split("\n").find((l) => l.startsWith("{"));
          if (first) resolve((JSON.parse(first) as { url: string }).url);
        });
        emulator!.stderr!.on("data", (d: Buffer) => (errors += d.toString()));
        emulator!.on("exit", (code) => reject(new Error(`service-emulator exited with ${code}:\n${errors}`)));
      });

      const backend = path.join(project, "state");
      fs.mkdirSync(backend);
      // The engine's environment with this line's node first on PATH, ahead of the Pulumi CLI folders.
      const pulumiEnv = {
        ...lineEnv(line, engineEnv(backend)),
        SERVICE_API_KEY: API_KEY,
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
      pulumi("config", "set", "service:baseUrl", url);
      pulumi("config", "set", "--secret", "service:apiKey", API_KEY);

      pulumi("up", "--yes", "--skip-preview");
      expect(pulumi("stack", "output", "nodeVersion").trim()).toBe(line.version);
      const client = new ServiceClient({ apiKey: API_KEY, baseUrl: url });
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

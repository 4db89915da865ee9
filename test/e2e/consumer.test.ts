/**
 * The packages as a user installs them, from outside this repository: every package is packed
 * (`npm pack`), a new project in a temporary folder installs the tarballs (the resources
 * package first, alone, then the emulator as a dev dependency), starts the installed
 * `service-emulator`, and runs the quick-start program through the Pulumi CLI: `up`, a second
 * `up` that changes nothing, `refresh`, the installed `service-drift`, `destroy`. It prints the
 * tarball sizes, the install time and the dependency count of the resources package alone.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ServiceClient } from "../../sdk";
import { engineEnv } from "../helpers/pulumi";

const REPO = path.resolve(__dirname, "../..");
const PACKAGES = [
  { name: "service-contract", dir: path.join(REPO, "packages/contract") },
  { name: "pulumi-service", dir: REPO },
  { name: "service-emulator", dir: path.join(REPO, "packages/emulator") },
];
const API_KEY = "sk_consumer_test_0123456789";

interface Packed {
  name: string;
  tarball: string;
  size: number;
  files: string[];
}

function npm(args: string[], cwd: string): string {
  return execFileSync("npm", args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 600_000,
  });
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

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: "utf8", timeout: 600_000 });
  return { status: r.status, out: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

describe("the packages, installed as a user does", () => {
  let tmp: string;
  let project: string;
  let packed: Packed[];
  let emulator: ChildProcess | undefined;

  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-service-consumer-"));
    project = path.join(tmp, "project");
    fs.mkdirSync(project);
    packed = PACKAGES.map((p) => pack(p, tmp));
  });

  afterAll(() => {
    emulator?.kill("SIGTERM");
    fs.rmSync(tmp, { recursive: true, force: true });
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

  it("the resources package installs without Fastify, better-sqlite3 or a native build step", () => {
    fs.writeFileSync(
      path.join(project, "package.json"),
      JSON.stringify({ name: "consumer", version: "1.0.0", private: true }, null, 2),
    );
    const resources = packed.filter((p) => p.name !== "service-emulator").map((p) => p.tarball);
    const started = process.hrtime.bigint();
    npm(["install", "--no-audit", "--no-fund", ...resources], project);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;

    const installed = installedPackages(path.join(project, "node_modules"));
    const names = installed.map(
      (dir) => (JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { name: string }).name,
    );
    expect(names).toEqual(
      expect.arrayContaining(["pulumi-service", "service-contract", "@pulumi/pulumi", "undici", "zod"]),
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
    console.log(`resources package alone: ${names.length} packages installed in ${seconds.toFixed(1)} s`);
  }, 300_000);

  it("deploys the quick start with the installed packages: up, up (no changes), refresh, drift, destroy", async () => {
    const emulatorTarball = packed.find((p) => p.name === "service-emulator")!.tarball;
    npm(["install", "--no-audit", "--no-fund", "--save-dev", emulatorTarball], project);
    fs.copyFileSync(path.join(REPO, "examples/quickstart/index.ts"), path.join(project, "index.ts"));
    fs.writeFileSync(
      path.join(project, "Pulumi.yaml"),
      "name: consumer\nruntime:\n  name: nodejs\n  options:\n    typescript: true\n",
    );

    // The installed emulator's command line, as a user's CI starts it.
    const bin = path.join(project, "node_modules", ".bin", "service-emulator");
    emulator = spawn(bin, ["--port", "0", "--data", path.join(tmp, "emulator.db"), "--api-key", API_KEY], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let text = "";
      emulator!.stdout!.on("data", (d: Buffer) => {
        text += d.toString();
        const line = text.split("\n").find((l) => l.startsWith("{"));
        if (line) resolve((JSON.parse(line) as { url: string }).url);
      });
      emulator!.on("exit", (code) => reject(new Error(`service-emulator exited with ${code}`)));
    });

    const backend = path.join(tmp, "state");
    fs.mkdirSync(backend);
    const env = { ...engineEnv(backend), SERVICE_API_KEY: API_KEY, SERVICE_BASE_URL: url };
    const pulumi = (...args: string[]) => run("pulumi", [...args, "--non-interactive"], project, env);
    const ok = (r: { status: number | null; out: string }) => {
      if (r.status !== 0) throw new Error(r.out);
      return r.out;
    };
    ok(pulumi("stack", "init", "dev"));
    ok(pulumi("config", "set", "service:baseUrl", url));
    ok(pulumi("config", "set", "--secret", "service:apiKey", API_KEY));

    ok(pulumi("up", "--yes", "--skip-preview"));
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

    ok(pulumi("up", "--yes", "--skip-preview", "--expect-no-changes"));
    ok(pulumi("refresh", "--yes", "--skip-preview", "--expect-no-changes"));
    const drift = run(
      path.join(project, "node_modules", ".bin", "service-drift"),
      ["--stack", "dev"],
      project,
      env,
    );
    expect(drift).toEqual({ status: 0, out: expect.stringMatching(/no drift/i) });

    ok(pulumi("destroy", "--yes", "--skip-preview"));
    const left = [];
    for await (const d of client.eventDestinations.list()) left.push(d);
    for await (const s of client.eventSubscriptions.list()) left.push(s);
    expect(left).toEqual([]);
  }, 900_000);
});

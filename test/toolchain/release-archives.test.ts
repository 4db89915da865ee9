/**
 * The release archives (scripts/release-archives.js) and the two ways a user gets the plugin
 * from a plugin server, against a local HTTP server holding the archives as a release does:
 * `pulumi plugin install resource service <version> --server <url>`, and a plain `pulumi up` of
 * a program in a fresh folder, with a fresh Pulumi home (no plugin installed), where the engine
 * learns from the SDK's package metadata (`pulumi.server`, the schema's `pluginDownloadURL`)
 * that the program needs the plugin, maps that URL to the local server with
 * `PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES`, downloads and installs it, and deploys to the emulator.
 * The linux-amd64 executable is the one built and served (the one this machine runs); the names
 * of the others are checked. No `node` is on the plugin's PATH when it runs from the archive.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import * as tar from "tar";
import { REPO_ROOT, findPulumi, pulumiEnv } from "../../scripts/pulumi-env";
import { startEmulator, type RunningEmulator } from "../helpers/emulator";
import {
  PLUGIN_BINARIES,
  fetchedPluginEnv,
  release,
  runPulumi as pulumi,
  startPluginRelease,
  type PluginRelease,
} from "../helpers/fetched-plugin";
import { useTempDir } from "../helpers/temp-dir";

const TIMEOUT = 900_000;
const VERSION = release.packageVersion();
const TARGET = "linux-amd64";
const ARCHIVE = release.archiveName(VERSION, TARGET);

/** The folders on PATH that hold no `node`: what the plugin runs with. */
function pathWithoutNode(): string {
  return (process.env.PATH ?? "")
    .split(path.delimiter)
    .filter((d) => d && !fs.existsSync(path.join(d, "node")))
    .join(path.delimiter);
}

/** Starts `file` with `env` and resolves with the first line it prints (a plugin's port); kills it then. */
function firstLine(file: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, [], { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`${file} printed no line in 60 s: ${err}`));
    }, 60_000);
    child.stderr.on("data", (d) => (err += d));
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("\n")) {
        clearTimeout(timer);
        child.kill();
        resolve(out.split("\n")[0]);
      }
    });
    child.on("error", reject);
  });
}

describe("release archives and the plugin server (real engine, local server, real emulator)", () => {
  const tmp = useTempDir("release-archives-");
  let plugin: PluginRelease;
  let env: NodeJS.ProcessEnv;
  let archive: string;

  beforeAll(async () => {
    plugin = await startPluginRelease(tmp(), TARGET);
    archive = path.join(tmp(), "release", ARCHIVE);
    const found = findPulumi();
    if (!found)
      throw new Error("No Pulumi CLI: run `node scripts/ensure-pulumi.js` (npm test does it in pretest).");
    env = { ...pulumiEnv(found, process.env), PULUMI_HOME: path.join(tmp(), "pulumi-home") };
  }, TIMEOUT);

  afterAll(async () => {
    await plugin?.server.close();
  });

  it(
    "names each archive as the engine asks for it, lists its checksum, and packs the executable, license and readme",
    async () => {
      expect(
        ["linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64", "windows-amd64"].map((t) =>
          release.archiveName(VERSION, t),
        ),
      ).toEqual([
        `pulumi-resource-service-v${VERSION}-linux-amd64.tar.gz`,
        `pulumi-resource-service-v${VERSION}-linux-arm64.tar.gz`,
        `pulumi-resource-service-v${VERSION}-darwin-amd64.tar.gz`,
        `pulumi-resource-service-v${VERSION}-darwin-arm64.tar.gz`,
        `pulumi-resource-service-v${VERSION}-windows-amd64.tar.gz`,
      ]);
      expect(plugin.archive).toBe(ARCHIVE);
      expect(fs.readdirSync(path.join(tmp(), "release")).sort()).toEqual(
        [ARCHIVE, release.checksumsName(VERSION)].sort(),
      );
      const sha256 = createHash("sha256").update(fs.readFileSync(archive)).digest("hex");
      const checksums = fs.readFileSync(path.join(tmp(), "release", release.checksumsName(VERSION)), "utf8");
      expect(checksums).toBe(`${sha256}  ${ARCHIVE}\n`);
      const entries: { path: string; mode: number }[] = [];
      await tar.list({
        file: archive,
        onReadEntry: (e) => entries.push({ path: e.path, mode: e.mode ?? 0 }),
      });
      expect(entries.map((e) => e.path)).toEqual(["pulumi-resource-service", "LICENSE", "README.md"]);
      expect(entries[0].mode & 0o777).toBe(0o755);
      // Reproducible: the same executable gives the same archive.
      const again = await release.releaseArchives({
        binaries: PLUGIN_BINARIES,
        out: path.join(tmp(), "again"),
        targets: [TARGET],
      });
      expect(again[0].sha256).toBe(sha256);
    },
    TIMEOUT,
  );

  it(
    "pulumi plugin install resource service <version> --server <url> installs the plugin, which runs without Node.js",
    async () => {
      const out = await pulumi(
        ["plugin", "install", "resource", "service", VERSION, "--server", plugin.server.url],
        env,
      );
      expect(plugin.server.requests).toContain(`/${ARCHIVE}`);
      expect(out).toContain(`[resource plugin service-${VERSION}] installing`);
      const listed = JSON.parse(await pulumi(["plugin", "ls", "--json"], env)) as {
        name: string;
        kind: string;
        version: string;
      }[];
      expect(listed).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ name: "service", kind: "resource", version: VERSION }),
        ]),
      );
      const installed = path.join(
        env.PULUMI_HOME!,
        "plugins",
        `resource-service-v${VERSION}`,
        "pulumi-resource-service",
      );
      expect(await firstLine(installed, { PATH: pathWithoutNode(), HOME: tmp() })).toMatch(/^\d+$/);
    },
    TIMEOUT,
  );

  describe("a program in a fresh folder, a fresh Pulumi home", () => {
    let emulator: RunningEmulator;
    let program: string;
    let upEnv: NodeJS.ProcessEnv;

    beforeAll(async () => {
      emulator = await startEmulator();
      // The program: the native SDK's package (its package.json carries pulumi.server) and @pulumi/pulumi.
      program = path.join(tmp(), "program");
      const modules = path.join(program, "node_modules");
      fs.mkdirSync(path.join(modules, "@pulumi"), { recursive: true });
      fs.symlinkSync(
        path.join(REPO_ROOT, "node_modules", "@pulumi", "pulumi"),
        path.join(modules, "@pulumi", "pulumi"),
      );
      fs.cpSync(
        path.join(REPO_ROOT, "dist", "sdk", "nodejs"),
        path.join(modules, "@pulumi-service", "service"),
        {
          recursive: true,
        },
      );
      fs.writeFileSync(
        path.join(program, "Pulumi.yaml"),
        "name: fetched-plugin\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: index.js\n",
      );
      fs.writeFileSync(
        path.join(program, "index.js"),
        [
          'const service = require("@pulumi-service/service");',
          'const destination = new service.EventDestination("audit", {',
          '  description: "fetched plugin",',
          '  target: { kinesis: { auth: { role: { roleArn: "arn:aws:iam::123456789012:role/r" } }, streamArn: "arn:aws:kinesis:us-east-1:123456789012:stream/s" } },',
          "});",
          "exports.destinationId = destination.id;",
          "",
        ].join("\n"),
      );
      // Nothing else may answer for the plugin: no copy on PATH (npm puts the package's bin there).
      upEnv = fetchedPluginEnv(env, {
        home: path.join(tmp(), "fresh-home"),
        backend: path.join(tmp(), "backend"),
        serverUrl: plugin.server.url,
      });
      await pulumi(["stack", "init", "dev"], upEnv, program);
      await pulumi(["config", "set", "service:baseUrl", emulator.url], upEnv, program);
      await pulumi(["config", "set", "--secret", "service:apiKey", emulator.apiKeys[0]], upEnv, program);
    }, TIMEOUT);

    afterAll(async () => {
      await emulator?.close();
    });

    it(
      "pulumi up downloads the plugin by itself from the server the SDK names, and deploys",
      async () => {
        const before = plugin.server.requests.length;
        const out = await pulumi(["up", "--yes", "--skip-preview", "--non-interactive"], upEnv, program);
        expect(plugin.server.requests.slice(before)).toContain(`/${ARCHIVE}`);
        expect(fs.existsSync(path.join(upEnv.PULUMI_HOME!, "plugins", `resource-service-v${VERSION}`))).toBe(
          true,
        );
        const id = (await pulumi(["stack", "output", "destinationId"], upEnv, program)).trim();
        expect(id).toMatch(/^ed_/);
        expect(emulator.store.snapshot().event_destinations.map((d) => (d as { id: string }).id)).toEqual([
          id,
        ]);
        expect(out).toMatch(/\+ 2 created|2 created/);
        await pulumi(["destroy", "--yes", "--skip-preview", "--non-interactive"], upEnv, program);
        expect(emulator.store.snapshot().event_destinations).toEqual([]);
      },
      TIMEOUT,
    );
  });
});

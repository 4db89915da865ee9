/**
 * The emulator without Node.js, as its documents tell a reader to get and use it: the release
 * archive `service-emulator-v<version>-linux-amd64.tar.gz` (scripts/release-archives.js, from
 * the executable scripts/build-emulator-binaries.js makes), served by a local HTTP server as the
 * GitHub release serves it. From fresh folders outside the repository, with a PATH that holds
 * no `node` (only the shell tools and Python the commands use) and no NODE_* variable:
 * - the shell block of docs/emulator.md § "The emulator without Node.js", as printed (the
 *   release's address made the local server's, `8787` a free port): download, unpack,
 *   `--version`, `--detach`, a request, `stop`;
 * - the Python example examples/python/testing, copied out, by its README's commands as printed:
 *   download and unpack the executable, a venv with pytest from PyPI, then pytest, whose
 *   fixture starts the executable and whose tests create, read and list a destination and rotate
 *   a key over HTTP.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import * as tar from "tar";
import { freePort } from "../../scripts/postgres-server";
import { REPO_ROOT } from "../../scripts/pulumi-env";
import { docBlocks } from "../helpers/doc-blocks";
import { startFileTreeServer, type FileTreeServer } from "../helpers/file-tree-server";
import { useTempDir } from "../helpers/temp-dir";

const TIMEOUT = 900_000;
const VERSION: string = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")).version;
const ARCHIVE = `service-emulator-v${VERSION}-linux-amd64.tar.gz`;
/** Where the documents download from: the repository's GitHub releases. */
const RELEASES = "https://github.com/pulumi-service/pulumi-service/releases/download";
/** The tools the documents' commands run, besides Python (each linked into the test's PATH). */
const TOOLS = [
  "bash",
  "sh",
  "curl",
  "tar",
  "gzip",
  "cat",
  "cp",
  "ls",
  "rm",
  "mkdir",
  "sleep",
  "env",
  "uname",
];

// eslint-disable-next-line @typescript-eslint/no-require-imports
const release = require("../../scripts/release-archives") as {
  checksumsName(version: string): string;
  emulatorArchiveName(version: string, target: string): string;
  releaseArchives(opts: {
    binaries: string | null;
    emulatorBinaries: string;
    out: string;
    targets: string[];
  }): Promise<{ file: string; sha256: string }[]>;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildEmulatorBinaries } = require("../../scripts/build-emulator-binaries") as {
  buildEmulatorBinaries(opts: { targetNames: string[] }): Promise<{ name: string; path: string }[]>;
};

/** The one shell block of `doc` that downloads the emulator's archive. */
function downloadBlock(doc: string): string {
  const blocks = docBlocks(path.join(REPO_ROOT, doc), doc).filter(
    (b) => b.lang === "sh" && b.body.includes(`${RELEASES}/`) && b.body.includes("service-emulator-v"),
  );
  expect(blocks).toHaveLength(1);
  expect(blocks[0].marker?.value).toContain("test/toolchain/emulator-binaries-python.test.ts");
  return blocks[0].body;
}

/** Runs `script` with bash in `cwd`; its exit code and output (stdout and stderr together). */
function bash(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-e", "-o", "pipefail", "-c", script], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 600_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe("the emulator without Node.js: its release archive, docs/emulator.md and the pytest example", () => {
  const tmp = useTempDir("emulator-binaries-python-");
  let server: FileTreeServer;
  let base: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    await buildEmulatorBinaries({ targetNames: ["linux-amd64"] });
    const releaseDir = path.join(tmp(), "release");
    await release.releaseArchives({
      binaries: null,
      emulatorBinaries: path.join(REPO_ROOT, "dist", "emulator-binaries"),
      out: releaseDir,
      targets: ["linux-amd64"],
    });
    // The GitHub release, as the documents' URLs reach it: <server>/v<version>/<asset>.
    const tree = path.join(tmp(), "server");
    fs.mkdirSync(tree);
    fs.cpSync(releaseDir, path.join(tree, `v${VERSION}`), { recursive: true });
    server = await startFileTreeServer(tree);
    base = server.url;

    // A PATH of the tools the commands use and the real Python (not a pyenv shim), and no node.
    const bin = path.join(tmp(), "bin");
    fs.mkdirSync(bin);
    for (const tool of TOOLS) {
      const found = spawnSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim();
      if (!found) throw new Error(`${tool} is not on PATH; the documents' commands need it`);
      fs.symlinkSync(found, path.join(bin, tool));
    }
    const python = spawnSync(process.env.PYTHON || "python3", ["-c", "import sys; print(sys.executable)"], {
      encoding: "utf8",
    }).stdout.trim();
    if (!python) throw new Error("no python3: install Python 3.10+ with its venv module, or set PYTHON");
    fs.symlinkSync(python, path.join(bin, "python3"));
    const home = path.join(tmp(), "home");
    fs.mkdirSync(home);
    env = { HOME: home, PATH: bin, LANG: "C.UTF-8" };
    // pip's settings of this machine (its index, certificates, a proxy), nothing of Node.js.
    for (const [k, v] of Object.entries(process.env)) {
      if (
        v !== undefined &&
        /^(PIP_|SSL_CERT_|REQUESTS_CA_BUNDLE$|CURL_CA_BUNDLE$|https?_proxy$|no_proxy$)/i.test(k)
      )
        env[k] = v;
    }
    expect(spawnSync("bash", ["-c", "command -v node"], { env }).status).not.toBe(0);
  }, TIMEOUT);

  afterAll(async () => {
    await server?.close();
  });

  it("packs the executable, the emulator's license and readme, and lists the archive's checksum", async () => {
    const releaseDir = path.join(tmp(), "release");
    expect(release.emulatorArchiveName(VERSION, "linux-amd64")).toBe(ARCHIVE);
    expect(fs.readdirSync(releaseDir).sort()).toEqual([ARCHIVE, release.checksumsName(VERSION)].sort());
    const sha = createHash("sha256")
      .update(fs.readFileSync(path.join(releaseDir, ARCHIVE)))
      .digest("hex");
    expect(fs.readFileSync(path.join(releaseDir, release.checksumsName(VERSION)), "utf8")).toBe(
      `${sha}  ${ARCHIVE}\n`,
    );
    const entries: { path: string; mode: number }[] = [];
    await tar.list({
      file: path.join(releaseDir, ARCHIVE),
      onReadEntry: (e) => entries.push({ path: e.path, mode: e.mode ?? 0 }),
    });
    expect(entries.map((e) => e.path)).toEqual(["service-emulator", "LICENSE", "README.md"]);
    expect(entries[0].mode & 0o777).toBe(0o755);
  });

  it(
    "docs/emulator.md's commands, as printed: download, unpack, --version, --detach, a request, stop",
    async () => {
      const block = downloadBlock("docs/emulator.md");
      expect(block).toContain(`${RELEASES}/v${VERSION}/${ARCHIVE}`);
      const port = await freePort();
      const script = block
        .split(RELEASES)
        .join(base)
        .replace(/\b8787\b/g, String(port));
      const work = path.join(tmp(), "docs-reader");
      fs.mkdirSync(work);
      const r = await bash(script, work, { ...env, SERVICE_EMULATOR_PORT: String(port) });
      if (r.code !== 0) throw new Error(`docs/emulator.md's block failed (exit ${r.code}):\n${r.out}`);
      expect(server.requests).toContain(`/v${VERSION}/${ARCHIVE}`);
      expect(r.out).toMatch(new RegExp(`^${VERSION.replace(/\./g, "\\.")}$`, "m"));
      expect(r.out).toContain(`"url":"http://127.0.0.1:${port}"`);
      expect(r.out).toContain('"event_subscriptions":[]');
      expect(r.out).toMatch(/stopped the emulator \(PID \d+\)/);
      expect(fs.existsSync(path.join(work, ".emulator", "emulator.pid"))).toBe(false);
    },
    TIMEOUT,
  );

  it(
    "examples/python/testing, copied out, by its README's commands: pytest starts the executable and its tests pass",
    async () => {
      const example = path.join(REPO_ROOT, "examples", "python", "testing");
      const block = downloadBlock("examples/python/testing/README.md");
      expect(block).toContain(`${RELEASES}/v${VERSION}/${ARCHIVE}`);
      const work = path.join(tmp(), "python-reader");
      fs.cpSync(example, work, {
        recursive: true,
        filter: (src) => !/(^|[\\/])(venv|\.venv|__pycache__|\.pytest_cache)$/.test(src),
      });
      const r = await bash(block.split(RELEASES).join(base), work, env);
      if (r.code !== 0) throw new Error(`the example's README commands failed (exit ${r.code}):\n${r.out}`);
      expect(r.out).toMatch(/\b2 passed\b/);
      expect(r.out).not.toMatch(/\b(failed|error)\b/i);
    },
    TIMEOUT,
  );
});

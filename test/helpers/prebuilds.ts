/**
 * A local mirror of better-sqlite3's prebuilt binaries, for the tests that install the emulator
 * into fresh projects (docs, examples, consumer). better-sqlite3's install script asks
 * prebuild-install for a binary of its version and the Node.js ABI, from GitHub, unreachable
 * from our machines, and falls back to compiling SQLite from source: about 80 s of both cores
 * for each install. prebuild-install honours a mirror (`npm_config_better_sqlite3_binary_host`),
 * as a company's network would set one; this mirror serves the binaries this machine has already
 * built, kept in `prebuilds/` of the project's cache (`~/.cache/pulumi-service`: see cacheBase):
 * - the repository's own (`npm ci` built it for the Node.js running the tests);
 * - each one a test compiled in a project, taken after its install by {@link PrebuildMirror.harvest}.
 * A binary the mirror does not have answers 404, and the install compiles as before.
 *
 * @packageDocumentation
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { cacheBase } from "../../scripts/pulumi-env";

const CACHE = path.join(cacheBase(), "prebuilds");
const REPO = path.resolve(__dirname, "../..");
const BINARY = path.join("build", "Release", "better_sqlite3.node");

/** A running mirror: the environment that points installs at it, and how to add binaries. */
export interface PrebuildMirror {
  /** `npm_config_better_sqlite3_binary_host`: merge into the environment of an `npm install`. */
  env: Record<string, string>;
  /**
   * Keeps the better-sqlite3 binaries installed under `dir` (its `node_modules`, or those of
   * folders up to three levels below it) that the mirror lacks, as built for `abi` (the
   * `process.versions.modules` of the Node.js that installed them; default: this process's).
   */
  harvest(dir: string, abi?: string): void;
  /** Stops serving. */
  close(): Promise<void>;
}

/** The file name prebuild-install asks for: `better-sqlite3-v<version>-node-v<abi>-linux-x64.tar.gz`. */
function fileName(version: string, abi: string): string {
  return `better-sqlite3-v${version}-node-v${abi}-${process.platform}-${process.arch}.tar.gz`;
}

/** Packs the module's binary as prebuild-install unpacks it (`build/Release/…` inside). */
function keep(moduleDir: string, abi: string): void {
  const { version } = JSON.parse(fs.readFileSync(path.join(moduleDir, "package.json"), "utf8")) as {
    version: string;
  };
  const out = path.join(CACHE, fileName(version, abi));
  if (fs.existsSync(out) || !fs.existsSync(path.join(moduleDir, BINARY))) return;
  fs.mkdirSync(CACHE, { recursive: true });
  const partial = `${out}.${process.pid}.partial`;
  const r = spawnSync("tar", ["-czf", partial, "-C", moduleDir, BINARY], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`tar of ${moduleDir} failed: ${r.stderr}`);
  fs.renameSync(partial, out);
}

/** The better-sqlite3 folders under `dir`'s node_modules, down to `depth` levels of folders. */
function modulesUnder(dir: string, depth: number): string[] {
  const found: string[] = [];
  const direct = path.join(dir, "node_modules", "better-sqlite3");
  if (fs.existsSync(path.join(direct, "package.json"))) found.push(direct);
  if (depth === 0) return found;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory() && e.name !== "node_modules" && !e.name.startsWith("."))
      found.push(...modulesUnder(path.join(dir, e.name), depth - 1));
  }
  return found;
}

/**
 * The mirror's server, run in a child process: the tests that install with `spawnSync` block
 * their own event loop while npm runs, so a server of theirs could not answer.
 */
const SERVER = `
const fs = require("node:fs"), http = require("node:http"), path = require("node:path");
const dir = process.argv[1];
const server = http.createServer((req, res) => {
  const file = path.join(dir, path.basename(decodeURIComponent(req.url || "")));
  if (req.method !== "GET" || !file.endsWith(".tar.gz") || !fs.existsSync(file)) return res.writeHead(404).end();
  res.writeHead(200, { "content-type": "application/gzip" });
  fs.createReadStream(file).pipe(res);
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
process.stdin.on("end", () => process.exit(0)).resume();
`;

/**
 * Starts the mirror on a free port of 127.0.0.1, with the repository's own binary in it. The
 * server stops with {@link PrebuildMirror.close}, or when this process ends (its stdin closes).
 */
export async function startPrebuildMirror(): Promise<PrebuildMirror> {
  keep(path.join(REPO, "node_modules", "better-sqlite3"), process.versions.modules);
  fs.mkdirSync(CACHE, { recursive: true });
  const child = spawn(process.execPath, ["-e", SERVER, CACHE], { stdio: ["pipe", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the prebuild mirror exited (code ${code})`)));
    child.stdout.once("data", (d: Buffer) => resolve(Number(d.toString().trim())));
  });
  child.removeAllListeners("exit");
  return {
    env: { npm_config_better_sqlite3_binary_host: `http://127.0.0.1:${port}` },
    harvest: (dir, abi = process.versions.modules) => {
      for (const m of modulesUnder(dir, 3)) keep(m, abi);
    },
    close: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.stdin.end();
      }),
  };
}

/**
 * A real npm registry on 127.0.0.1 for tests: Verdaccio (installed once into the project's cache
 * by scripts/ensure-verdaccio.js), holding the packages this repository publishes and proxying
 * every other package from the registry this machine's npm is configured with (its "uplink"), so
 * that a test runs a reader's `npm install pulumi-service @pulumi/pulumi` as printed, with only the
 * registry changed (an `.npmrc` naming it in the reader's folder).
 */
import { spawn, execFile, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { ensureVerdaccio } from "../../scripts/ensure-verdaccio";
import { freePort } from "../../scripts/postgres-server";

const exec = promisify(execFile);

/** A running registry; see {@link startVerdaccio}. */
export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/`, with the trailing slash npm writes. */
  url: string;
  /** The uplink's URL: the registry this machine's npm uses, which serves every other package. */
  uplink: string;
  /** The packages that exist only here, never asked of the uplink (those published). */
  ownPackages: string[];
  /**
   * Every request Verdaccio answered, in order, as its log names it (`GET /pulumi-service`,
   * `GET /@pulumi%2fpulumi`, `GET /pulumi-service/-/pulumi-service-0.2.0.tgz`…).
   */
  requests: string[];
  /** Publishes the `npm pack` tarball `tarball` (as `npm publish` uploads it). */
  publish(tarball: string): Promise<void>;
  /** The versions of `name` this registry serves (asks it, as npm does). */
  versions(name: string): Promise<string[]>;
  /** Stops Verdaccio (resolves when its process has exited). */
  close(): Promise<void>;
}

/** Quotes `s` as a YAML string (JSON strings are YAML). */
const q = (s: string) => JSON.stringify(s);

/**
 * The Verdaccio configuration of {@link startVerdaccio}: storage in `dir`, `ownPackages` served
 * from it alone (anyone may read or publish them; no uplink is asked for them, so a package of the
 * same name elsewhere can never shadow ours), everything else proxied from `uplink`, and anyone may
 * register the one user publishing needs.
 */
function config(dir: string, uplink: string, ownPackages: string[]): string {
  return [
    `storage: ${q(path.join(dir, "storage"))}`,
    "auth:",
    "  htpasswd:",
    `    file: ${q(path.join(dir, "htpasswd"))}`,
    "    max_users: 10",
    "uplinks:",
    "  machine:",
    `    url: ${q(uplink)}`,
    "    timeout: 120s",
    "    max_fails: 5",
    "    cache: true",
    "packages:",
    ...ownPackages.flatMap((name) => [`  ${q(name)}:`, "    access: $all", "    publish: $all"]),
    "  '**':",
    "    access: $all",
    "    publish: $authenticated",
    "    proxy: machine",
    "server:",
    "  keepAliveTimeout: 60",
    "max_body_size: 200mb",
    "log: { type: stdout, format: pretty, level: http }",
    "",
  ].join("\n");
}

/** The registry this machine's npm uses (`npm config get registry`), with a trailing slash. */
async function machineRegistry(): Promise<string> {
  const url = (await exec("npm", ["config", "get", "registry"])).stdout.trim();
  return url.endsWith("/") ? url : `${url}/`;
}

/** Waits until `url` answers `/-/ping`, or `child` exits. @throws Error with Verdaccio's output. */
async function waitReady(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Verdaccio exited (${child.exitCode}):\n${output()}`);
    try {
      if ((await fetch(`${url}-/ping`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`Verdaccio did not answer at ${url} in 60 s:\n${output()}`);
}

/**
 * Starts Verdaccio (installing it into the cache first, a minute or two, when missing) on a free
 * port of 127.0.0.1, storing in `dir` (a folder of the caller's, made here), serving `ownPackages`
 * (the names of the packages the caller will publish) from itself alone and every other package
 * from this machine's registry. Publishing registers one user and keeps its token in
 * `dir/publisher.npmrc`, apart from any reader's configuration.
 * @throws UntrustedFolderError (scripts/ensure-verdaccio.js) when the cache is not this user's
 *   alone; Error with Verdaccio's output when it does not start.
 */
export async function startVerdaccio(dir: string, ownPackages: string[]): Promise<LocalRegistry> {
  const bin = ensureVerdaccio();
  fs.mkdirSync(dir, { recursive: true });
  const uplink = await machineRegistry();
  const configFile = path.join(dir, "config.yaml");
  fs.writeFileSync(configFile, config(dir, uplink, ownPackages));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const child = spawn(process.execPath, [bin, "--config", configFile, "--listen", `127.0.0.1:${port}`], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  let out = "";
  let pending = "";
  const requests: string[] = [];
  child.stdout!.on("data", (d: Buffer) => {
    out = (out + d).slice(-20_000);
    const lines = (pending + d).split("\n");
    pending = lines.pop()!;
    // e.g. `http <-- 200, user: null(127.0.0.1), req: 'GET /pulumi-service', bytes: 0/1234`
    for (const l of lines) {
      // eslint-disable-next-line no-control-regex
      const m = /http <-- \d+.*req: '(\w+ [^']+)'/.exec(l.replace(/\x1b\[[0-9;]*m/g, ""));
      if (m) requests.push(m[1]);
    }
  });
  child.stderr!.on("data", (d) => (out = (out + d).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await exited;
    }
  };
  try {
    await waitReady(url, child, () => out);
  } catch (err) {
    await close();
    throw err;
  }
  // One user, for `npm publish` (npm will not publish without a token for the registry).
  let publisherConfig: string | undefined;
  const publisher = async () => {
    if (publisherConfig) return publisherConfig;
    const res = await fetch(`${url}-/user/org.couchdb.user:publisher`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        name: "publisher",
        password: `pw-${process.pid}-${port}`,
        type: "user",
        roles: [],
      }),
    });
    const body = (await res.json()) as { token?: string; error?: string };
    if (!res.ok || !body.token)
      throw new Error(`Verdaccio refused to register the publisher (${res.status}): ${body.error ?? ""}`);
    publisherConfig = path.join(dir, "publisher.npmrc");
    fs.writeFileSync(publisherConfig, `//127.0.0.1:${port}/:_authToken=${body.token}\n`, { mode: 0o600 });
    return publisherConfig;
  };
  return {
    url,
    uplink,
    ownPackages,
    requests,
    async publish(tarball) {
      const userconfig = await publisher();
      try {
        await exec(
          "npm",
          ["publish", tarball, "--registry", url, "--userconfig", userconfig, "--ignore-scripts"],
          { cwd: dir, env: { ...process.env, npm_config_provenance: "false" } },
        );
      } catch (err) {
        const e = err as { stdout?: string; stderr?: string; message: string };
        throw new Error(
          `npm publish ${tarball} to ${url} failed: ${e.message}\n${e.stdout ?? ""}${e.stderr ?? ""}`,
        );
      }
    },
    async versions(name) {
      const res = await fetch(`${url}${name.replace("/", "%2f")}`);
      if (!res.ok) return [];
      return Object.keys(((await res.json()) as { versions?: Record<string, unknown> }).versions ?? {});
    },
    close,
  };
}

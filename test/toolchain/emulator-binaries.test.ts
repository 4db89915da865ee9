/**
 * `npm run build:emulator-binaries` (scripts/build-emulator-binaries.js): the emulator's command
 * line as one self-contained executable per platform, SQLite on Node.js's built-in `node:sqlite`
 * (scripts/sea-better-sqlite3.js) instead of better-sqlite3. The script runs once; every
 * executable is of its platform's format and CPU with the bundle injected; then this machine's
 * (linux-amd64 in CI), copied out of the repository, runs with no `node` on PATH and no NODE_* variable, and
 * behaves as the npm package's command line (`node packages/emulator/dist/cli.js`) does:
 * - `--version`, `--help` and a bad flag print the same and exit the same;
 * - one script of requests (accounts and keys, create/read/update/delete/list of each kind,
 *   validation, idempotency replay and conflict, faults, key rotation, the request log) gets
 *   the same answers from both, IDs and times aside, each answer also checked on its own;
 * - a `--data` file outlives a restart, and the same file moves between the executable and the
 *   npm command line both ways;
 * - `--detach` and `stop` start and stop it in the background.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { freePort } from "../../scripts/postgres-server";
import { REPO_ROOT } from "../../scripts/pulumi-env";
import { CLI_PATH, apiRequest, operatorRequest, type RawResponse } from "../helpers/emulator";
import { destinationBody, subscriptionBody } from "../helpers/emulator-fixtures";
import { runBinariesBuild } from "../helpers/binaries-build";
import { useTempDir } from "../helpers/temp-dir";

/** A cold run fetches five Node.js binaries (about 30 MB each, packed) before it injects. */
const BUILD_TIMEOUT = 900_000;
const OUT = path.join(REPO_ROOT, "dist", "emulator-binaries");
const VERSION: string = JSON.parse(
  fs.readFileSync(path.join(REPO_ROOT, "packages", "emulator", "package.json"), "utf8"),
).version;
/** The fuse Node.js reads to know a blob was injected; postject turns its `:0` into `:1`. */
const FUSE_SET = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1";
const KEY = "key-sea";
const RESTRICTED = "key-sea-restricted";
const ADMIN = "admin-sea";

/** Each platform's header: ELF e_machine, Mach-O cputype, PE machine. */
const EXPECTED: Record<string, { format: string; machine: number }> = {
  "linux-amd64": { format: "ELF", machine: 0x3e },
  "linux-arm64": { format: "ELF", machine: 0xb7 },
  "darwin-amd64": { format: "Mach-O", machine: 0x01000007 },
  "darwin-arm64": { format: "Mach-O", machine: 0x0100000c },
  "windows-amd64": { format: "PE", machine: 0x8664 },
};

/** An executable's format and machine, from its first bytes. */
function header(file: string): { format: string; machine: number } {
  const head = Buffer.alloc(4096);
  const fd = fs.openSync(file, "r");
  try {
    fs.readSync(fd, head, 0, head.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (head.readUInt32BE(0) === 0x7f454c46) return { format: "ELF", machine: head.readUInt16LE(18) };
  if (head.readUInt32LE(0) === 0xfeedfacf) return { format: "Mach-O", machine: head.readUInt32LE(4) };
  if (head.toString("latin1", 0, 2) === "MZ") {
    const pe = head.readUInt32LE(0x3c);
    return { format: "PE", machine: head.readUInt16LE(pe + 4) };
  }
  return { format: "unknown", machine: 0 };
}

/** A command line of the emulator: the executable, or `node cli.js` of the npm package. */
interface Flavour {
  name: string;
  command: string;
  prefix: string[];
  env: NodeJS.ProcessEnv;
}

/** A started emulator: its JSON line's fields, its process, and how to stop it. */
interface Started {
  url: string;
  adminKey: string;
  child: ChildProcess;
  stderr: () => string;
  stop(): Promise<number | null>;
}

/** Starts `flavour` with `args`, resolves once it printed its JSON line. */
function start(flavour: Flavour, args: string[], cwd: string): Promise<Started> {
  const child = spawn(flavour.command, [...flavour.prefix, ...args], {
    cwd,
    env: flavour.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${flavour.name} printed no line in 30 s: ${err}`));
    }, 30_000);
    child.stdout!.on("data", () => {
      if (!out.includes("\n")) return;
      clearTimeout(timer);
      const info = JSON.parse(out.slice(0, out.indexOf("\n"))) as { url: string; adminKey: string };
      resolve({
        ...info,
        child,
        stderr: () => err,
        stop: () => {
          child.kill("SIGTERM");
          return exited;
        },
      });
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${flavour.name} exited with ${code} before its line: ${err}`));
    });
  });
}

/** Runs `flavour` with `args` to the end; its exit code, stdout and stderr. */
function runToEnd(flavour: Flavour, args: string[], cwd: string) {
  const r = spawnSync(flavour.command, [...flavour.prefix, ...args], {
    cwd,
    env: flavour.env,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** One answer, as both command lines must give it: status, the headers a client reads, the body. */
interface Answer {
  step: string;
  status: number;
  contentType?: string;
  replayed?: string;
  retryAfter?: string;
  operationId: boolean;
  body: unknown;
}

function answer(step: string, res: RawResponse): Answer {
  return {
    step,
    status: res.status,
    contentType: res.headers["content-type"],
    replayed: res.headers["idempotent-replayed"] as string | undefined,
    retryAfter: res.headers["retry-after"] as string | undefined,
    operationId: typeof res.headers["operation-id"] === "string",
    body: res.text === "" ? undefined : res.json(),
  };
}

/**
 * The same requests against the emulator at `url`: the answers, with IDs numbered in order of
 * appearance per kind, times and the base URL replaced, so two emulators' answers compare.
 */
async function script(url: string): Promise<Answer[]> {
  const answers: Answer[] = [];
  const call = async (step: string, key: string, method: string, p: string, body?: unknown, h = {}) => {
    const res = await apiRequest(url, key, method, p, body, h);
    answers.push(answer(step, res));
    return res;
  };
  const op = async (step: string, method: string, p: string, body?: unknown) => {
    const res = await operatorRequest(url, ADMIN, method, p, body);
    answers.push(answer(step, res));
    return res;
  };
  await call("unknown key", "key-nobody", "GET", "/event_destinations");
  await call("restricted key, abuse report", RESTRICTED, "POST", "/abuse_reports", {
    urls: ["https://a.test/"],
  });
  await call("bad destination", KEY, "POST", "/event_destinations", { target: { kinesis: {} } });
  const d = (await call("create destination", KEY, "POST", "/event_destinations", destinationBody())).json();
  await call("read destination", KEY, "GET", `/event_destinations/${d.id}`);
  await call("update destination", KEY, "PATCH", `/event_destinations/${d.id}`, { description: "renamed" });
  const s = (
    await call("create subscription", KEY, "POST", "/event_subscriptions", subscriptionBody([d.id]))
  ).json();
  await call("read subscription", KEY, "GET", `/event_subscriptions/${s.id}`);
  await call("update subscription", KEY, "PATCH", `/event_subscriptions/${s.id}`, { description: "s2" });
  await call("list subscriptions", KEY, "GET", "/event_subscriptions?limit=1");
  await call("delete referenced destination", KEY, "DELETE", `/event_destinations/${d.id}`);
  const a = (
    await call("create abuse report", KEY, "POST", "/abuse_reports", {
      urls: ["https://x.example.net/", "https://y.example.org/"],
      metadata: "ticket 7",
    })
  ).json();
  await op("review", "POST", `/_operator/abuse_reports/${a.id}/review`, {
    hostnames: [{ hostname: "x.example.net", status: "BANNED" }],
  });
  await call("read abuse report", KEY, "GET", `/abuse_reports/${a.id}`);
  const idem = { "idempotency-key": "idem-1" };
  for (const what of ["idempotent create", "idempotent replay"])
    await call(what, KEY, "POST", "/event_destinations", destinationBody({ description: "i" }), idem);
  await call(
    "idempotency conflict",
    KEY,
    "POST",
    "/event_destinations",
    destinationBody({ description: "j" }),
    idem,
  );
  await call("list destinations", KEY, "GET", "/event_destinations");
  await op("faults on", "PUT", "/_operator/faults", { status503: 1 });
  await call("faulted", KEY, "GET", "/event_destinations");
  await op("faults off", "PUT", "/_operator/faults", {});
  await op("add key", "POST", "/_operator/keys", { api_key: "key-sea-rotated", same_account_as: KEY });
  await call("rotated key", "key-sea-rotated", "GET", `/event_destinations/${d.id}`);
  await op("revoke key", "POST", "/_operator/keys/revoke", { api_key: "key-sea-rotated" });
  await call("revoked key", "key-sea-rotated", "GET", `/event_destinations/${d.id}`);
  await call("delete subscription", KEY, "DELETE", `/event_subscriptions/${s.id}`);
  await call("delete destination", KEY, "DELETE", `/event_destinations/${d.id}`);
  await call("deleted destination", KEY, "GET", `/event_destinations/${d.id}`);
  const log = await operatorRequest(url, ADMIN, "GET", "/_operator/requests");
  answers.push(answer("request log", log));

  // IDs by kind and order of appearance, times, the URL: what differs between two runs.
  const ids = new Map<string, string>();
  const text = JSON.stringify(answers)
    .split(url)
    .join("<url>")
    .replace(/\b(abrp|esb|ed|op|acct)_[0-9A-Za-z]{27}\b/g, (id, prefix: string) => {
      if (!ids.has(id))
        ids.set(id, `${prefix}_#${[...ids.keys()].filter((k) => k.startsWith(prefix)).length}`);
      return ids.get(id)!;
    })
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, "<time>");
  return JSON.parse(text) as Answer[];
}

describe("the emulator as self-contained executables (scripts/build-emulator-binaries.js)", () => {
  const tmp = useTempDir("emulator-binaries-");
  let built: Map<string, { bytes: number; path: string }>;
  let exe: Flavour;
  let npm: Flavour;

  beforeAll(() => {
    built = runBinariesBuild("build-emulator-binaries.js", BUILD_TIMEOUT);
    // This machine's executable (linux-amd64 in CI), outside the repository, with a PATH of one
    // folder that holds no node, and no NODE_* variable.
    const os: Record<string, string> = { linux: "linux", darwin: "darwin", win32: "windows" };
    const arch: Record<string, string> = { x64: "amd64", arm64: "arm64" };
    const host = `${os[process.platform]}-${arch[process.arch]}`;
    if (!built.has(host))
      throw new Error(`no executable of this platform (${host}) among ${[...built.keys()].join(", ")}`);
    const copy = path.join(tmp(), path.basename(built.get(host)!.path));
    fs.copyFileSync(built.get(host)!.path, copy);
    fs.chmodSync(copy, 0o755);
    const bin = path.join(tmp(), "bin");
    fs.mkdirSync(bin);
    exe = { name: "the executable", command: copy, prefix: [], env: { PATH: bin, HOME: tmp() } };
    npm = {
      name: "node cli.js",
      command: process.execPath,
      prefix: [CLI_PATH],
      env: { PATH: process.env.PATH, HOME: tmp() },
    };
  }, BUILD_TIMEOUT);

  it("prints one line per platform, each an executable of its format and CPU with the bundle injected", () => {
    expect([...built.keys()]).toEqual(Object.keys(EXPECTED));
    const bundle = fs.readFileSync(path.join(OUT, ".build", "service-emulator.js"));
    const piece = bundle.subarray(Math.floor(bundle.length / 2), Math.floor(bundle.length / 2) + 4096);
    for (const [name, b] of built) {
      const file = name.startsWith("windows") ? "service-emulator.exe" : "service-emulator";
      expect(b.path).toBe(path.join(OUT, name, file));
      const bytes = fs.readFileSync(b.path);
      expect({ name, size: bytes.length, ...header(b.path), fuse: bytes.includes(FUSE_SET) }).toEqual({
        name,
        size: b.bytes,
        ...EXPECTED[name],
        fuse: true,
      });
      expect(bytes.includes(piece)).toBe(true);
    }
    // better-sqlite3 is not in the bundle; node:sqlite is.
    expect(bundle.includes("node:sqlite")).toBe(true);
    expect(bundle.includes("better_sqlite3.node")).toBe(false);
  });

  describe("this platform's executable without Node.js, against the npm command line", () => {
    it("answers --version, --help and a bad flag as the npm command line does", () => {
      expect(spawnSync("sh", ["-c", "command -v node"], { env: exe.env }).status).not.toBe(0);
      const version = runToEnd(exe, ["--version"], tmp());
      expect(version).toEqual({ status: 0, stdout: `${VERSION}\n`, stderr: "" });
      expect(VERSION).toBe("0.2.0");
      const help = runToEnd(exe, ["--help"], tmp());
      expect(help.status).toBe(0);
      expect(help.stdout).toContain("--data <path>");
      expect(help).toEqual(runToEnd(npm, ["--help"], tmp()));
      const bad = runToEnd(exe, ["--port", "nope"], tmp());
      expect(bad.status).toBe(1);
      expect(bad.stderr).toContain("--port");
      expect(bad).toEqual(runToEnd(npm, ["--port", "nope"], tmp()));
    });

    it("gives the npm command line's answers to one script of requests, each as the service's rules say", async () => {
      const args = (name: string) => [
        "--port",
        "0",
        "--data",
        path.join(tmp(), `${name}.db`),
        "--api-key",
        KEY,
        "--restricted-api-key",
        RESTRICTED,
        "--admin-key",
        ADMIN,
      ];
      const results: Answer[][] = [];
      for (const [flavour, name] of [
        [exe, "script-exe"],
        [npm, "script-npm"],
      ] as const) {
        const em = await start(flavour, args(name), tmp());
        try {
          results.push(await script(em.url));
        } finally {
          expect(await em.stop()).toBe(0);
        }
        // Nothing else on stderr: no warning of node:sqlite's, no error.
        expect(em.stderr()).toBe("service-emulator: SIGTERM, stopping\n");
      }
      const [fromExe, fromNpm] = results;
      expect(fromExe.map((a) => [a.step, a.status])).toEqual([
        ["unknown key", 401],
        ["restricted key, abuse report", 403],
        ["bad destination", 400],
        ["create destination", 201],
        ["read destination", 200],
        ["update destination", 200],
        ["create subscription", 201],
        ["read subscription", 200],
        ["update subscription", 200],
        ["list subscriptions", 200],
        ["delete referenced destination", 409],
        ["create abuse report", 201],
        ["review", 200],
        ["read abuse report", 200],
        ["idempotent create", 201],
        ["idempotent replay", 201],
        ["idempotency conflict", 409],
        ["list destinations", 200],
        ["faults on", 200],
        ["faulted", 503],
        ["faults off", 200],
        ["add key", 201],
        ["rotated key", 200],
        ["revoke key", 200],
        ["revoked key", 401],
        ["delete subscription", 204],
        ["delete destination", 204],
        ["deleted destination", 404],
        ["request log", 200],
      ]);
      const at = (step: string) => fromExe.find((a) => a.step === step)!;
      expect(at("idempotent replay").replayed).toBe("true");
      expect(at("idempotent replay").body).toEqual(at("idempotent create").body);
      expect(at("read destination").body).toMatchObject({
        id: "ed_#0",
        uri: "<url>/event_destinations/ed_#0",
      });
      expect(at("read abuse report").body).toMatchObject({ status: "PARTIALLY_PROCESSED" });
      expect(
        (at("list destinations").body as { event_destinations: unknown[] }).event_destinations,
      ).toHaveLength(2);
      expect((at("request log").body as { requests: unknown[] }).requests).toHaveLength(
        fromExe.filter(
          (a) =>
            !["review", "faults on", "faults off", "add key", "revoke key", "request log"].includes(a.step),
        ).length,
      );
      expect(fromExe).toEqual(fromNpm);
    });

    it("keeps a --data file across restarts, and the file moves between it and the npm command line", async () => {
      const data = path.join(tmp(), "persist", "data.db");
      const args = ["--port", "0", "--data", data, "--api-key", KEY, "--admin-key", ADMIN];
      let em = await start(exe, args, tmp());
      const created = (
        await apiRequest(em.url, KEY, "POST", "/event_destinations", destinationBody())
      ).json();
      expect(created.id).toMatch(/^ed_/);
      expect(await em.stop()).toBe(0);

      em = await start(exe, args, tmp());
      const again = await apiRequest(em.url, KEY, "GET", `/event_destinations/${created.id}`);
      expect(again.status).toBe(200);
      expect(again.json().id).toBe(created.id);
      // A second one, after the first: IDs keep sorting by creation across the restart.
      const second = (await apiRequest(em.url, KEY, "POST", "/event_destinations", destinationBody())).json();
      expect(second.id > created.id).toBe(true);
      expect(await em.stop()).toBe(0);

      em = await start(npm, args, tmp());
      const listed = (await apiRequest(em.url, KEY, "GET", "/event_destinations")).json();
      expect(listed.event_destinations.map((d: { id: string }) => d.id)).toEqual([second.id, created.id]);
      const third = (await apiRequest(em.url, KEY, "POST", "/event_destinations", destinationBody())).json();
      expect(await em.stop()).toBe(0);

      em = await start(exe, args, tmp());
      const last = await apiRequest(em.url, KEY, "GET", `/event_destinations/${third.id}`);
      expect(last.status).toBe(200);
      expect(await em.stop()).toBe(0);
    });

    it("listens on the --port given, and --detach / stop run it in the background", async () => {
      const port = await freePort();
      const pidFile = path.join(tmp(), "bg", "emulator.pid");
      const detached = runToEnd(
        exe,
        ["--detach", "--port", String(port), "--data", ":memory:", "--api-key", KEY, "--pid-file", pidFile],
        tmp(),
      );
      expect(detached.status).toBe(0);
      const info = JSON.parse(detached.stdout);
      expect(info.url).toBe(`http://127.0.0.1:${port}`);
      expect(info.pid).toBe(Number(fs.readFileSync(pidFile, "utf8").trim()));
      const res = await apiRequest(info.url, KEY, "GET", "/event_destinations");
      expect(res.status).toBe(200);
      const stopped = runToEnd(exe, ["stop", "--pid-file", pidFile], tmp());
      expect(stopped.status).toBe(0);
      expect(fs.existsSync(pidFile)).toBe(false);
      await expect(apiRequest(info.url, KEY, "GET", "/event_destinations")).rejects.toThrow();
    });
  });
});

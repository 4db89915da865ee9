/**
 * A throw-away PostgreSQL server for the tests and benchmarks that keep Pulumi state the way a
 * team does (`PULUMI_BACKEND_URL=postgres://…`; test/e2e/teams.test.ts, bench/scale.ts): a
 * temporary data folder made by `initdb` (as the unprivileged `postgres` user when run as root,
 * since initdb refuses root), listening on loopback only, on a free port, with trust
 * authentication; one database per test file or benchmark backend; the server stopped and its
 * folder deleted at the end, also when the process exits early.
 *
 * The binaries are looked for in `$PG_BIN`, then `/usr/lib/postgresql/<version>/bin`, then on
 * `PATH`. Without them, {@link startPostgres} throws an error that says how to get them.
 */
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { Client } from "pg";

/** A running throw-away server. */
export interface RunningPostgres {
  /** Loopback port it listens on. */
  port: number;
  /** `postgres://postgres@127.0.0.1:<port>/<database>?sslmode=disable`, for Pulumi and `pg`. */
  url(database: string): string;
  /** Creates an empty database and returns its name. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server (immediate shutdown) and deletes its data folder. Safe to call twice. */
  stop(): void;
}

/** The folder holding `initdb`, `pg_ctl` and `postgres`, or `undefined`. */
export function findPostgresBin(): string | undefined {
  const has = (dir: string) =>
    ["initdb", "pg_ctl", "postgres"].every((b) => fs.existsSync(path.join(dir, b)));
  if (process.env.PG_BIN && has(process.env.PG_BIN)) return process.env.PG_BIN;
  const root = "/usr/lib/postgresql";
  if (fs.existsSync(root)) {
    const versions = fs
      .readdirSync(root)
      .filter((v) => has(path.join(root, v, "bin")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length > 0) return path.join(root, versions[0], "bin");
  }
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) if (dir && has(dir)) return dir;
  return undefined;
}

/**
 * The first and last port the system hands out for `listen(0)` and outgoing connections (Linux's
 * `ip_local_port_range`; its default, 32768–60999, where that file cannot be read).
 */
function ephemeralPorts(): [number, number] {
  try {
    const [first, last] = fs
      .readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8")
      .trim()
      .split(/\s+/)
      .map(Number);
    if (first > 0 && last >= first) return [first, last];
  } catch {
    // Not Linux, or no /proc: the default range.
  }
  return [32768, 60999];
}

/** Listens on 127.0.0.1:`port` (0: one the system picks) and closes again; the port, or null when taken. */
function tryPort(port: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", (err: NodeJS.ErrnoException) =>
      err.code === "EADDRINUSE" || err.code === "EACCES" ? resolve(null) : reject(err),
    );
    server.listen(port, "127.0.0.1", () => {
      const { port: bound } = server.address() as net.AddressInfo;
      server.close(() => resolve(bound));
    });
  });
}

/** The lowest port {@link freePort} draws from. */
const FREE_PORT_FLOOR = 10_000;

/**
 * A TCP port of 127.0.0.1 that nothing listens on now, for a server another process starts.
 * Drawn at random below the system's ephemeral range (10000 up to its first port), where no
 * socket of another program gets it between this check and that server's `listen` (a port of the
 * ephemeral range can go to any outgoing connection or `listen(0)` of the machine meanwhile);
 * a port found taken is drawn again, 50 times at most, and then the system picks one.
 * @throws Error when listening fails for another reason than a taken port.
 */
export async function freePort(): Promise<number> {
  const [first] = ephemeralPorts();
  for (let i = 0; first > FREE_PORT_FLOOR && i < 50; i++) {
    const port = await tryPort(FREE_PORT_FLOOR + Math.floor(Math.random() * (first - FREE_PORT_FLOOR)));
    if (port !== null) return port;
  }
  const port = await tryPort(0);
  if (port === null) throw new Error("no free TCP port on 127.0.0.1");
  return port;
}

/** Runs a PostgreSQL binary, as the `postgres` user when this process is root. */
function asServerUser(bin: string, args: string[]): void {
  const root = process.getuid?.() === 0;
  const [cmd, argv] = root ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
  execFileSync(cmd, argv, { stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 });
}

/**
 * Starts a server in a new temporary folder and waits until it accepts connections.
 *
 * @throws Error naming what to install when no PostgreSQL binaries are found, or the server's
 *   log when it does not start.
 */
export async function startPostgres(): Promise<RunningPostgres> {
  const bin = findPostgresBin();
  if (!bin) {
    throw new Error(
      "No PostgreSQL server binaries (initdb, pg_ctl, postgres): install them (`apt-get install postgresql`, " +
        "which .ci/run does when they are missing) or set PG_BIN to their folder.",
    );
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-service-pg-"));
  const data = path.join(dir, "data");
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    fs.chownSync(dir, uid, gid);
  }
  const port = await freePort();
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    process.removeListener("exit", stop);
    if (fs.existsSync(path.join(data, "postmaster.pid"))) {
      const root = process.getuid?.() === 0;
      const args = ["-D", data, "-m", "immediate", "-w", "stop"];
      const pgCtl = path.join(bin, "pg_ctl");
      spawnSync(root ? "runuser" : pgCtl, root ? ["-u", "postgres", "--", pgCtl, ...args] : args, {
        stdio: "ignore",
        timeout: 60_000,
      });
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", stop);
  try {
    asServerUser(path.join(bin, "initdb"), [
      "-D",
      data,
      "-U",
      "postgres",
      "--auth=trust",
      "-E",
      "UTF8",
      "--no-sync",
    ]);
    const options = `-p ${port} -h 127.0.0.1 -k ${dir} -c fsync=off -c max_connections=200`;
    asServerUser(path.join(bin, "pg_ctl"), [
      "-D",
      data,
      "-o",
      options,
      "-l",
      path.join(dir, "server.log"),
      "-w",
      "start",
    ]);
  } catch (err) {
    const log = fs.existsSync(path.join(dir, "server.log"))
      ? fs.readFileSync(path.join(dir, "server.log"), "utf8")
      : "";
    const out = (err as { stderr?: Buffer }).stderr?.toString() ?? "";
    stop();
    throw new Error(`PostgreSQL did not start: ${(err as Error).message}\n${out}\n${log}`);
  }
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}?sslmode=disable`;
  return {
    port,
    url,
    async createDatabase(name) {
      const client = new Client({ connectionString: url("postgres") });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      } finally {
        await client.end();
      }
      return name;
    },
    stop,
  };
}

#!/usr/bin/env node
/**
 * Command line of the emulator: `service-emulator` (package bin) and `npm run emulator`.
 *
 * ```
 * service-emulator --port 8787 --host 127.0.0.1 --data .emulator/data.db \
 *   --api-key KEY --restricted-api-key KEY2 --admin-key ADMIN \
 *   --public-url http://127.0.0.1:8787 --rate-limit 120/60s --review-delay 30s \
 *   --faults 503:0.1,429:0.05,reset:0.02,reset-after:0.01,latency:200ms [--no-idempotency-keys] \
 *   --max-idempotency-keys 1000 --max-abuse-reports 1000 \
 *   [--detach] [--pid-file .emulator/emulator.pid] [--log-file .emulator/emulator.log]
 * service-emulator stop [--pid-file .emulator/emulator.pid] [--timeout 10s]
 * ```
 *
 * Keys also come from the environment: `SERVICE_EMULATOR_API_KEYS` and
 * `SERVICE_EMULATOR_RESTRICTED_API_KEYS` (comma-separated), `SERVICE_EMULATOR_ADMIN_KEY`. With no
 * key at all it makes one authorized account with a random key; without an admin key it makes a
 * random one.
 *
 * On start it prints exactly one line of JSON to stdout,
 * `{"url":"http://127.0.0.1:PORT","apiKeys":[...],"restrictedApiKeys":[...],"adminKey":"..."}`,
 * and nothing else; logs and warnings go to stderr. SIGINT or SIGTERM closes the server and the
 * database and exits 0. `--version` (`-V`) prints the package's version and `--help` the usage,
 * both on stdout, and exit 0 without starting. Exit codes: {@link EXIT_CODES} (docs/cli.md).
 *
 * `--detach` starts the same server as a background process (its own session, its stderr appended
 * to the log file), waits until it listens, prints the same JSON line with `pid`, `pidFile` and
 * `logFile` added, and exits 0 (1 when the server did not start: its error is printed). The
 * server writes its PID to the PID file once it listens and removes it when it stops.
 * `service-emulator stop` sends SIGTERM to the PID in the PID file and waits until it has exited.
 *
 * @packageDocumentation
 */
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Command, CommanderError, InvalidArgumentError } from "commander";
import { EMULATOR_DEFAULT_PORT } from "service-contract";
import { ABUSE_REPORTS_PER_ACCOUNT, IDEMPOTENCY_KEYS_PER_ACCOUNT, TOKEN_PATTERN } from "./app";
import { parseDuration, parseFaults, parseRateLimit, type FaultConfig } from "./faults";
import { randomKey, startEmulator, type RunningEmulator } from "./start";

/**
 * Where the command line writes, and the environment it reads (`SERVICE_EMULATOR_*`); tests
 * pass their own. The same shape as the package's other command lines.
 */
export interface CliIo {
  /** Standard output: one JSON line once listening (or the usage, or the version). */
  stdout: (text: string) => Promise<void>;
  /** Standard error: warnings, usage and errors. */
  stderr: (text: string) => Promise<void>;
  env: Record<string, string | undefined>;
}

function writer(stream: NodeJS.WriteStream): (text: string) => Promise<void> {
  return (text) => new Promise<void>((resolve) => stream.write(text, () => resolve()));
}

/** The process's own streams and environment. */
export const processIo: CliIo = {
  stdout: writer(process.stdout),
  stderr: writer(process.stderr),
  env: process.env,
};

/**
 * Exit codes of `service-emulator`: the numbers of the table in docs/cli.md that every command
 * line of the three packages shares (this package cannot import the others' constants; a test
 * compares them with the table).
 */
export const EXIT_CODES = {
  /** Stopped cleanly by SIGINT or SIGTERM, or `--help` / `--version` printed. */
  ok: 0,
  /** A bad command line, or the emulator could not start (message on stderr). */
  error: 1,
} as const;

/**
 * The version of this package (`service-emulator`), read at run time from the nearest
 * `package.json` above this file named so (the package's own, from the sources and from `dist/`).
 *
 * @throws Error when there is none.
 */
function emulatorVersion(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    try {
      const m = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as Record<string, string>;
      if (m.name === "service-emulator" && m.version) return m.version;
    } catch {
      // no (readable) package.json here: look further up
    }
    if (path.dirname(dir) === dir) throw new Error(`no package.json of service-emulator above ${__dirname}`);
  }
}

/** Parsed command-line options. */
interface CliOptions {
  port: number;
  host: string;
  data: string;
  apiKey: string[];
  restrictedApiKey: string[];
  adminKey?: string;
  publicUrl?: string;
  rateLimit?: { max: number; windowMs: number };
  reviewDelay?: number;
  faults?: FaultConfig;
  /** `false` with `--no-idempotency-keys`. */
  idempotencyKeys: boolean;
  maxIdempotencyKeys?: number;
  maxAbuseReports?: number;
  verbose?: boolean;
  /** `--detach`: start in the background and exit once it listens. */
  detach?: boolean;
  /** `--pid-file`: where the PID goes once listening (default with `--detach`). */
  pidFile?: string;
  /** `--log-file`: the background server's stderr (only with `--detach`). */
  logFile?: string;
}

/** PID file of `--detach` and `stop` when none is given. */
export const DEFAULT_PID_FILE = ".emulator/emulator.pid";

/** Environment variable marking the background process of `--detach` (its line goes over IPC). */
const DETACHED_ENV = "SERVICE_EMULATOR_DETACHED";

/** How long `--detach` waits for the background server to listen, in milliseconds. */
const DETACH_TIMEOUT_MS = 60_000;

function argParser<T>(parse: (s: string) => T): (s: string) => T {
  return (s) => {
    try {
      return parse(s);
    } catch (e) {
      throw new InvalidArgumentError((e as Error).message);
    }
  };
}

const collect = (value: string, previous: string[]) => [...previous, value];

function parsePort(s: string): number {
  const n = Number(s);
  if (!/^\d+$/.test(s) || n > 65535) throw new Error(`invalid port ${JSON.stringify(s)}`);
  return n;
}

function parseCount(s: string): number {
  const n = Number(s);
  if (!/^\d+$/.test(s) || !Number.isSafeInteger(n) || n < 1)
    throw new Error(`must be a whole number from 1 up, got ${JSON.stringify(s)}`);
  return n;
}

function parsePublicUrl(s: string): string {
  const u = new URL(s);
  if (u.protocol !== "http:" && u.protocol !== "https:")
    throw new Error("the public URL must be http or https");
  return s.replace(/\/+$/, "");
}

function envList(env: CliIo["env"], name: string): string[] {
  return (env[name] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/**
 * Runs `service-emulator` with `argv` (as `process.argv`): parses the options, starts the
 * emulator and prints one JSON line `{ url, apiKeys, restrictedApiKeys, adminKey }` on stdout.
 *
 * @returns the running emulator, or an exit code ({@link EXIT_CODES}) when it did not start (0
 *   after `--help` or `--version`, 1 for a bad command line).
 * @throws Error when a key is malformed, the port is taken or the data file cannot be opened.
 */
export async function main(
  argv: readonly string[],
  io: CliIo = processIo,
): Promise<RunningEmulator | number> {
  if (argv[2] === "stop") return stop(argv.slice(3), io);
  const program = new Command()
    .name("service-emulator")
    .description("Local emulator of the abuse reports, event subscriptions and event destinations API")
    .option("--port <port>", "TCP port; 0 picks a free one", argParser(parsePort), EMULATOR_DEFAULT_PORT)
    .option("--host <host>", "interface to bind", "127.0.0.1")
    .option("--data <path>", 'SQLite data file (":memory:" for none)', ".emulator/data.db")
    .option("--api-key <key>", "API key of an account authorized for abuse reports (repeatable)", collect, [])
    .option(
      "--restricted-api-key <key>",
      "API key of an account not authorized for abuse reports (repeatable)",
      collect,
      [],
    )
    .option("--admin-key <key>", "key of the /_operator endpoints (default: random)")
    .option(
      "--public-url <url>",
      "base of uri fields (default: the listening URL; the Host header is never used)",
      argParser(parsePublicUrl),
    )
    .option(
      "--rate-limit <max/window>",
      "per-account limit, e.g. 120/60s (off by default)",
      argParser(parseRateLimit),
    )
    .option(
      "--review-delay <duration>",
      "review pending hostnames automatically after this long, e.g. 30s (off by default)",
      argParser((s) => parseDuration(s, "s")),
    )
    .option(
      "--faults <spec>",
      "fault injection, e.g. 503:0.1,429:0.05,reset:0.02,reset-after:0.01,latency:200ms",
      argParser(parseFaults),
    )
    .option(
      "--no-idempotency-keys",
      "ignore Idempotency-Key headers, like a server without the feature (honoured by default)",
    )
    .option(
      "--max-idempotency-keys <n>",
      `Idempotency-Key responses kept per account; storing one more forgets the oldest (default ${IDEMPOTENCY_KEYS_PER_ACCOUNT})`,
      argParser(parseCount),
    )
    .option(
      "--max-abuse-reports <n>",
      `abuse reports per account; creates beyond it answer 409 / 241 (default ${ABUSE_REPORTS_PER_ACCOUNT})`,
      argParser(parseCount),
    )
    .option("--verbose", "log every request to stderr")
    .version(emulatorVersion())
    .option(
      "--detach",
      "start in the background: wait until it listens, print its JSON line with its pid, exit",
    )
    .option(
      "--pid-file <path>",
      `write the PID here once listening, removed on stop (with --detach, default ${DEFAULT_PID_FILE})`,
    )
    .option(
      "--log-file <path>",
      "with --detach: file the server's stderr is appended to (default: next to the PID file)",
    )
    .addHelpText("after", "\nStop a detached emulator: service-emulator stop [--pid-file <path>]")
    .exitOverride()
    .configureOutput({ writeOut: (s) => void io.stdout(s), writeErr: (s) => void io.stderr(s) });
  try {
    program.parse([...argv]);
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.error;
    throw err;
  }
  const o = program.opts<CliOptions>();

  const apiKeys = [...new Set([...o.apiKey, ...envList(io.env, "SERVICE_EMULATOR_API_KEYS")])];
  const restrictedApiKeys = [
    ...new Set([...o.restrictedApiKey, ...envList(io.env, "SERVICE_EMULATOR_RESTRICTED_API_KEYS")]),
  ];
  if (apiKeys.length === 0 && restrictedApiKeys.length === 0) apiKeys.push(randomKey());
  const adminKey = o.adminKey ?? io.env.SERVICE_EMULATOR_ADMIN_KEY ?? randomKey("admin_");
  for (const k of [...apiKeys, ...restrictedApiKeys, adminKey]) {
    if (!TOKEN_PATTERN.test(k)) throw new Error("keys must be 1-512 characters of A-Z a-z 0-9 . _ ~ + / = -");
  }
  if (o.detach) return detach(argv, o, io);
  if (!LOOPBACK.has(o.host)) {
    await io.stderr(
      `service-emulator: warning: listening on ${o.host}, reachable from other machines; the emulator is for local use\n`,
    );
  }
  const emulator = await startEmulator({
    port: o.port,
    host: o.host,
    data: o.data,
    apiKeys,
    restrictedApiKeys,
    adminKey,
    publicUrl: o.publicUrl,
    rateLimit: o.rateLimit,
    reviewDelayMs: o.reviewDelay,
    faults: o.faults,
    idempotencyKeys: o.idempotencyKeys,
    limits: { idempotencyKeysPerAccount: o.maxIdempotencyKeys, abuseReportsPerAccount: o.maxAbuseReports },
    logger: o.verbose ? "info" : "warn",
  });
  if (o.pidFile !== undefined) {
    try {
      mkdirSync(path.dirname(path.resolve(o.pidFile)), { recursive: true });
      writeFileSync(o.pidFile, `${process.pid}\n`);
    } catch (e) {
      await emulator.close();
      throw e;
    }
    const close = emulator.close.bind(emulator);
    const pidFile = path.resolve(o.pidFile);
    emulator.close = () => close().then(() => removePidFile(pidFile, process.pid));
  }
  await io.stdout(JSON.stringify({ url: emulator.url, apiKeys, restrictedApiKeys, adminKey }) + "\n");
  return emulator;
}

/** The PID in `file`, or `undefined` when the file is missing or holds no PID. */
function readPid(file: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  return /^\d+\s*$/.test(text) ? Number(text) : undefined;
}

/** Removes the PID file if it still names `pid` (a newer emulator may have taken it over). */
function removePidFile(file: string, pid: number): void {
  if (readPid(file) === pid) rmSync(file, { force: true });
}

/** Whether process `pid` exists and is not a zombie (exited, not yet reaped). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    // Linux: the third field of /proc/<pid>/stat is the state; Z is a zombie.
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `--detach`: starts the same command line, without `--detach` and with a PID file, as a
 * background process in a session of its own, its stdout and stderr appended to the log file.
 * Waits until it listens (its JSON line arrives over IPC), prints that line with `pid`,
 * `pidFile` and `logFile` added, and how to stop it on stderr.
 *
 * @returns 0 once it listens; 1 when an emulator of the same PID file is already running, or
 *   the server exited or did not listen within 60 s (its log is printed on stderr).
 */
async function detach(argv: readonly string[], o: CliOptions, io: CliIo): Promise<number> {
  const pidFile = path.resolve(o.pidFile ?? DEFAULT_PID_FILE);
  const logFile = path.resolve(o.logFile ?? pidFile.replace(/\.pid$/, "") + ".log");
  const running = readPid(pidFile);
  if (running !== undefined && alive(running)) {
    await io.stderr(
      `service-emulator: already running (PID ${running}, from ${pidFile}); stop it first: service-emulator stop --pid-file ${pidFile}\n`,
    );
    return 1;
  }
  mkdirSync(path.dirname(pidFile), { recursive: true });
  mkdirSync(path.dirname(logFile), { recursive: true });
  const logStart = (() => {
    try {
      return readFileSync(logFile).length;
    } catch {
      return 0;
    }
  })();
  const log = openSync(logFile, "a");
  const args = argv.slice(2).filter((a) => a !== "--detach");
  if (o.pidFile === undefined) args.push("--pid-file", pidFile);
  const child = spawn(process.execPath, [__filename, ...args], {
    detached: true,
    stdio: ["ignore", log, log, "ipc"],
    env: { ...io.env, [DETACHED_ENV]: "1" },
  });
  closeSync(log);
  const outcome = await new Promise<{ line: string } | { exit: string }>((resolve) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve({ exit: `did not listen within ${DETACH_TIMEOUT_MS / 1000} s` });
    }, DETACH_TIMEOUT_MS);
    child.once("message", (line) => {
      clearTimeout(timer);
      resolve({ line: String(line) });
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ exit: signal ? `was killed by ${signal}` : `exited with code ${code}` });
    });
    child.once("error", (e) => {
      clearTimeout(timer);
      resolve({ exit: `could not be started: ${e.message}` });
    });
  });
  if ("exit" in outcome) {
    let output = "";
    try {
      output = readFileSync(logFile).subarray(logStart).toString("utf8");
    } catch {
      // no log: nothing to add
    }
    await io.stderr(`service-emulator: the background emulator ${outcome.exit}\n${output}`);
    return 1;
  }
  child.disconnect();
  child.unref();
  const started = JSON.parse(outcome.line) as Record<string, unknown>;
  await io.stdout(JSON.stringify({ ...started, pid: child.pid, pidFile, logFile }) + "\n");
  const stopHint = o.pidFile === undefined ? "" : ` --pid-file ${o.pidFile}`;
  await io.stderr(
    `service-emulator: listening on ${String(started.url)} in the background (PID ${child.pid}, log ${logFile}); stop it with: npx service-emulator stop${stopHint}\n`,
  );
  return 0;
}

/**
 * `service-emulator stop [--pid-file <path>] [--timeout <duration>]`: sends SIGTERM to the
 * emulator whose PID is in the PID file (default {@link DEFAULT_PID_FILE}) and waits until it
 * has exited, which closes its database first.
 *
 * @returns 0 once it has exited; 1 when there is no PID file, no such process (the stale PID file
 *   is removed), or it still runs after the timeout (default 10 s).
 */
async function stop(args: readonly string[], io: CliIo): Promise<number> {
  const program = new Command()
    .name("service-emulator stop")
    .description(
      "Stop an emulator started with --detach: SIGTERM to the PID of its PID file, then wait until it has exited",
    )
    .option("--pid-file <path>", "the PID file the emulator wrote", DEFAULT_PID_FILE)
    .option(
      "--timeout <duration>",
      "how long to wait for it to exit, e.g. 30s (default 10s; a bare number is seconds)",
      argParser((s) => parseDuration(s, "s")),
    )
    .exitOverride()
    .configureOutput({ writeOut: (s) => void io.stderr(s), writeErr: (s) => void io.stderr(s) });
  try {
    program.parse(["node", "service-emulator stop", ...args]);
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 1;
    throw err;
  }
  const o = program.opts<{ pidFile: string; timeout?: number }>();
  const timeoutMs = o.timeout ?? 10_000;
  const pidFile = path.resolve(o.pidFile);
  const pid = readPid(pidFile);
  if (pid === undefined) {
    await io.stderr(`service-emulator: no emulator to stop: no PID in ${pidFile}\n`);
    return 1;
  }
  if (!alive(pid)) {
    rmSync(pidFile, { force: true });
    await io.stderr(
      `service-emulator: no process with PID ${pid} (from ${pidFile}); removed the stale PID file\n`,
    );
    return 1;
  }
  process.kill(pid, "SIGTERM");
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) {
      await io.stderr(`service-emulator: PID ${pid} still runs ${timeoutMs / 1000} s after SIGTERM\n`);
      return 1;
    }
    await sleep(50);
  }
  await io.stdout(`stopped the emulator (PID ${pid})\n`);
  return 0;
}

if (require.main === module) {
  const fail = async (e: unknown) => {
    await processIo.stderr(`service-emulator: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(EXIT_CODES.error);
  };
  // The background process of --detach sends its JSON line to the command that started it.
  const detached = process.env[DETACHED_ENV] === "1" && typeof process.send === "function";
  const io: CliIo = detached
    ? {
        ...processIo,
        stdout: (text) => new Promise((resolve) => process.send!(text.trim(), () => resolve())),
      }
    : processIo;
  main(process.argv, io).then((started) => {
    if (typeof started === "number") process.exit(started);
    if (detached) process.disconnect();
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      void processIo.stderr(`service-emulator: ${signal}, stopping\n`);
      started.close().then(() => process.exit(EXIT_CODES.ok), fail);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  }, fail);
}

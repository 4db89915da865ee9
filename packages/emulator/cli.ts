#!/usr/bin/env node
/**
 * Command line of the emulator: `service-emulator` (package bin) and `npm run emulator`.
 *
 * ```
 * service-emulator --port 8787 --host 127.0.0.1 --data .emulator/data.db \
 *   --api-key KEY --restricted-api-key KEY2 --admin-key ADMIN \
 *   --public-url http://127.0.0.1:8787 --rate-limit 120/60s [--rate-limit-burst 40] \
 *   --latency-ms 150 --latency-jitter-ms 20 --review-delay 30s \
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
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Command } from "commander";
import { EMULATOR_DEFAULT_PORT } from "service-contract";
import {
  EXIT_CODES as CLI_EXIT_CODES,
  exitWithError,
  packageVersion,
  parseCommandLine,
  processIo,
  wireCommand,
  type CliIo,
} from "service-cli-kit";
import { ABUSE_REPORTS_PER_ACCOUNT, IDEMPOTENCY_KEYS_PER_ACCOUNT } from "./app";
import {
  argParser,
  collect,
  combineLimits,
  parseBurst,
  parseLatencyMs,
  parseCount,
  parsePort,
  parsePublicUrl,
  startKeys,
  type CliOptions,
  type StartKeys,
} from "./cliOptions";
import { DEFAULT_PID_FILE, DETACHED_ENV, detach, removePidFile, stop } from "./detach";
import { parseDuration, parseFaults, parseRateLimit } from "./faults";
import { startEmulator, type RunningEmulator, type StartEmulatorOptions } from "./start";

export { processIo, type CliIo } from "service-cli-kit";
export { DEFAULT_PID_FILE } from "./detach";

/**
 * Exit codes of `service-emulator`: those of the table in docs/cli.md that it uses (the three
 * command lines share the table, `service-cli-kit`; a test compares them).
 */
export const EXIT_CODES = {
  /** Stopped cleanly by SIGINT or SIGTERM, or `--help` / `--version` printed. */
  ok: CLI_EXIT_CODES.ok,
  /** A bad command line, or the emulator could not start (message on stderr). */
  error: CLI_EXIT_CODES.error,
} as const;

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/**
 * The command line of `service-emulator` (everything but `stop`): its options with their parsers
 * and defaults, `--version` and `--help`, wired to `io` ({@link wireCommand}): parsing it throws
 * instead of exiting, so it is run with {@link parseCommandLine}.
 */
function emulatorCommand(io: CliIo): Command {
  return wireCommand(new Command(), io)
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
      "--rate-limit-burst <n>",
      "with --rate-limit: a token bucket of this many requests, refilled at that rate (default: a rolling window)",
      argParser(parseBurst),
    )
    .option(
      "--latency-ms <ms>",
      "round trip added to every answer of the public API, in milliseconds, 0 to 600000 (off by default; PUT /_operator/faults changes it)",
      argParser(parseLatencyMs),
    )
    .option(
      "--latency-jitter-ms <ms>",
      "jitter of --latency-ms: each round trip drawn within latency ± this (0 to --latency-ms; default 0)",
      argParser(parseLatencyMs),
    )
    .option(
      "--review-delay <duration>",
      "review pending hostnames automatically after this long, e.g. 30s (off by default)",
      argParser((s) => parseDuration(s, "s")),
    )
    .option(
      "--faults <spec>",
      "fault injection, e.g. 503:0.1,429:0.05,reset:0.02,reset-after:0.01,latency:200ms (latency: is --latency-ms)",
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
    .version(packageVersion("service-emulator", __dirname))
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
    .addHelpText("after", "\nStop a detached emulator: service-emulator stop [--pid-file <path>]");
}

/** Warns on stderr when `host` is not a loopback address: other machines can then reach the emulator. */
async function warnIfReachable(host: string, io: CliIo): Promise<void> {
  if (!LOOPBACK.has(host)) {
    await io.stderr(
      `service-emulator: warning: listening on ${host}, reachable from other machines; the emulator is for local use\n`,
    );
  }
}

/**
 * What {@link startEmulator} gets from the parsed options `o` and the start keys: durations in
 * milliseconds, the limits per account, and Fastify's log level (`info` with `--verbose`).
 */
function startOptions(o: CliOptions, keys: StartKeys): StartEmulatorOptions {
  const { apiKeys, restrictedApiKeys, adminKey } = keys;
  const { rateLimit, latencyMs, latencyJitterMs } = combineLimits(o);
  return {
    port: o.port,
    host: o.host,
    data: o.data,
    apiKeys,
    restrictedApiKeys,
    adminKey,
    publicUrl: o.publicUrl,
    rateLimit,
    latencyMs,
    latencyJitterMs,
    reviewDelayMs: o.reviewDelay,
    faults: o.faults,
    idempotencyKeys: o.idempotencyKeys,
    limits: { idempotencyKeysPerAccount: o.maxIdempotencyKeys, abuseReportsPerAccount: o.maxAbuseReports },
    logger: o.verbose ? "info" : "warn",
  };
}

/**
 * Writes this process's PID to `pidFile` (its folders made as needed), and makes the emulator's
 * `close` remove the file afterwards (if it still holds this PID).
 *
 * @throws the file system's error when the file cannot be written, after closing the emulator.
 */
async function writePidFile(emulator: RunningEmulator, pidFile: string): Promise<void> {
  const file = path.resolve(pidFile);
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${process.pid}\n`);
  } catch (e) {
    await emulator.close();
    throw e;
  }
  const close = emulator.close.bind(emulator);
  emulator.close = () => close().then(() => removePidFile(file, process.pid));
}

/**
 * Runs `service-emulator` with `argv` (as `process.argv`): parses the options, starts the
 * emulator and prints one JSON line `{ url, apiKeys, restrictedApiKeys, adminKey }` on stdout.
 *
 * @param script - what `--detach` starts with `process.execPath` before the arguments: this
 *   file; `null` in the self-contained executable, which is the command line itself.
 * @returns the running emulator, or an exit code ({@link EXIT_CODES}) when it did not start (0
 *   after `--help` or `--version`, 1 for a bad command line).
 * @throws Error when a key is malformed, the port is taken or the data file cannot be opened.
 */
export async function main(
  argv: readonly string[],
  io: CliIo = processIo,
  script: string | null = __filename,
): Promise<RunningEmulator | number> {
  if (argv[2] === "stop") return stop(argv.slice(3), io);
  const program = emulatorCommand(io);
  const stopped = await parseCommandLine(() => program.parse([...argv]));
  if (stopped !== undefined) return stopped;
  const o = program.opts<CliOptions>();
  // No --port: SERVICE_EMULATOR_PORT, else the default.
  const envPort = io.env.SERVICE_EMULATOR_PORT;
  if (program.getOptionValueSource("port") === "default" && envPort !== undefined && envPort !== "") {
    try {
      o.port = parsePort(envPort);
    } catch {
      await io.stderr(
        `service-emulator: SERVICE_EMULATOR_PORT=${JSON.stringify(envPort)} is not a port (0-65535)\n`,
      );
      return EXIT_CODES.error;
    }
  }
  try {
    combineLimits(o);
  } catch (e) {
    await io.stderr(`service-emulator: ${(e as Error).message}\n`);
    return EXIT_CODES.error;
  }
  const keys = startKeys(o, io.env);
  if (o.detach) return detach(script, argv, o, io);
  await warnIfReachable(o.host, io);
  const emulator = await startEmulator(startOptions(o, keys));
  if (o.pidFile !== undefined) await writePidFile(emulator, o.pidFile);
  const { apiKeys, restrictedApiKeys, adminKey } = keys;
  await io.stdout(JSON.stringify({ url: emulator.url, apiKeys, restrictedApiKeys, adminKey }) + "\n");
  return emulator;
}

/**
 * Runs `service-emulator` as a process: {@link main} with `process.argv`, SIGINT and SIGTERM
 * closing the emulator and exiting 0, and the exit code of a start that did not happen (an error
 * is printed by `exitWithError`). What `node dist/cli.js` and the self-contained executable run.
 *
 * @param script - see {@link main}: this file, or `null` in the self-contained executable.
 */
export function runCli(script: string | null = __filename): void {
  const fail = (e: unknown) => exitWithError("service-emulator", e);
  // The background process of --detach sends its JSON line to the command that started it.
  const detached = process.env[DETACHED_ENV] === "1" && typeof process.send === "function";
  const io: CliIo = detached
    ? {
        ...processIo,
        stdout: (text) => new Promise((resolve) => process.send!(text.trim(), () => resolve())),
      }
    : processIo;
  // The signal handlers come first: a SIGTERM that arrives while the emulator starts (its PID
  // file is written, its JSON line perhaps sent) waits for the start, then closes it cleanly.
  const startup = main(process.argv, io, script);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    void processIo.stderr(`service-emulator: ${signal}, stopping\n`);
    startup.then(
      (started) =>
        typeof started === "number"
          ? process.exit(started)
          : started.close().then(() => process.exit(EXIT_CODES.ok), fail),
      fail,
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  startup.then((started) => {
    if (typeof started === "number") process.exit(started);
    if (detached) process.disconnect();
  }, fail);
}

if (require.main === module) runCli();

#!/usr/bin/env node
/**
 * Command line of the emulator: `service-emulator` (package bin) and `npm run emulator`.
 *
 * ```
 * service-emulator --port 8080 --host 127.0.0.1 --data .emulator/data.db \
 *   --api-key KEY --restricted-api-key KEY2 --admin-key ADMIN \
 *   --public-url http://127.0.0.1:8080 --rate-limit 120/60s --review-delay 30s \
 *   --faults 503:0.1,429:0.05,reset:0.02,reset-after:0.01,latency:200ms [--no-idempotency-keys] \
 *   --max-idempotency-keys 1000 --max-abuse-reports 1000
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
 * @packageDocumentation
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { Command, CommanderError, InvalidArgumentError } from "commander";
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
}

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
  const program = new Command()
    .name("service-emulator")
    .description("Local emulator of the abuse reports, event subscriptions and event destinations API")
    .option("--port <port>", "TCP port; 0 picks a free one", argParser(parsePort), 8080)
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
  await io.stdout(JSON.stringify({ url: emulator.url, apiKeys, restrictedApiKeys, adminKey }) + "\n");
  return emulator;
}

if (require.main === module) {
  const fail = async (e: unknown) => {
    await processIo.stderr(`service-emulator: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(EXIT_CODES.error);
  };
  main(process.argv).then((started) => {
    if (typeof started === "number") process.exit(started);
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

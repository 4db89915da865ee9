/**
 * The emulator as a background process: `service-emulator --detach` starts it and returns once it
 * listens, `service-emulator stop` ends it; a PID file joins the two (packages/emulator/cli.ts).
 *
 * @packageDocumentation
 */
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { Command } from "commander";
import { EXIT_CODES, parseCommandLine, wireCommand, type CliIo } from "service-cli-kit";
import { argParser, type CliOptions } from "./cliOptions";
import { parseDuration } from "./faults";

/** PID file of `--detach` and `stop` when none is given. */
export const DEFAULT_PID_FILE = ".emulator/emulator.pid";

/** Environment variable marking the background process of `--detach` (its line goes over IPC). */
export const DETACHED_ENV = "SERVICE_EMULATOR_DETACHED";

/** How long `--detach` waits for the background server to listen, in milliseconds. */
const DETACH_TIMEOUT_MS = 60_000;

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
export function removePidFile(file: string, pid: number): void {
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

/** The bytes of `file` from byte `start` on; none when it cannot be read. */
function readFrom(file: string, start: number): Buffer {
  try {
    return readFileSync(file).subarray(start);
  } catch {
    return Buffer.alloc(0);
  }
}

/**
 * `--detach`: starts `script` (the command line; `null`: `process.execPath` itself, the
 * self-contained executable) with the same arguments, without `--detach` and
 * with a PID file, as a background process in a session of its own, its stdout and stderr
 * appended to the log file. Waits until it listens (its JSON line arrives over IPC), prints that
 * line with `pid`, `pidFile` and `logFile` added, and how to stop it on stderr.
 *
 * @returns 0 once it listens; 1 when an emulator of the same PID file is already running, or
 *   the server exited or did not listen within 60 s (its log is printed on stderr).
 */
export async function detach(
  script: string | null,
  argv: readonly string[],
  o: CliOptions,
  io: CliIo,
): Promise<number> {
  const pidFile = path.resolve(o.pidFile ?? DEFAULT_PID_FILE);
  const logFile = path.resolve(o.logFile ?? pidFile.replace(/\.pid$/, "") + ".log");
  const running = readPid(pidFile);
  if (running !== undefined && alive(running)) {
    await io.stderr(
      `service-emulator: already running (PID ${running}, from ${pidFile}); stop it first: service-emulator stop --pid-file ${pidFile}\n`,
    );
    return EXIT_CODES.error;
  }
  mkdirSync(path.dirname(pidFile), { recursive: true });
  mkdirSync(path.dirname(logFile), { recursive: true });
  const logStart = readFrom(logFile, 0).length;
  const log = openSync(logFile, "a");
  const args = argv.slice(2).filter((a) => a !== "--detach");
  if (o.pidFile === undefined) args.push("--pid-file", pidFile);
  const child = spawn(process.execPath, script === null ? args : [script, ...args], {
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
    const settle = (result: { line: string } | { exit: string }) => {
      clearTimeout(timer);
      resolve(result);
    };
    child.once("message", (line) => settle({ line: String(line) }));
    child.once("exit", (code, signal) =>
      settle({ exit: signal ? `was killed by ${signal}` : `exited with code ${code}` }),
    );
    child.once("error", (e) => settle({ exit: `could not be started: ${e.message}` }));
  });
  if ("exit" in outcome) {
    await io.stderr(
      `service-emulator: the background emulator ${outcome.exit}\n${readFrom(logFile, logStart).toString("utf8")}`,
    );
    return EXIT_CODES.error;
  }
  child.disconnect();
  child.unref();
  const started = JSON.parse(outcome.line) as Record<string, unknown>;
  await io.stdout(JSON.stringify({ ...started, pid: child.pid, pidFile, logFile }) + "\n");
  const stopHint = o.pidFile === undefined ? "" : ` --pid-file ${o.pidFile}`;
  await io.stderr(
    `service-emulator: listening on ${String(started.url)} in the background (PID ${child.pid}, log ${logFile}); stop it with: npx service-emulator stop${stopHint}\n`,
  );
  return EXIT_CODES.ok;
}

/**
 * `service-emulator stop [--pid-file <path>] [--timeout <duration>]` (`args`: what follows
 * `stop`): sends SIGTERM to the emulator whose PID is in the PID file (default
 * {@link DEFAULT_PID_FILE}) and waits until it has exited, which closes its database first. Its
 * usage goes to stderr.
 *
 * @returns 0 once it has exited; 1 when there is no PID file, no such process (the stale PID file
 *   is removed), or it still runs after the timeout (default 10 s).
 */
export async function stop(args: readonly string[], io: CliIo): Promise<number> {
  const program = wireCommand(new Command(), io, "stderr")
    .name("service-emulator stop")
    .description(
      "Stop an emulator started with --detach: SIGTERM to the PID of its PID file, then wait until it has exited",
    )
    .option("--pid-file <path>", "the PID file the emulator wrote", DEFAULT_PID_FILE)
    .option(
      "--timeout <duration>",
      "how long to wait for it to exit, e.g. 30s (default 10s; a bare number is seconds)",
      argParser((s) => parseDuration(s, "s")),
    );
  const stopped = await parseCommandLine(() => program.parse(["node", "service-emulator stop", ...args]));
  if (stopped !== undefined) return stopped;
  const o = program.opts<{ pidFile: string; timeout?: number }>();
  const timeoutMs = o.timeout ?? 10_000;
  const pidFile = path.resolve(o.pidFile);
  const pid = readPid(pidFile);
  if (pid === undefined) {
    await io.stderr(`service-emulator: no emulator to stop: no PID in ${pidFile}\n`);
    return EXIT_CODES.error;
  }
  if (!alive(pid)) {
    rmSync(pidFile, { force: true });
    await io.stderr(
      `service-emulator: no process with PID ${pid} (from ${pidFile}); removed the stale PID file\n`,
    );
    return EXIT_CODES.error;
  }
  process.kill(pid, "SIGTERM");
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) {
      await io.stderr(`service-emulator: PID ${pid} still runs ${timeoutMs / 1000} s after SIGTERM\n`);
      return EXIT_CODES.error;
    }
    await sleep(50);
  }
  await io.stdout(`stopped the emulator (PID ${pid})\n`);
  return EXIT_CODES.ok;
}

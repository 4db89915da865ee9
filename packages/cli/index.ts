/**
 * What the three command lines (`service-drift`, `service-recover` of `pulumi-service`, and
 * `service-emulator`) share: their exit codes (the table of docs/cli.md), where they write and the
 * environment they read (tests pass their own), the version of their own package, commander wired
 * to that io (help and version on stdout, errors on stderr, exit codes instead of
 * `process.exit`), progress lines on a terminal only, and the last words of a command that failed.
 *
 * A package of its own (`service-cli-kit`), apart from the service's schemas in
 * `service-contract`. It needs no dependency: commander, the command lines' own, is recognised by
 * its shape.
 *
 * @module service-cli-kit
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";

/**
 * Exit codes of the three command lines (docs/cli.md):
 *
 * | code | meaning                                                                          |
 * | ---- | -------------------------------------------------------------------------------- |
 * | 0    | done, nothing to look at (also after `--help` and `--version`)                   |
 * | 1    | error, a bad command line included: nothing could be concluded                   |
 * | 2    | done, with something a person must look at (drift; a pending create kept)        |
 */
export const EXIT_CODES = {
  /** Done, nothing to look at: no drift, every pending create settled, `--help`, `--version`. */
  ok: 0,
  /** An error (a bad command line included): nothing could be concluded; the message is on stderr. */
  error: 1,
  /** Done, with something a person must look at: drift found, a pending create kept. */
  attention: 2,
} as const;

/** One of {@link EXIT_CODES}. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** Where a command writes, and the environment it reads. */
export interface CliIo {
  /** Standard output: the command's result (a report, a program, a JSON line), the usage, the version. */
  stdout: (text: string) => Promise<void>;
  /** Standard error: errors, warnings and progress. */
  stderr: (text: string) => Promise<void>;
  /** The environment (API keys, base URLs, `PULUMI_STACK`, Pulumi's variables…). */
  env: Record<string, string | undefined>;
  /**
   * True when standard error is a terminal: progress lines are written there only then (never
   * into a pipe or a CI log). Absent means false.
   */
  stderrIsTTY?: boolean;
}

function writer(stream: NodeJS.WriteStream): (text: string) => Promise<void> {
  return (text) => new Promise<void>((resolve) => stream.write(text, () => resolve()));
}

/** The process's own streams and environment; each write resolves once the stream took the text. */
export const processIo: CliIo = {
  stdout: writer(process.stdout),
  stderr: writer(process.stderr),
  env: process.env,
  stderrIsTTY: process.stderr.isTTY === true,
};

/**
 * The version of the package named `name`, read at run time from the nearest `package.json` so
 * named above the folder `from` (the caller's `__dirname`: the package's own manifest, from its
 * sources and from its `dist/`). Read when the command runs, not when it was built.
 *
 * @throws Error when no readable `package.json` named `name` with a version is above `from`.
 */
export function packageVersion(name: string, from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    try {
      const m = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as Record<string, unknown>;
      if (m.name === name && typeof m.version === "string" && m.version) return m.version;
    } catch {
      // no (readable) package.json here: look further up
    }
    if (path.dirname(dir) === dir) throw new Error(`no package.json of ${name} above ${from}`);
  }
}

/**
 * The part of a commander `Command` that {@link wireCommand} configures (commander's own types
 * fit it; this package does not depend on commander).
 */
export interface ConfigurableCommand {
  /** commander: throw a `CommanderError` instead of calling `process.exit`. */
  exitOverride(): unknown;
  /** commander: where the usage, the version and the errors are written. */
  configureOutput(output: { writeOut: (text: string) => void; writeErr: (text: string) => void }): unknown;
}

/**
 * Makes `command` write to `io` and throw instead of exiting: the usage and the version go to
 * stdout (to stderr with `help: "stderr"`), commander's errors (a bad command line) to stderr.
 * Run it with {@link parseCommandLine}.
 *
 * @returns `command`, for chaining.
 */
export function wireCommand<C extends ConfigurableCommand>(
  command: C,
  io: CliIo,
  help: "stdout" | "stderr" = "stdout",
): C {
  command.exitOverride();
  command.configureOutput({ writeOut: (s) => void io[help](s), writeErr: (s) => void io.stderr(s) });
  return command;
}

/**
 * Whether `err` is commander's `CommanderError` (thrown after `--help`, `--version` or a bad
 * command line once {@link wireCommand} made it throw): its `code` starts with `commander.` and it
 * carries the `exitCode` commander would have exited with.
 */
function isCommanderError(err: unknown): err is Error & { code: string; exitCode: number } {
  const e = err as { code?: unknown; exitCode?: unknown } | null;
  return (
    err instanceof Error &&
    typeof e?.code === "string" &&
    e.code.startsWith("commander.") &&
    typeof e.exitCode === "number"
  );
}

/**
 * Runs `parse` (a wired command's `parse` or `parseAsync`) and turns commander's way of stopping
 * into an exit code: {@link EXIT_CODES.ok} after `--help` or `--version`, {@link EXIT_CODES.error}
 * after a bad command line (commander has written the message on stderr).
 *
 * @returns `undefined` when the command line was parsed (and its action, if any, has run), or
 *   the exit code to stop with.
 * @throws what `parse` throws other than commander's stops (an action's error).
 */
export async function parseCommandLine(parse: () => unknown): Promise<ExitCode | undefined> {
  try {
    await parse();
    return undefined;
  } catch (err) {
    if (isCommanderError(err)) return err.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.error;
    throw err;
  }
}

/**
 * A progress writer for stderr (`NAME: [3.2 s] STEP`, seconds since it was made), only when
 * stderr is a terminal: a pipe, a file or a CI log gets nothing, and stdout never does.
 *
 * @returns a function writing one line per step, or `undefined` when stderr is not a terminal.
 */
export function progressWriter(io: CliIo, name: string): ((step: string) => void) | undefined {
  if (!io.stderrIsTTY) return undefined;
  const started = Date.now();
  return (step) => {
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    void io.stderr(`${name}: [${seconds} s] ${step}\n`);
  };
}

/** The text of a thrown value: an `Error`'s message, anything else as a string. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The last words of a command that failed: writes `NAME: MESSAGE` on the process's stderr
 * (`message` makes the text from the error; default {@link errorMessage}), then exits the process
 * with {@link EXIT_CODES.error}.
 */
export async function exitWithError(
  name: string,
  err: unknown,
  message: (err: unknown) => string = errorMessage,
): Promise<never> {
  await processIo.stderr(`${name}: ${message(err)}\n`);
  process.exit(EXIT_CODES.error);
}

/**
 * Runs a command line's `main` as the process: exits with the code it returns, or, when it
 * throws, with {@link exitWithError} (the error text made by `message`).
 */
export function runAsProcess(
  name: string,
  main: () => Promise<number>,
  message?: (err: unknown) => string,
): void {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => exitWithError(name, err, message),
  );
}

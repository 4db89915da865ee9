/**
 * What the command lines of this package (`service-drift`, `service-recover`) write to and read
 * from (tests pass their own), their exit codes, and the package's version: the conventions the
 * three command lines share (`service-cli-kit`, docs/cli.md), with this package's name, and
 * the redaction of secrets from the text they print.
 *
 * @packageDocumentation
 */
import { EXIT_CODES, packageVersion as versionOf, type CliIo } from "service-cli-kit";

export { EXIT_CODES, processIo, type CliIo, type ExitCode } from "service-cli-kit";

/**
 * Removes every occurrence of each secret of `secrets` (and any `Bearer` token) from `text`.
 * Secrets shorter than 4 characters are ignored (they would mangle ordinary words).
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text.replace(/(Bearer\s+)[^\s"']+/gi, "$1[redacted]");
  for (const s of [...secrets].filter((x) => x && x.length >= 4).sort((a, b) => b.length - a.length)) {
    out = out.split(s).join("[redacted]");
  }
  return out;
}

/**
 * The version of this package (`pulumi-service`), read at run time from the nearest
 * `package.json` above this file (the package's own, from the sources and from `dist/`).
 *
 * @throws Error when no `package.json` named `pulumi-service` is found above this file.
 */
export function packageVersion(): string {
  return versionOf("pulumi-service", __dirname);
}

/**
 * The text of an error for a command line's stderr: the message alone for the commands' own
 * errors (`DriftError`, `PreviewError`: written for users), else prefixed with its class name.
 */
export function messageOf(err: unknown): string {
  if (err instanceof Error && (err.name === "DriftError" || err.name === "PreviewError")) return err.message;
  if (err instanceof Error) return `${err.name === "Error" ? "" : `${err.name}: `}${err.message}`;
  return String(err);
}

/** The output formats of the commands on a stack: a table, one JSON document, a Markdown comment. */
export type OutputFormat = "text" | "json" | "markdown";

/** A command's result on stdout in `format`: indented JSON, else its Markdown or text form. */
export function renderResult<T>(
  format: OutputFormat,
  result: T,
  forms: { markdown: (r: T) => string; text: (r: T) => string },
): string {
  if (format === "json") return `${JSON.stringify(result, null, 2)}\n`;
  return format === "markdown" ? forms.markdown(result) : forms.text(result);
}

/**
 * What a failed command prints on stdout in `format` (its message also goes to stderr): with
 * `json`, `{ "error": message, "exitCode": 1 }`; with `markdown`, one line `**<what> failed**
 * (exit code 1): message`; with `text`, nothing.
 */
export function failureOutput(format: OutputFormat, message: string, what: string): string {
  if (format === "json")
    return `${JSON.stringify({ error: message, exitCode: EXIT_CODES.error }, null, 2)}\n`;
  if (format === "markdown") return `**${what} failed** (exit code 1): ${message.replace(/\s+/g, " ")}\n`;
  return "";
}

/**
 * Prints a check's `result` on stdout in `format` ({@link renderResult}).
 * @returns the result's `exitCode`.
 */
export async function printResult<R extends { exitCode: number }>(
  io: CliIo,
  format: OutputFormat,
  result: R,
  forms: { text: (r: R) => string; markdown: (r: R) => string },
): Promise<number> {
  await io.stdout(renderResult(format, result, forms));
  return result.exitCode;
}

/**
 * Prints a failed command's `message` (already redacted): on stdout as {@link failureOutput}
 * gives it for `what` (e.g. "The drift report"), and on stderr as `<command>: <message>`.
 * @returns `EXIT_CODES.error`.
 */
export async function printFailure(
  io: CliIo,
  format: OutputFormat,
  command: string,
  what: string,
  message: string,
): Promise<number> {
  await io.stdout(failureOutput(format, message, what));
  await io.stderr(`${command}: ${message}\n`);
  return EXIT_CODES.error;
}

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

/** The output formats of the checks of `service-drift`. */
export type OutputFormat = "text" | "json" | "markdown";

/**
 * Prints a check's `result` on stdout in `format`: `json` as one indented document, `markdown`
 * and `text` by `forms`. @returns the result's `exitCode`.
 */
export async function printResult<R extends { exitCode: number }>(
  io: CliIo,
  format: OutputFormat,
  result: R,
  forms: { text: (r: R) => string; markdown: (r: R) => string },
): Promise<number> {
  await io.stdout(format === "json" ? `${JSON.stringify(result, null, 2)}\n` : forms[format](result));
  return result.exitCode;
}

/**
 * Prints a failed check's `message` (already redacted): on stderr as `<command>: <message>`, and
 * on stdout for `json` (`{ "error", "exitCode": 1 }`) and `markdown` (`**<title>** (exit code
 * 1): …`). @returns `EXIT_CODES.error`.
 */
export async function printFailure(
  io: CliIo,
  format: OutputFormat,
  command: string,
  title: string,
  message: string,
): Promise<number> {
  if (format === "json")
    await io.stdout(`${JSON.stringify({ error: message, exitCode: EXIT_CODES.error }, null, 2)}\n`);
  if (format === "markdown") await io.stdout(`**${title}** (exit code 1): ${message.replace(/\s+/g, " ")}\n`);
  await io.stderr(`${command}: ${message}\n`);
  return EXIT_CODES.error;
}

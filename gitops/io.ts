/**
 * What the command lines of this package (`service-drift`, `service-recover`) write to and read
 * from (tests pass their own), their exit codes, and the package's version. The exit codes are
 * the table of docs/cli.md, shared with `service-emulator` (which keeps the same numbers in its
 * own package).
 *
 * @packageDocumentation
 */
import * as fs from "node:fs";
import * as path from "node:path";

/**
 * Exit codes of every command line of the three packages (docs/cli.md):
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
  /** Standard output. */
  stdout: (text: string) => Promise<void>;
  /** Standard error. */
  stderr: (text: string) => Promise<void>;
  /** The environment (`SERVICE_API_KEY`, `SERVICE_BASE_URL`, `PULUMI_STACK`, Pulumi's variables). */
  env: Record<string, string | undefined>;
  /**
   * True when standard error is a terminal: progress lines are written there only then (never
   * into a pipe or a CI log). Absent means false.
   */
  stderrIsTTY?: boolean;
}

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

function writer(stream: NodeJS.WriteStream): (text: string) => Promise<void> {
  return (text) => new Promise<void>((resolve) => stream.write(text, () => resolve()));
}

/** The process's own streams and environment. */
export const processIo: CliIo = {
  stdout: writer(process.stdout),
  stderr: writer(process.stderr),
  env: process.env,
  stderrIsTTY: process.stderr.isTTY === true,
};

/**
 * The version of this package (`pulumi-service`), read at run time from the nearest
 * `package.json` above this file (the package's own, from the sources and from `dist/`).
 *
 * @throws Error when no `package.json` named `pulumi-service` is found above this file.
 */
export function packageVersion(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (fs.existsSync(file)) {
      const manifest = JSON.parse(fs.readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (manifest.name === "pulumi-service" && manifest.version) return manifest.version;
    }
    if (path.dirname(dir) === dir) throw new Error(`no package.json of pulumi-service above ${__dirname}`);
  }
}

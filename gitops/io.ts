/**
 * What the command lines of this package (`service-drift`, `service-recover`) write to and read
 * from; tests pass their own. Exit codes are the same everywhere: 0 done, 1 error (a bad command
 * line included), 2 done with something the user must look at (drift; a pending create kept).
 *
 * @packageDocumentation
 */

/** Where a command writes, and the environment it reads. */
export interface CliIo {
  /** Standard output. */
  stdout: (text: string) => Promise<void>;
  /** Standard error. */
  stderr: (text: string) => Promise<void>;
  /** The environment (`SERVICE_API_KEY`, `SERVICE_BASE_URL`, Pulumi's variables). */
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

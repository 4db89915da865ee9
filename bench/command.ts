/**
 * What every benchmark command (`npm run bench`, `npm run bench:scale`, `npm run bench:teams`)
 * shares: the settings each reads from its environment, and how it runs from the command line
 * (the results as Markdown on stdout, progress on stderr, exit status 1 on an error).
 *
 * @packageDocumentation
 */
import path from "node:path";

/**
 * The settings every benchmark command has (`npm run bench`, `npm run bench:scale`,
 * `npm run bench:teams`).
 */
export interface CommandOptions {
  /** Quick mode (`BENCH_QUICK=1`): a smoke run, not figures to compare. */
  quick: boolean;
  /** Runs of each figure (each figure is the median of these). */
  runs: number;
  /** Where to write the results document (JSON); its charts are written beside it. */
  outFile: string;
  /** Progress lines. */
  log: (line: string) => void;
}

/**
 * Runs a benchmark as its command does (`npm run bench`, `npm run bench:scale`): awaits `run`,
 * then writes `markdown` of its results to stdout and, through `opts.log`, where the results
 * file `opts.outFile` went and how long the run took (`durationSeconds`, in seconds). Returns at
 * once; throws nothing: an error of `run` or `markdown` is written to stderr (its stack) and the
 * process exits with status 1.
 */
export function runFromCommandLine<R extends { durationSeconds: number }>(
  run: Promise<R>,
  markdown: (results: R) => string,
  opts: Pick<CommandOptions, "outFile" | "log">,
): void {
  run
    .then((r) => {
      process.stdout.write(markdown(r) + "\n");
      opts.log(`wrote ${path.relative(process.cwd(), opts.outFile)} in ${r.durationSeconds} s`);
    })
    .catch((e: unknown) => {
      process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
      process.exit(1);
    });
}

#!/usr/bin/env node
/**
 * `service-drift`: the GitOps command line of this package.
 *
 * ```text
 * service-drift --stack dev [--cwd DIR] [--format text|json|markdown] [--json]
 *                                                    drift report of a stack
 * service-drift generate [--base-url URL]            program adopting every resource of the account
 * service-drift preview --stack dev [--cwd DIR] [--format text|json|markdown] [--json]
 *   [--fail-on OPS] [--fail-on-type TYPES] [--fail-on-name NAMES]
 *                                                    preview summary and guard (gitops/preview-cli.ts)
 * service-drift unmanaged --stack [DIR:]STACK …      resources of the account in no stack's state
 * service-drift --version | --help
 * ```
 *
 * Drift report (see gitops/drift.ts): a preview-only refresh, then a preview of the program;
 * the state is not changed. The stack is `--stack`, else `PULUMI_STACK` (as the Pulumi CLI
 * does). Exit codes ({@link EXIT_CODES}, docs/cli.md): 0 no drift; 2 drift; 1 error (message on
 * stderr, never holding the API key). `--format json` (or `--json`) prints one JSON document
 * ({@link DriftReport}, or `{ "error": "…", "exitCode": 1 }`) on stdout; `--format markdown` a
 * comment for a pull request or an issue; otherwise (`text`) a table. While it runs, a line per
 * step with the elapsed seconds goes to stderr when stderr is a terminal (never to stdout).
 *
 * `generate` (see gitops/generate.ts): reads the API key from `SERVICE_API_KEY` and the base URL
 * from `--base-url` or `SERVICE_BASE_URL`; prints the TypeScript program on stdout and the
 * secrets to configure on stderr. Exit code 0, or 1 on error.
 *
 * `--version` (`-V`) prints the package's version; `--help` prints the usage on stdout (exit 0).
 *
 * @packageDocumentation
 */
import * as path from "path";
import { Command } from "commander";
import { withFormatOptions } from "./format-option";
import { parseCommandLine, progressWriter, runAsProcess, wireCommand } from "service-cli-kit";
import type { ServiceClient } from "../client";
import type { DriftPhase, DriftReport } from "./drift";
import {
  EXIT_CODES,
  messageOf,
  packageVersion,
  printFailure,
  printResult,
  processIo,
  redact,
  type CliIo,
} from "./io";
import { addPreviewCommand } from "./preview-cli";
import { unmanagedCommand } from "./unmanaged-cli";

export { processIo, type CliIo } from "./io";

/** Options of the drift report as commander parses them. */
interface ReportFlags {
  stack?: string;
  cwd?: string;
  json?: boolean;
  format: "text" | "json" | "markdown";
}

// The drift report, the client and the generator (the Automation API, undici, zod) are loaded by
// the command that needs them: `--version`, `--help` and a bad command line answer at once.

const STEPS: Record<DriftPhase, string> = {
  select: "selecting the stack",
  refresh: "reading the live resources (refresh, preview only)",
  preview: "previewing the program",
  done: "done",
};

/**
 * Progress lines on stderr (`service-drift: [3.2 s] previewing the program`), only when stderr is
 * a terminal: a pipe, a file or a CI log gets nothing, and stdout never does.
 */
function progressOf(io: CliIo, stack: string): ((phase: DriftPhase) => void) | undefined {
  const write = progressWriter(io, "service-drift");
  return write && ((phase) => write(phase === "select" ? `${STEPS.select} "${stack}"` : STEPS[phase]));
}

async function report(flags: ReportFlags, io: CliIo): Promise<number> {
  const secrets = [io.env.SERVICE_API_KEY ?? ""];
  try {
    const stack = flags.stack ?? (io.env.PULUMI_STACK || undefined);
    if (!stack)
      throw new Error("Missing --stack <name> (or PULUMI_STACK): which stack to check (e.g. --stack dev).");
    const { runDriftReport } = await import("./drift");
    const { formatMarkdown, formatReport } = await import("./format");
    const result: DriftReport = await runDriftReport({
      stack,
      cwd: path.resolve(flags.cwd ?? process.cwd()),
      env: io.env as Record<string, string>,
      onProgress: progressOf(io, stack),
    });
    const format = flags.json ? "json" : flags.format;
    return await printResult(io, format, result, { text: formatReport, markdown: formatMarkdown });
  } catch (err) {
    const format = flags.json ? "json" : flags.format;
    return printFailure(io, format, "service-drift", "The drift report", redact(messageOf(err), secrets));
  }
}

async function generate(flags: { baseUrl?: string }, io: CliIo): Promise<number> {
  const apiKey = io.env.SERVICE_API_KEY;
  const secrets = [apiKey ?? ""];
  let client: ServiceClient | undefined;
  try {
    const baseUrl = flags.baseUrl ?? io.env.SERVICE_BASE_URL;
    if (!apiKey) throw new Error("No API key: set SERVICE_API_KEY to the key of the account to read.");
    if (!baseUrl) throw new Error("No base URL: pass --base-url <url> or set SERVICE_BASE_URL.");
    const { ServiceClient } = await import("../client");
    const { generateProgram, listInventory } = await import("./generate");
    client = new ServiceClient({ apiKey, baseUrl, userAgent: "service-drift-generate" });
    const program = generateProgram(await listInventory(client));
    await io.stdout(program.source);
    const lines = [
      `service-drift: generated a program adopting ${Object.keys(program.names).length} resource(s).`,
      "Before `pulumi up`, set service:baseUrl and the secret service:apiKey in the stack's config",
    ];
    if (program.secrets.length > 0) {
      lines.push("and these write-only secrets, which the API never returns:");
      for (const s of program.secrets)
        lines.push(`  pulumi config set --secret ${s.configKey} <value>   # ${s.path} of ${s.id}`);
    }
    await io.stderr(`${lines.join("\n")}\n`);
    return EXIT_CODES.ok;
  } catch (err) {
    await io.stderr(`service-drift generate: ${redact(messageOf(err), secrets)}\n`);
    return EXIT_CODES.error;
  } finally {
    await client?.close();
  }
}

/**
 * Runs the command line with `argv` (as `process.argv`: node, script, arguments…).
 * @returns the exit code ({@link EXIT_CODES}): 0 (no drift, or after `--help` and `--version`),
 *   2 (drift) or 1 (error, including a bad command line).
 */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let code: number = EXIT_CODES.error;
  const program = withFormatOptions(wireCommand(new Command("service-drift"), io))
    .description(
      "Drift report of a Pulumi stack of this service: a preview-only refresh (the state is not changed) " +
        "and, kept apart, the program's changes not yet deployed. Exit code 0: no drift; 2: drift; 1: error.",
    )
    .version(packageVersion())
    // Options after a subcommand are the subcommand's (`unmanaged --stack` is not the report's).
    .enablePositionalOptions()
    .option("-s, --stack <name>", "stack to check, e.g. dev (default: env PULUMI_STACK)")
    .option("-C, --cwd <dir>", "folder of the Pulumi project (Pulumi.yaml)", process.cwd())
    .action(async (flags: ReportFlags) => {
      code = await report(flags, io);
    });
  program
    .command("generate")
    .description(
      "Print a TypeScript Pulumi program adopting every event destination and subscription of the account " +
        "(API key from SERVICE_API_KEY).",
    )
    .option("--base-url <url>", "base URL of the service (default: SERVICE_BASE_URL)")
    .action(async (flags: { baseUrl?: string }) => {
      code = await generate(flags, io);
    });
  addPreviewCommand(program, io, (c) => (code = c));
  // `service-drift unmanaged` (gitops/unmanaged-cli.ts).
  program.addCommand(
    wireCommand(
      unmanagedCommand(io, (c) => (code = c)),
      io,
    ),
  );
  return (await parseCommandLine(() => program.parseAsync([...argv]))) ?? code;
}

// Stryker disable all: runs only when the file is the process's entry point (`service-drift`), never
// under jest: cli.engine.test.ts and the documentation's tests run the built command line.
if (require.main === module) {
  runAsProcess(
    "service-drift",
    () => main(process.argv),
    (err) => redact(messageOf(err), [process.env.SERVICE_API_KEY ?? ""]),
  );
}
// Stryker restore all
